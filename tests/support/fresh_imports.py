"""What a fresh interpreter has imported after `import app.main`, and after building the app and
importing the worker with default settings: one subprocess for the tests that check what start-up
must not load (the MCP SDK, the tracing extra), shared by them within a run."""

from __future__ import annotations

import functools
import json
import subprocess
import sys

_PROBE = """
import json, sys
import app.main
first = sorted(sys.modules)
from app.config import Settings
import app.worker, app.worker_main
app.main.create_app(Settings())
print(json.dumps({"import": first, "start": sorted(sys.modules)}))
"""


@functools.cache
def fresh_modules() -> dict[str, frozenset[str]]:
    """{"import": modules after `import app.main`, "start": after create_app and the worker}."""
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    return {stage: frozenset(names) for stage, names in loaded.items()}
