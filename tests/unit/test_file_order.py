"""The longest-first order of test files for pytest-xdist (tests/support/file_order.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

from tests.support.file_order import Recorder, load, longest_first


@dataclass
class _Item:
    nodeid: str


def _order(nodeids: list[str], durations: dict[str, float]) -> list[str]:
    items = cast(list[pytest.Item], [_Item(n) for n in nodeids])
    return [i.nodeid for i in longest_first(items, durations)]


def test_files_go_longest_first_and_each_files_tests_keep_their_order() -> None:
    ids = ["a.py::t1", "a.py::t2", "b.py::t1", "c.py::t1", "c.py::t2", "c.py::t3"]
    got = _order(ids, {"a.py": 1.0, "b.py": 5.0, "c.py": 3.0})
    assert got == ["b.py::t1", "c.py::t1", "c.py::t2", "c.py::t3", "a.py::t1", "a.py::t2"]


def test_an_unknown_file_counts_as_the_median_and_ties_keep_the_collection_order() -> None:
    ids = ["new.py::t", "a.py::t", "b.py::t", "c.py::t", "d.py::t"]
    got = _order(ids, {"a.py": 1.0, "b.py": 2.0, "c.py": 9.0, "d.py": 2.0})
    assert got == ["c.py::t", "new.py::t", "b.py::t", "d.py::t", "a.py::t"]


def test_no_store_leaves_the_order_alone(tmp_path: Path) -> None:
    assert load(tmp_path / "missing.json") == {}
    (tmp_path / "bad.json").write_text("not json")
    assert load(tmp_path / "bad.json") == {}
    assert _order(["b.py::t", "a.py::t"], {}) == ["b.py::t", "a.py::t"]


def test_the_recorder_sums_each_files_phases_and_keeps_only_files_that_exist(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("")
    (tmp_path / "b.py").write_text("")
    store = tmp_path / "durations.json"
    store.write_text(json.dumps({"b.py": 4.0, "gone.py": 1.0}))
    recorder = Recorder(store)
    for nodeid, duration in (("a.py::t1", 0.5), ("a.py::t1", 0.25), ("a.py::t2", 1.0)):
        recorder.pytest_runtest_logreport(cast(pytest.TestReport, _Report(nodeid, duration)))
    session: Any = _Session(tmp_path)
    recorder.pytest_sessionfinish(session)
    assert json.loads(store.read_text()) == {"a.py": 1.75, "b.py": 4.0}


@dataclass
class _Report:
    nodeid: str
    duration: float


class _Session:
    def __init__(self, root: Path) -> None:
        self.config = type("Config", (), {"rootpath": root})()
