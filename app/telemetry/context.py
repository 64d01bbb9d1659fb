"""The current trace context as a W3C `traceparent`, stored with derived work (messages waiting to
be embedded, summary and extraction jobs) so the worker's step joins the trace of its cause.

Imports nothing from opentelemetry: when tracing is off (its API never imported by Engram) this
is one dict lookup and gives None.
"""

from __future__ import annotations

import sys


def current_traceparent() -> str | None:
    """`00-<trace id>-<span id>-<flags>` of the active span, or None (no tracing, no span)."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    ctx = trace.get_current_span().get_span_context()
    if not ctx.is_valid:
        return None
    return f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-{int(ctx.trace_flags):02x}"
