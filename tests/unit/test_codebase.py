"""Guards on the code base itself: what a reader of pyproject.toml and app/errors.py is promised."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

import app.errors as errors

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"


def test_fastapi_lower_bound_admits_only_versions_with_dependency_scopes() -> None:
    """app/deps.py uses Depends(..., scope="function"), which FastAPI gained in 0.121: an older
    version admitted by pyproject.toml crashes at import."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    fastapi = next(Requirement(d) for d in deps if Requirement(d).name == "fastapi")
    floors = [Version(s.version) for s in fastapi.specifier if s.operator in (">=", "==", "~=")]
    assert floors, "fastapi has no lower bound"
    assert max(floors) >= Version("0.121"), fastapi


def _referenced_names() -> set[str]:
    """Names used anywhere under app/ (a class statement does not use its own name)."""
    names: set[str] = set()
    for path in APP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)
    return names


def test_every_error_kind_is_used_somewhere() -> None:
    """A problem type that nothing raises or answers is a promise no client can ever see."""
    kinds = {
        name
        for name, obj in vars(errors).items()
        if isinstance(obj, type) and issubclass(obj, errors.AppError) and obj is not errors.AppError
    }
    unused = sorted(kinds - _referenced_names())
    assert kinds and not unused, f"error kinds never used: {unused}"
