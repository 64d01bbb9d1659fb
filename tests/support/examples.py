"""How many examples a property test draws, per loop: every one of them by default (`make test`,
CI: Hypothesis' own `default` and `ci` profiles, 100 examples), a fifth under the `quick` profile
that `make test-fast` loads (`--hypothesis-profile=quick`). A test states its full count and takes
`examples(full)`, so the quick loop scales every property test, the schemathesis run included, the
same way, and the full run always draws the full number; `share(cases)` does the same for a list
of explicit cases (the schemathesis run's boundary cases)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from hypothesis import settings

T = TypeVar("T")

FULL = 100  # max_examples of Hypothesis' `default` and `ci` profiles
settings.register_profile("quick", max_examples=FULL // 5)


def examples(full: int) -> int:
    """`full` under a full profile; the loaded profile's share of it (at least 1) otherwise. Read at
    import, which pytest's Hypothesis plugin does after loading the profile."""
    return max(1, full * settings.default.max_examples // FULL)


def share(cases: Sequence[T]) -> list[T]:
    """All of `cases` under a full profile; under another, the same share as `examples` gives,
    evenly spread over the list (every fifth under `quick`, the first included)."""
    return list(cases[:: max(1, FULL // max(1, settings.default.max_examples))])
