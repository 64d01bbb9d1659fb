"""Where MCP lives in the app, without the SDK: the gate and create_app need only these names, so
importing them costs nothing (the SDK takes seconds to import; app/mcp/endpoint.py loads it on the
first /mcp request)."""

from __future__ import annotations

PATH = "/mcp"
IN_PROCESS = "engram.in_process"  # scope key of a tool's REST call; no client can set a scope key
