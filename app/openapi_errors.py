"""The errors the spec owes to layers every route shares, added to the generated OpenAPI document.

A route's own `responses=` lists what its handler raises. Two things come from elsewhere and would
otherwise be missing or wrong in the spec: every JSON body can be refused before any handler runs
(`RequestGuardMiddleware`: 413 too large, 415 not JSON; the error handlers: 400 malformed JSON),
and errors are only ever `application/problem+json`, while FastAPI also lists `application/json`
for any response declared with a model.
"""

from __future__ import annotations

import copy
from typing import Any

from fastapi import FastAPI

from app.errors import PROBLEM_MEDIA_TYPE
from app.problems import problem_responses

BODY_ERRORS = (413, 415)  # any body (the guard)
JSON_BODY_ERRORS = (400, *BODY_ERRORS)  # a body FastAPI parses as JSON (400: malformed JSON)


def _problem(code: int) -> dict[str, Any]:
    declared = problem_responses(code)[code]
    return {"description": declared["description"], "content": declared["content"]}


def complete_error_responses(spec: dict[str, Any]) -> dict[str, Any]:
    """Adds the body errors to each operation with a request body and keeps errors problem+json
    only. Changes `spec` in place (idempotent) and returns it."""
    for item in spec.get("paths", {}).values():
        for operation in item.values():
            responses = operation.get("responses", {})
            body = operation.get("requestBody", {}).get("content")
            if body is not None:
                for code in JSON_BODY_ERRORS if "application/json" in body else BODY_ERRORS:
                    responses.setdefault(str(code), _problem(code))
            for code, response in responses.items():
                content = response.get("content", {})
                if code.startswith(("4", "5")) and PROBLEM_MEDIA_TYPE in content:
                    response["content"] = {PROBLEM_MEDIA_TYPE: content[PROBLEM_MEDIA_TYPE]}
    return spec


# The completed document of the first app this process built. Every app serves the same one: its
# operations come from the module-level routers (app/api.py) and no setting changes one
# (tests/unit/test_openapi.py), so later apps copy it instead of generating it again (~0.4 s of
# CPU each, on an app's first request: it gives the metrics their route templates; the test suite
# builds ~60 apps per process).
_built: list[dict[str, Any]] = []


def install_openapi(app: FastAPI) -> None:
    """Makes `app.openapi()` (served at /openapi.json and committed) return the completed spec."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            if not _built:
                _built.append(complete_error_responses(generate()))
            app.openapi_schema = copy.deepcopy(_built[0])
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
