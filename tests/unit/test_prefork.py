"""`engram serve --workers N` builds the app before it forks (app/prefork.py): with tracing off,
`preload` returns the app with its OpenAPI document built and leaves one thread; with tracing on
(whose span exporter is a thread, which a fork would not carry over) it builds none and still
leaves one thread. Each case in a fresh interpreter: preloading freezes the heap."""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROBE = """
import json, threading
from app.config import Settings
from app.prefork import preload
app = preload(Settings())
print(json.dumps({
    "app": type(app).__name__ if app is not None else None,
    "openapi_built": getattr(app, "openapi_schema", None) is not None,
    "threads": threading.active_count(),
}))
"""


def _preload(**env: str) -> dict[str, object]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAM_", "OTEL_"))}
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        env={**clean, "ENGRAM_LOG_LEVEL": "warning", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def test_the_app_is_built_before_the_fork_when_tracing_is_off() -> None:
    assert _preload() == {"app": "FastAPI", "openapi_built": True, "threads": 1}


def test_with_tracing_on_each_process_builds_its_own_app_and_no_thread_is_started() -> None:
    # Built here, the app's tracing would start the exporter's thread (threads == 2). No collector
    # listens on that port: the exporter would only ever try, from its thread.
    got = _preload(ENGRAM_OTEL="on", OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9")
    assert got == {"app": None, "openapi_built": False, "threads": 1}
