"""The clients install and their quick starts run as written, against a live `engram serve`:

- the TypeScript client packs (`npm pack`) into a tarball that a scratch project installs from
  the registry-free file, and its README's quick start runs there, type-checked too;
- the Python quick start of docs/use-rest-clients.md runs as written.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from integrations.conftest import Live

ROOT = Path(__file__).resolve().parents[1]
TS_CLIENT = ROOT / "openapi" / "clients" / "typescript"


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(cmd)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def _block(doc: Path, lang: str, after: str) -> str:
    """The first fenced `lang` block after the heading `after` in `doc`."""
    text = doc.read_text()
    found = re.search(rf"{re.escape(after)}.*?```{lang}\n(.*?)```", text, re.S)
    assert found, f"no {lang} block after {after!r} in {doc}"
    return found.group(1)


def test_typescript_client_tarball_installs_and_its_quick_start_runs(
    engram_live: Live, tmp_path: Path
) -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node is not installed")
    if not (TS_CLIENT / "node_modules").exists():
        _run(["npm", "ci", "--no-audit", "--no-fund"], TS_CLIENT)
    packed = _run(["npm", "pack", "--pack-destination", str(tmp_path)], TS_CLIENT).strip().splitlines()[-1]
    tarball = tmp_path / packed
    assert tarball.exists()

    project = tmp_path / "scratch"
    project.mkdir()
    (project / "package.json").write_text('{"name": "scratch", "private": true, "type": "module"}\n')
    _run(["npm", "install", "--no-audit", "--no-fund", str(tarball)], project)
    installed = project / "node_modules" / "@engram" / "client"
    assert (installed / "build" / "src" / "index.js").exists() and (
        installed / "build" / "src" / "index.d.ts"
    ).exists()
    assert not (installed / "src").exists() and not (installed / "build" / "test").exists()

    quick = _block(TS_CLIENT / "README.md", "js", "## Quick start")
    (project / "quickstart.mjs").write_text(quick)
    env = {**os.environ, "ENGRAM_URL": engram_live.url, "ENGRAM_API_KEY": engram_live.new_key()}
    out = _run(["node", "quickstart.mjs"], project, env)
    assert "I moved to Lisbon last week." in out

    # The package's types resolve for a TypeScript project too.
    (project / "quickstart.ts").write_text(quick)
    tsc = str(TS_CLIENT / "node_modules" / ".bin" / "tsc")
    _run(
        [
            tsc,
            "--noEmit",
            "--strict",
            "--module",
            "nodenext",
            "--moduleResolution",
            "nodenext",
            "--target",
            "es2022",
            "--types",
            "node",
            "--typeRoots",
            str(TS_CLIENT / "node_modules" / "@types"),
            "quickstart.ts",
        ],
        project,
    )


def test_python_quick_start_runs_as_written(engram_live: Live, tmp_path: Path) -> None:
    quick = _block(ROOT / "docs" / "use-rest-clients.md", "python", "## Python")
    script = tmp_path / "quickstart.py"
    script.write_text(quick)
    env = {**os.environ, "ENGRAM_URL": engram_live.url, "ENGRAM_API_KEY": engram_live.new_key()}
    out = _run([sys.executable, str(script)], tmp_path, env)
    assert "I moved to Lisbon last week." in out
