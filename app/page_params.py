"""The `limit`/`cursor` query parameters every list route takes, read into app/pagination.py's
`PageRequest`.

No `from __future__ import annotations` here: the query parameters' bounds are read from the
signature FastAPI inspects at run time, and a closure's names cannot be resolved from a string.
"""

from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, Query

from app.pagination import PageRequest


def page_query(
    *, default: int = 100, maximum: int = 1000, cursor_help: str = "From `next_cursor`."
) -> Callable[..., PageRequest]:
    """A FastAPI dependency reading a list's `limit` and `cursor` (a 422 out of bounds)."""

    def dependency(
        limit: Annotated[int, Query(ge=1, le=maximum, description="Page size.")] = default,
        cursor: Annotated[str | None, Query(max_length=2048, description=cursor_help)] = None,
    ) -> PageRequest:
        return PageRequest(limit, cursor)

    return dependency


# The list routes' page parameters. Declared before a route's other dependencies with query
# parameters, they keep their place in the OpenAPI document (a dependency's parameters follow the
# route's own, in the order the dependencies are declared).
PageParams = Annotated[PageRequest, Depends(page_query())]
