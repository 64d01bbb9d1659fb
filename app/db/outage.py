"""Which database errors are outages (retry shortly: 503), not bugs (500)."""

from __future__ import annotations

from sqlalchemy import exc as sa_exc

# PostgreSQL says it is going away as an ordinary server error (SQLAlchemy's generic DBAPIError),
# not as a connection error: 57P01 admin_shutdown (a fast stop ends every session), 57P02
# crash_shutdown, 57P03 cannot_connect_now ("the database system is starting up / shutting down
# / in recovery"), 53300 too_many_connections, and class 08 (connection exceptions).
_OUTAGE_SQLSTATES = frozenset({"57P01", "57P02", "57P03", "53300"})
OUTAGE_ERRORS: tuple[type[Exception], ...] = (
    sa_exc.OperationalError,
    sa_exc.InterfaceError,
    sa_exc.TimeoutError,  # the pool stayed exhausted for ENGRAM_DB_POOL_TIMEOUT
    OSError,
)


def _server_going_away(orig: BaseException | None) -> bool:
    state = getattr(orig, "sqlstate", None)
    return isinstance(state, str) and (state in _OUTAGE_SQLSTATES or state.startswith("08"))


def is_outage(exc: BaseException) -> bool:
    if isinstance(exc, OUTAGE_ERRORS):
        return True
    return isinstance(exc, sa_exc.DBAPIError) and _server_going_away(exc.orig)
