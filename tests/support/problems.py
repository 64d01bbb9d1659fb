"""The one check of an RFC 9457 answer: every error of the API is held to all of it."""

from __future__ import annotations

from typing import Any

import httpx

PROBLEM = "application/problem+json"


def assert_problem(r: httpx.Response, status: int, slug: str) -> dict[str, Any]:
    """`r` is a problem of type `slug` with `status`: the media type, the request id a client
    quotes in a report, and a body with type, status, title and detail; returns the body."""
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == PROBLEM, r.headers
    assert r.headers.get("x-request-id"), r.headers
    body: dict[str, Any] = r.json()
    assert body["type"] == f"urn:engram:problem:{slug}", body
    assert body["status"] == status, body
    assert body["title"] and body["detail"], body
    return body
