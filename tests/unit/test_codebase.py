"""Guards on the code base itself: what a reader of pyproject.toml and app/errors.py is promised."""

from __future__ import annotations

import ast
import itertools
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


def test_the_lock_carries_the_adapters_frameworks_and_never_pypis_engram_client() -> None:
    """`make` installs the adapters (integrations/*) with --no-deps: their frameworks come from
    requirements-dev.lock through requirements-integrations.in, which must ask for what their
    pyproject.toml files ask for. engram-client is this checkout's client; the PyPI project of
    that name is somebody else's, so the lock must never name it."""
    wanted: dict[str, Requirement] = {}
    for pyproject in sorted((ROOT / "integrations").glob("*/pyproject.toml")):
        for dep in tomllib.loads(pyproject.read_text())["project"]["dependencies"]:
            req = Requirement(dep)
            if req.name != "engram-client":
                wanted[req.name] = req
    lines = (ROOT / "requirements-integrations.in").read_text().splitlines()
    given = {r.name: r for r in (Requirement(x) for x in lines if x.strip() and not x.startswith("#"))}
    assert {n: str(r.specifier) for n, r in given.items()} == {n: str(r.specifier) for n, r in wanted.items()}
    lock = (ROOT / "requirements-dev.lock").read_text()
    pinned = {
        line.split("==")[0]: Version(line.split("==")[1].split()[0])
        for line in lock.splitlines()
        if "==" in line and not line.startswith((" ", "#"))
    }
    for name, req in wanted.items():
        assert name in pinned and pinned[name] in req.specifier, (name, pinned.get(name))
    assert "engram-client" not in pinned


def _recipe(makefile: str, target: str) -> str:
    """The recipe lines of one Makefile target."""
    lines = makefile.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    return "\n".join(line for line in itertools.takewhile(lambda s: s.startswith("\t"), lines[start + 1 :]))


def test_only_the_quick_loop_draws_fewer_examples() -> None:
    """`make test` (and CI, which runs it) draws every example of every property test; only
    `make test-fast` loads the `quick` Hypothesis profile (tests/support/examples.py)."""
    makefile = (ROOT / "Makefile").read_text()
    pytest_line = next(line for line in makefile.splitlines() if line.startswith("PYTEST ="))
    assert "hypothesis-profile" not in pytest_line + _recipe(makefile, "test")
    assert "--hypothesis-profile=quick" in _recipe(makefile, "test-fast")
    assert "make test\n" in (ROOT / ".ci" / "run").read_text()
