"""bench/ is a package run as modules (`python -m bench.append`) from the checkout's root: no
script of it edits sys.path to find `app`, `bench` or its neighbours, and each of its modules
resolves under its package name (mypy checks them; they share tests/support/procs.py's harness)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(BENCH.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        out.append((".".join(parts[:-1] if parts[-1] == "__init__" else parts), path))
    return out


def _touches_sys_path(tree: ast.AST) -> bool:
    return any(
        isinstance(node, ast.Attribute)
        and node.attr == "path"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
        for node in ast.walk(tree)
    )


def test_no_bench_module_edits_sys_path() -> None:
    edits = [
        str(path.relative_to(ROOT))
        for _, path in _modules()
        if _touches_sys_path(ast.parse(path.read_text()))
    ]
    assert not edits, f"run these as modules (python -m bench.…) instead of editing sys.path: {edits}"


def test_every_bench_module_resolves_in_its_package() -> None:
    modules = _modules()
    assert len(modules) > 20
    for name, path in modules:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None, name
        assert Path(spec.origin).resolve() == path.resolve(), name
