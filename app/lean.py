"""What FastAPI's dependency solving does for the hottest routes, done directly for their plain
Starlette endpoints (GET …/memory, POST …/messages, POST /search: matched before every FastAPI
route, app.main). Dependency solving, the route table walk and response-model re-validation were a
quarter of those routes' API CPU (docs/benchmarks.md, issue 16).

Each helper answers as FastAPI would for the same request: the same 401, the same 422 with the
same `loc` (a RequestValidationError, so the app's handler writes the problem+json), the same 400
for a body that is not JSON. The FastAPI declarations of these routes stay, for the spec only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeVar

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.requests import Request

from app.auth import admitted_caller
from app.errors import MalformedJSON

M = TypeVar("M", bound=BaseModel)


caller = admitted_caller  # as `app.auth.current_caller` resolves it for the FastAPI routes


def path_id(request: Request, name: str) -> str:
    """A path id, checked against the id limits as `app.deps` does."""
    value: str = request.path_params[name]
    request.state.limits.check_id(value, ["path", name])
    return value


def located(exc: ValidationError, *where: str | int) -> list[dict[str, Any]]:
    """pydantic's errors with FastAPI's location prefix (`body`, `query`, `header` ...)."""
    return [{**e, "loc": (*where, *e["loc"])} for e in exc.errors(include_url=False)]


def header(request: Request, name: str, adapter: TypeAdapter[Any]) -> tuple[Any, list[dict[str, Any]]]:
    """An optional header through its declared constraints: (value or None, errors)."""
    raw = request.headers.get(name)
    if raw is None:
        return None, []
    try:
        return adapter.validate_python(raw), []
    except ValidationError as exc:
        return None, located(exc, "header", name)


async def json_body(request: Request, model: type[M], *, errors: Sequence[dict[str, Any]] = ()) -> M:
    """The body as `model`, as FastAPI reads a JSON body parameter: `json.loads` (not orjson: the
    same numbers, NaN included, as before), then validation in Python mode with `from_attributes`
    (FastAPI's, so the errors read the same). `errors` (other
    parameters' errors) are reported with the body's, in one 422, as FastAPI does."""
    raw = await request.body()
    data: Any = None
    if raw:
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise MalformedJSON(MalformedJSON.NOT_JSON) from None
    problems: list[dict[str, Any]] = list(errors)
    parsed: M | None = None
    if not raw:  # no body at all (JSON `null` is validated, and refused, like any other value)
        problems.append({"type": "missing", "loc": ("body",), "msg": "Field required", "input": None})
    else:
        try:
            parsed = model.model_validate(data, from_attributes=True)  # as FastAPI's field.validate
        except ValidationError as exc:
            problems.extend(located(exc, "body"))
    if problems:
        raise RequestValidationError(problems)
    assert parsed is not None
    return parsed


def json_bytes(model: BaseModel) -> bytes:
    """A response model as FastAPI sends it (by alias, every field): pydantic's own serialiser,
    without the re-validation FastAPI gives a returned model."""
    return model.model_dump_json(by_alias=True).encode()
