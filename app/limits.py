"""Size and shape limits from settings, checked on parsed input before any work is done.

Pydantic checks the shape; this checks what depends on settings (sizes, depth, id charset) and
what PostgreSQL cannot store (NUL bytes, lone surrogates), naming the offending field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from app.config import Settings
from app.errors import PayloadTooLarge, ValidationFailed
from app.jsonutil import dumps

Loc = Sequence[str | int]
_ID_CHARS = re.compile(r"^[A-Za-z0-9._:@\-]+$")
_INT64 = (-(2**63), 2**63 - 1)


def _where(loc: Loc) -> str:
    return ".".join(str(p) for p in loc)


def _printable(loc: Loc) -> list[str | int]:
    # A metadata key may hold a lone surrogate; the problem body must still encode as UTF-8.
    return [p.encode("utf-8", "backslashreplace").decode() if isinstance(p, str) else p for p in loc]


def _invalid(loc: Loc, msg: str, kind: str) -> ValidationFailed:
    loc = _printable(loc)
    return ValidationFailed(f"{_where(loc)}: {msg}", errors=[{"loc": loc, "msg": msg, "type": kind}])


def _too_large(loc: Loc, msg: str, limit: int) -> PayloadTooLarge:
    loc = _printable(loc)
    return PayloadTooLarge(
        f"{_where(loc)}: {msg}",
        errors=[{"loc": list(loc), "msg": msg, "type": "too_large"}],
        limit=limit,
    )


class Limits:
    def __init__(self, settings: Settings) -> None:
        self.content_bytes = settings.max_content_bytes
        self.batch = settings.max_batch_messages
        self.metadata_bytes = settings.max_metadata_bytes
        self.metadata_depth = settings.max_metadata_depth
        self.id_length = settings.max_id_length
        self.name_length = settings.max_name_length
        self.fact_bytes = settings.max_fact_bytes

    def check_id(self, value: str, loc: Loc) -> None:
        if not value or len(value) > self.id_length:
            raise _invalid(loc, f"must be 1 to {self.id_length} characters", "id_length")
        if not _ID_CHARS.match(value):
            raise _invalid(loc, "may only contain letters, digits and . _ : @ -", "id_charset")

    def check_text(self, value: str, loc: Loc, *, max_bytes: int | None = None) -> None:
        if "\x00" in value:
            raise _invalid(loc, "contains a NUL byte, which cannot be stored", "nul_byte")
        try:
            size = len(value.encode("utf-8"))
        except UnicodeEncodeError:
            raise _invalid(loc, "is not valid UTF-8 (lone surrogate)", "invalid_utf8") from None
        limit = self.content_bytes if max_bytes is None else max_bytes
        if size > limit:
            raise _too_large(loc, f"is {size} bytes; the limit is {limit}", limit)

    def check_content(self, value: str, loc: Loc) -> None:
        self.check_text(value, loc)

    def check_name(self, value: str | None, loc: Loc) -> None:
        if value is not None:
            self.check_text(value, loc, max_bytes=self.name_length)

    def check_fact(self, value: str, loc: Loc) -> None:
        self.check_text(value, loc, max_bytes=self.fact_bytes)
        if not value.strip():
            raise _invalid(loc, "must not be blank", "blank")

    def check_batch(self, count: int, loc: Loc) -> None:
        if count > self.batch:
            raise _too_large(loc, f"has {count} items; the limit is {self.batch}", self.batch)

    def check_metadata(self, value: dict[str, Any] | None, loc: Loc) -> None:
        if value is None:
            return
        self._walk(value, list(loc), 1)
        size = len(dumps(value))
        if size > self.metadata_bytes:
            raise _too_large(
                loc,
                f"is {size} bytes as JSON; the limit is {self.metadata_bytes}",
                self.metadata_bytes,
            )

    def _walk(self, node: Any, loc: list[str | int], depth: int) -> None:
        # Depth counts objects and arrays: a flat object is 1 level deep, whatever its values.
        if isinstance(node, dict | list) and depth > self.metadata_depth:
            raise _invalid(loc, f"nests deeper than {self.metadata_depth} levels", "too_deep")
        if isinstance(node, dict):
            for key, child in node.items():
                self.check_text(key, [*loc, key], max_bytes=self.metadata_bytes)
                self._walk(child, [*loc, key], depth + 1)
        elif isinstance(node, list):
            for i, child in enumerate(node):
                self._walk(child, [*loc, i], depth + 1)
        elif isinstance(node, str):
            self.check_text(node, loc, max_bytes=self.metadata_bytes)
        elif isinstance(node, float) and not math.isfinite(node):
            raise _invalid(loc, "NaN and Infinity are not JSON numbers", "not_finite")
        elif isinstance(node, int) and not _INT64[0] <= node <= _INT64[1]:
            raise _invalid(loc, "integers must fit in 64 bits", "int_range")
