"""GET …/memory is served by a plain Starlette endpoint that reads its query string with
MemoryParams; the spec comes from the FastAPI declaration. Both must accept and refuse alike."""

from __future__ import annotations

from typing import Any

from app.main import create_app
from app.memory.router import MemoryParams

_BOUNDS = ("type", "minimum", "maximum", "minLength", "default")


def _bounds(schema: dict[str, Any]) -> Any:
    """The constraints of a parameter's schema, without descriptions and reference prefixes."""
    if "anyOf" in schema:
        return sorted((_bounds(s) for s in schema["anyOf"]), key=repr)
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    out: dict[str, Any] = {k: schema[k] for k in _BOUNDS if k in schema}
    if "items" in schema:
        out["items"] = _bounds(schema["items"])
    return out


def test_the_lean_memory_route_reads_the_parameters_the_spec_declares() -> None:
    spec = create_app().openapi()
    declared = {
        p["name"]: p["schema"]
        for p in spec["paths"]["/v1/sessions/{session_id}/memory"]["get"]["parameters"]
        if p["in"] == "query"
    }
    read = MemoryParams.model_json_schema()["properties"]
    assert set(declared) == set(read)
    for name, schema in declared.items():
        ours = {k: v for k, v in read[name].items() if not (k == "default" and v is None)}
        assert _bounds(schema) == _bounds(ours), name
