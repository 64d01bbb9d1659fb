"""An idle lane's waits (app/jobs/idle.py)."""

from __future__ import annotations

from app.jobs.idle import IdleBackoff


def test_waits_double_up_to_the_longest_while_work_is_announced() -> None:
    backoff = IdleBackoff(0.25, 2.0)
    assert [backoff.wait(announced=True) for _ in range(6)] == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]
    backoff.reset()
    assert backoff.wait(announced=True) == 0.25


def test_unannounced_work_is_polled_for_at_the_shortest_wait() -> None:
    backoff = IdleBackoff(0.25, 2.0)
    backoff.wait(announced=True)
    backoff.wait(announced=True)
    assert [backoff.wait(announced=False) for _ in range(3)] == [0.25, 0.25, 0.25]
    assert backoff.wait(announced=True) == 0.25, "polling for itself started the doubling again"


def test_a_longest_below_the_shortest_is_the_shortest() -> None:
    backoff = IdleBackoff(0.5, 0.1)
    assert [backoff.wait(announced=True) for _ in range(2)] == [0.5, 0.5]
