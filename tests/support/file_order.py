"""The order pytest-xdist hands test files to its workers: the longest first.

`--dist loadfile` gives each idle worker the next file in collection order, so a long file near
the end of the queue runs alone while the other worker has finished: the run's wall is the busier
worker's. Handing out the longest files first and the short ones last (longest-processing-time
order) leaves the end of the run to files of a second or less. The lengths are each file's wall
(setup, call and teardown of its tests) from an earlier run, stored in tests/file-durations.json;
`--store-file-durations` rewrites it from the run it is given to (run it on the whole suite, on a
quiet machine). A file the store does not know counts as the median length: a stale store costs
some balance, never a test.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

import pytest

STORE = Path(__file__).resolve().parent.parent / "file-durations.json"


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def load(store: Path = STORE) -> dict[str, float]:
    try:
        data = json.loads(store.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def longest_first(items: list[pytest.Item], durations: dict[str, float]) -> list[pytest.Item]:
    """The items with each file's together, files by stored length, longest first; a file's own
    items keep their order, and files of equal length keep theirs."""
    if not durations:
        return items
    unknown = statistics.median(durations.values())
    first_seen: dict[str, int] = {}
    for item in items:
        first_seen.setdefault(_file_of(item.nodeid), len(first_seen))

    def key(item: pytest.Item) -> tuple[float, int]:
        path = _file_of(item.nodeid)
        return -durations.get(path, unknown), first_seen[path]

    return sorted(items, key=key)  # stable: each file's items stay in order


class Recorder:
    """Adds up each file's wall over the run's reports and writes the store at the end. Registered
    in the process that sees every report: the controller under xdist, not its workers."""

    def __init__(self, store: Path = STORE) -> None:
        self.store = store
        self.walls: defaultdict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.walls[_file_of(report.nodeid)] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.walls:
            return
        root = session.config.rootpath
        merged = {**load(self.store), **{k: round(v, 2) for k, v in self.walls.items()}}
        merged = {k: v for k, v in merged.items() if (root / k).exists()}  # files since removed go
        self.store.write_text(json.dumps(dict(sorted(merged.items())), indent=1) + "\n")
