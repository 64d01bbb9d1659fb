"""The import graph of app/ (grimp reads every import statement, those inside functions too): no
module imports itself back through others, and no package of app/ imports a package that imports
it back. A new circle fails here with the lines that make it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable, Mapping

import grimp
import pytest

from tests.support.fresh_imports import fresh_modules


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("app", cache_dir=None, exclude_type_checking_imports=True)


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _circles(nodes: Iterable[str], succ: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(succ.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(succ.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _lines(graph: grimp.ImportGraph, importer: str, imported: str) -> list[str]:
    return [
        f"{importer}:{d['line_number']} {d['line_contents']}"
        for d in graph.get_import_details(importer=importer, imported=imported)
    ]


def test_no_module_imports_itself_back(graph: grimp.ImportGraph) -> None:
    modules = sorted(graph.modules)
    succ = {m: set(graph.find_modules_directly_imported_by(m)) for m in modules}
    circles = _circles(modules, succ)
    detail = [
        line
        for circle in circles
        for a in circle
        for b in circle
        if b in succ[a]
        for line in _lines(graph, a, b)
    ]
    assert not circles, "import circles:\n" + "\n".join(detail)


def test_no_package_imports_a_package_that_imports_it_back(graph: grimp.ImportGraph) -> None:
    edges: dict[tuple[str, str], list[str]] = {}
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = _package(module), _package(imported)
            if a != b:
                edges.setdefault((a, b), []).extend(_lines(graph, module, imported))
    pairs = {tuple(sorted(pair)) for pair in edges if (pair[1], pair[0]) in edges}
    assert not pairs, "packages importing each other:\n" + "\n".join(
        f"{a} <-> {b}:\n  " + "\n  ".join(edges[(a, b)] + edges[(b, a)]) for a, b in sorted(pairs)
    )


def test_the_app_starts_without_importing_the_mcp_sdk() -> None:
    """The MCP SDK and the generated client took ~5 s of a warm start: /mcp loads them on its
    first request (app/mcp/endpoint.py), so building the app must not."""
    loaded = fresh_modules()
    for stage in ("import", "start"):
        assert not {"mcp", "engram_client", "app.mcp.http"} & loaded[stage], stage


def test_the_cli_imports_no_database_layer() -> None:
    """`engram serve`'s supervisor lives as long as the server: SQLAlchemy, Alembic and the models,
    once imported there, stayed in its memory for nothing (~40 MB PSS; the migrations run in a
    child, app/cli.py). The commands import them when they run."""
    probe = (
        "import sys, app.cli; "
        "print(sorted(m for m in ('sqlalchemy', 'alembic', 'fastapi', 'app.db.models') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_the_worker_imports_no_web_framework() -> None:
    """The worker raises the `AppError`s, pages lists and makes engines like the API, but serves
    no FastAPI route: FastAPI, once imported there, stayed in its main process for nothing (~7 MB
    of anonymous memory, docs/benchmarks.md "Footprint, session 12"). app/errors.py,
    app/pagination.py and app/db/engine.py import no framework; the HTTP side of each is its own
    module (app/problems.py, app/page_params.py, app/db/request.py)."""
    probe = (
        "import sys, app.worker_main; print(sorted(m for m in ('fastapi', 'starlette') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out
