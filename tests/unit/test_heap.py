"""app.heap: startup objects frozen out of full collections; later garbage still collected."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import gc, weakref
from app.heap import freeze_startup

class Node:
    pass

kept = [Node() for _ in range(1000)]
freeze_startup()
frozen = gc.get_freeze_count()
assert frozen >= 1000, frozen

# A reference cycle made after the freeze is garbage the collector still finds.
a, b = Node(), Node()
a.other, b.other = b, a
gone = weakref.ref(a)
del a, b
gc.collect()
assert gone() is None
print("ok", frozen)
"""


def test_freeze_exempts_startup_objects_and_later_cycles_are_collected() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("ok ")
