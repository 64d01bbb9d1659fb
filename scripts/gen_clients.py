"""Generate the Python and TypeScript clients in openapi/clients/ from openapi/openapi.json.

`make clients` (scripts/gen-clients) rewrites them; `--check` generates into a temporary
directory instead and exits 1 when the committed clients differ, which a test runs in CI.

One thing is adjusted in a copy of the spec first, nothing else (operation ids are already the
handlers' names, `create_session`, which the generators name functions and modules after):
- a body that is neither JSON nor text (the JSON Lines of export / import) is a plain string in
  the spec; it is marked binary, so the Python client sends and returns it as bytes (`File`)
  instead of generating a body it cannot send.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "openapi" / "openapi.json"
CLIENTS = ROOT / "openapi" / "clients"
PYTHON_DIR = CLIENTS / "python"
PYTHON_CONFIG = CLIENTS / "python-generator.yaml"
TS_DIR = CLIENTS / "typescript"
TS_SCHEMA = Path("src") / "schema.ts"  # the only generated file of the TypeScript client
METHODS = ("get", "put", "post", "patch", "delete", "head", "options")
# Local build and install leftovers in the Python client's folder: never generated, never compared.
IGNORED = {"__pycache__", ".pdm-build", "build", "dist", ".pytest_cache", ".ruff_cache", ".mypy_cache"}


def _is_bytes(media_type: str) -> bool:
    return not (media_type.startswith("text/") or media_type.split(";")[0].endswith(("/json", "+json")))


def _mark_binary(op: dict[str, Any]) -> None:
    bodies = [op.get("requestBody", {}), *op.get("responses", {}).values()]
    for body in bodies:
        for media_type, media in body.get("content", {}).items():
            if _is_bytes(media_type) and media.get("schema") == {"type": "string"}:
                media["schema"] = {"type": "string", "format": "binary"}


def prepare(spec: dict[str, Any]) -> dict[str, Any]:
    """A copy of `spec` with binary non-JSON bodies (see above); operation ids must be unique."""
    spec = json.loads(json.dumps(spec))
    seen: dict[str, str] = {}
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method not in METHODS:
                continue
            _mark_binary(op)
            if "operationId" not in op:
                continue
            where = f"{method.upper()} {path}"
            if op["operationId"] in seen:
                raise SystemExit(
                    f"operation id {op['operationId']!r} of {where} is also {seen[op['operationId']]}"
                )
            seen[op["operationId"]] = where
    return spec


def _run(cmd: list[str], cwd: Path) -> None:
    tools = str(Path(sys.executable).parent)  # ruff (the Python generator's formatter) lives here
    env = {**os.environ, "PATH": tools + os.pathsep + os.environ.get("PATH", "")}
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout}{done.stderr}")


def generate_python(spec: Path, out: Path) -> None:
    generator = Path(sys.executable).with_name("openapi-python-client")
    cmd = [str(generator), "generate", "--path", str(spec), "--config", str(PYTHON_CONFIG)]
    _run([*cmd, "--meta", "pdm", "--fail-on-warning", "--output-path", str(out)], cwd=out.parent)


def generate_typescript(spec: Path, out: Path) -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise SystemExit("node and npm are needed for the TypeScript client")
    if not (TS_DIR / "node_modules" / ".bin" / "openapi-typescript").exists():
        _run(["npm", "ci", "--no-audit", "--no-fund"], cwd=TS_DIR)
    out.parent.mkdir(parents=True, exist_ok=True)
    # A field with a default is optional to send: without the flag, openapi-typescript requires it.
    generator = str(TS_DIR / "node_modules" / ".bin" / "openapi-typescript")
    _run([generator, str(spec), "--default-non-nullable", "false", "-o", str(out)], cwd=TS_DIR)


def _files(root: Path) -> dict[Path, bytes]:
    if not root.exists():
        return {}
    return {
        p.relative_to(root): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and not any(part in IGNORED or part.endswith(".egg-info") for part in p.relative_to(root).parts)
    }


def _differences(want: dict[Path, bytes], have: dict[Path, bytes], label: str) -> list[str]:
    out = []
    for rel in sorted(want.keys() | have.keys()):
        if want.get(rel) == have.get(rel):
            continue
        if rel not in have or rel not in want:
            out.append(f"{label}/{rel}: {'missing' if rel not in have else 'not generated any more'}")
            continue
        diff = difflib.unified_diff(
            have[rel].decode().splitlines(),
            want[rel].decode().splitlines(),
            f"{label}/{rel}",
            "generated",
            n=1,
            lineterm="",
        )
        out.append("\n".join(list(diff)[:20]))
    return out


def _sync(want: dict[Path, bytes], root: Path) -> None:
    """Make the generated part of `root` exactly `want`, keeping ignored leftovers (an editable install)."""
    for rel in _files(root).keys() - want.keys():
        (root / rel).unlink()
    for rel, data in want.items():
        path = root / rel
        if not path.exists() or path.read_bytes() != data:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    for d in sorted((p for p in root.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        if not any(d.iterdir()):
            d.rmdir()


def _check(python: dict[Path, bytes], typescript: dict[Path, bytes]) -> int:
    committed_ts = TS_DIR / TS_SCHEMA
    have_ts = {TS_SCHEMA: committed_ts.read_bytes()} if committed_ts.exists() else {}
    stale = _differences(python, _files(PYTHON_DIR), "openapi/clients/python")
    stale += _differences(typescript, have_ts, "openapi/clients/typescript")
    if stale:
        print("\n".join(stale), file=sys.stderr)
        print("the clients are stale: run `make clients`", file=sys.stderr)
        return 1
    print("clients are current")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the committed clients are stale")
    parser.add_argument("--spec", type=Path, default=SPEC, help="the spec (default: openapi/openapi.json)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="engram-clients-") as tmp:
        work = Path(tmp)
        spec = work / "openapi.json"
        spec.write_text(json.dumps(prepare(json.loads(args.spec.read_text())), indent=2))
        generate_python(spec, work / "python")
        generate_typescript(spec, work / "typescript" / TS_SCHEMA)
        python = _files(work / "python")
        typescript = {TS_SCHEMA: (work / "typescript" / TS_SCHEMA).read_bytes()}
    if args.check:
        return _check(python, typescript)
    _sync(python, PYTHON_DIR)
    (TS_DIR / TS_SCHEMA).write_bytes(typescript[TS_SCHEMA])
    print(f"wrote openapi/clients/python ({len(python)} files) and openapi/clients/typescript/{TS_SCHEMA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
