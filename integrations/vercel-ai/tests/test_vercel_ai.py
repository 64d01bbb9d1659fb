"""The Vercel AI SDK adapter against a live `engram serve`: its tools inside a real `generateText`
loop (the SDK's mock model, no LLM), the memory context and a retried turn (test/e2e.ts)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import httpx
import pytest

from integrations.conftest import Live

HERE = Path(__file__).resolve().parents[1]
CLIENT = HERE.parents[1] / "openapi" / "clients" / "typescript"


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(cmd)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def adapter() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node is not installed")
    if not (CLIENT / "node_modules").exists():
        _run(["npm", "ci", "--no-audit", "--no-fund"], CLIENT)
    _run(["npm", "run", "build"], CLIENT)  # the adapter links the client's folder
    _run(["npm", "ci", "--no-audit", "--no-fund"], HERE)
    _run(["npm", "run", "build"], HERE)
    return HERE


def test_vercel_ai_adapter_end_to_end(engram_live: Live, adapter: Path) -> None:
    key, run = engram_live.new_key(), uuid.uuid4().hex[:8]
    env = {**os.environ, "ENGRAM_URL": engram_live.url, "ENGRAM_API_KEY": key, "ENGRAM_RUN": run}
    seen = json.loads(_run(["node", "build/test/e2e.js"], adapter, env).strip().splitlines()[-1])
    assert seen["tool_calls"] == 3 and seen["context_chars"] > 0
    # What it wrote is there, read back without it: the retried turn once.
    r = httpx.get(
        f"{engram_live.url}/v1/sessions/{seen['session_id']}/messages",
        headers={"Authorization": f"Bearer {key}"},
    )
    assert [m["seq"] for m in r.json()["items"]] == [1, 2]
