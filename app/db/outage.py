"""Which database errors are outages (retry shortly: 503, renew the pool), not bugs (500)."""

from __future__ import annotations

import asyncpg
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.ext.asyncio import AsyncEngine

# PostgreSQL says it is going away as an ordinary server error (SQLAlchemy's generic DBAPIError),
# not as a connection error: 57P01 admin_shutdown (a fast stop ends every session), 57P02
# crash_shutdown, 57P03 cannot_connect_now ("the database system is starting up / shutting down
# / in recovery"), 53300 too_many_connections, and class 08 (connection exceptions). Also a
# session the server ended for idling past its own limit (57P05 idle_session_timeout, 25P03
# idle_in_transaction_session_timeout, set by some managed servers): the connection is gone, the
# request may be retried on a fresh one.
_OUTAGE_SQLSTATES = frozenset({"57P01", "57P02", "57P03", "57P05", "25P03", "53300"})
OUTAGE_ERRORS: tuple[type[Exception], ...] = (
    sa_exc.OperationalError,
    sa_exc.InterfaceError,
    sa_exc.TimeoutError,  # the pool stayed exhausted for ENGRAM_DB_POOL_TIMEOUT
    OSError,
)


def _server_going_away(orig: BaseException | None) -> bool:
    state = getattr(orig, "sqlstate", None)
    if isinstance(state, str) and (state in _OUTAGE_SQLSTATES or state.startswith("08")):
        return True
    # A stopping server also sends its FATAL to idle connections. asyncpg, idle, takes it for a
    # protocol error and waits for a sync that never comes; a request that takes the connection
    # before the socket's close is seen gets "cannot switch to state N; another operation (2) is
    # in progress". Such a connection can never be used again.
    return isinstance(getattr(orig, "__cause__", None), asyncpg.exceptions.InternalClientError)


# The hot statements run on the driver's connection (app.db.sql.driver), so asyncpg's own errors
# reach the handlers unwrapped: a closed connection is its InterfaceError, a server going away a
# PostgresError with one of the states above.
_DRIVER_BROKEN = (asyncpg.InterfaceError, asyncpg.exceptions.InternalClientError)
DRIVER_ERRORS: tuple[type[Exception], ...] = (asyncpg.PostgresError, *_DRIVER_BROKEN)


def is_outage(exc: BaseException) -> bool:
    if isinstance(exc, OUTAGE_ERRORS + _DRIVER_BROKEN):
        return True
    if isinstance(exc, asyncpg.PostgresError):
        return _server_going_away(exc)
    return isinstance(exc, sa_exc.DBAPIError) and _server_going_away(exc.orig)


def count_session_end_as_disconnect(engine: AsyncEngine) -> None:
    """A session the server ended (a stop, a restart, a crash) is a disconnect: the connection is
    dropped and the pool renewed at once, so the connections the server ended while they sat in
    the pool are replaced rather than each failing a request of its own. The driver alone counts
    such an error as a disconnect only if it has already seen the socket close."""

    @event.listens_for(engine.sync_engine, "handle_error")
    def _mark(context: ExceptionContext) -> None:
        if _server_going_away(getattr(context.sqlalchemy_exception, "orig", None)):
            context.is_disconnect = True
