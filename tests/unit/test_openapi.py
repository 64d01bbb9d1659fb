"""The committed spec is what the app generates, and every route is documented."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from app.config import Settings
from app.crypto.envelope import new_key
from app.main import create_app
from app.openapi import render_spec
from app.openapi_errors import complete_error_responses

SPEC = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_committed_spec_is_current() -> None:
    assert SPEC.read_text() == render_spec(), "openapi/openapi.json is stale: run `make openapi`"


def test_no_setting_changes_the_document(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process builds the document once and copies it to every later app (app/openapi_errors.py):
    sound while every operation comes from the module-level routers, whatever the settings."""
    # Tracing on with no exporter: an OTLP exporter would become this process's global provider
    # and, at its exit, retry for seconds to flush other tests' spans to a collector that is not there.
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "none")
    switched = Settings(
        auth="on",
        admin_token="test-admin-token",
        llm="openai",
        embedder="openai",
        openai_api_key="sk-test",
        encryption_keys=f"k1:{new_key()}",
        encryption_keyword_index="keep",
        otel="on",
        facts_enabled=False,
        run_worker=False,
        max_body_bytes=2_000_000,
        max_batch_messages=7,
        max_id_length=64,
        max_query_chars=100,
        memory_max_tokens=1000,
    )
    generated = [complete_error_responses(FastAPI.openapi(create_app(s))) for s in (Settings(), switched)]
    assert generated[0] == generated[1] == json.loads(render_spec())


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]


def _has_example(spec: dict[str, Any], op: dict[str, Any]) -> bool:
    def schema_has_example(schema: dict[str, Any]) -> bool:
        ref = schema.get("$ref")
        if ref:
            schema = spec["components"]["schemas"][ref.rsplit("/", 1)[1]]
        if "examples" in schema or "example" in schema:
            return True
        items = schema.get("items", {}).get("$ref")
        if items and schema_has_example({"$ref": items}):
            return True
        return any(schema_has_example(s) for s in schema.get("anyOf", []) if "$ref" in s)

    for response in op.get("responses", {}).values():
        for media in response.get("content", {}).values():
            if "example" in media or "examples" in media or schema_has_example(media.get("schema", {})):
                return True
    return op.get("responses", {}).keys() == {"204"} or "204" in op.get("responses", {})


def test_every_route_has_summary_description_example_and_errors() -> None:
    import json

    spec = json.loads(render_spec())
    missing = []
    for path, method, op in _operations(spec):
        where = f"{method.upper()} {path}"
        if not op.get("summary"):
            missing.append(f"{where}: summary")
        if not op.get("description"):
            missing.append(f"{where}: description")
        if not _has_example(spec, op):
            missing.append(f"{where}: example")
        if path.startswith("/v1") and not any(code.startswith(("4", "5")) for code in op["responses"]):
            missing.append(f"{where}: error responses")
        for code, response in op["responses"].items():
            if code.startswith("4") and "application/problem+json" not in response.get("content", {}):
                missing.append(f"{where}: {code} is not problem+json")
    assert not missing, "\n".join(missing)


def test_errors_are_only_problem_json_and_bodies_document_their_refusals() -> None:
    """Found by tests/api/test_fuzz.py: a body that is not JSON got an undocumented 400, and errors
    were also listed as `application/json`, which the server never sends."""
    import json

    spec = json.loads(render_spec())
    wrong = []
    for path, method, op in _operations(spec):
        where = f"{method.upper()} {path}"
        body = op.get("requestBody", {}).get("content", {})
        wanted = ("413", "415", *(("400",) if "application/json" in body else ()))
        wrong += [f"{where}: no {code}" for code in wanted if body and code not in op["responses"]]
        for code, response in op["responses"].items():
            types = set(response.get("content", {}))
            if code.startswith(("4", "5")) and types and types != {"application/problem+json"}:
                wrong.append(f"{where}: {code} is {sorted(types)}")
    assert not wrong, "\n".join(wrong)


def test_operation_ids_are_the_handlers_names_and_unique() -> None:
    # They name the generated clients' calls: a duplicate would make one of them unreachable.
    spec = json.loads(render_spec())
    ids = [op["operationId"] for _, _, op in _operations(spec)]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", i) and "_v1_" not in i for i in ids), ids
