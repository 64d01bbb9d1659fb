"""CPU work for the process-pool tests: a light module, so a child process imports it quickly."""

from __future__ import annotations

import time


def burn(seconds: float) -> float:
    """Pure-Python work holding the GIL, like a slow regex over a crafted message."""
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
    return seconds
