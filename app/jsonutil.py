"""JSON encoding shared by responses, problem details and cursors (orjson: fast, handles UUID/datetime)."""

from __future__ import annotations

from typing import Any

import orjson


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)


def loads(data: bytes | str) -> Any:
    return orjson.loads(data)


def canonical(obj: Any) -> bytes:
    """Key-order-independent bytes, for hashing a request body."""
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
