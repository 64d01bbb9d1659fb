"""Structured logs (JSON, or human-readable on a terminal) carrying the request id through contextvars.

Logs never hold content: an exception is logged as its type and frames, without its message,
which may quote a value (a database error quotes the row it refused).
"""

from __future__ import annotations

import logging
import sys
import traceback
from types import TracebackType
from typing import Any

import structlog

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


def _exc_info(value: Any) -> ExcInfo | None:
    if value is True:
        value = sys.exc_info()
    if isinstance(value, BaseException):
        return type(value), value, value.__traceback__
    if isinstance(value, tuple) and len(value) == 3 and value[0] is not None:
        return value
    return None


def traceback_without_values(exc: BaseException) -> str:
    """The traceback of `exc` and of its causes: frames and exception types, no messages."""
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        frames = "".join(traceback.format_tb(current.__traceback__))
        kind = type(current)
        parts.append(f"Traceback (most recent call last):\n{frames}{kind.__module__}.{kind.__qualname__}")
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    return "\n\nwhich was raised while handling, or caused by:\n\n".join(reversed(parts))


def format_exc_without_values(
    logger: Any, method: str, event: structlog.types.EventDict
) -> structlog.types.EventDict:
    """structlog's `format_exc_info`, minus the exception messages."""
    info = _exc_info(event.pop("exc_info", None))
    if info is not None:
        event["exception"] = traceback_without_values(info[1])
    return event


def configure_logging(level: str = "info", json: bool | None = None) -> None:
    """`json=None`: JSON unless stderr is a terminal (a person reads it there; a collector elsewhere)."""
    if json is None:
        json = not sys.stderr.isatty()
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.stdlib.PositionalArgumentsFormatter(),
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
        format_exc_without_values,
    ]
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        # filter_by_level first: a dropped line costs nothing further.
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=shared,
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # uvicorn's access log duplicates ours (which has the request id); keep its errors.
    for name in ("uvicorn", "uvicorn.error"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True
    logging.getLogger("uvicorn.access").disabled = True
    # Alembic announces each of its plugins at info level at every start: six lines of noise.
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
