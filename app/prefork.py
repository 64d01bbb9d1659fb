"""`engram serve --workers N` (N > 1): the API processes forked from the supervisor after it
imported the app, so the pages of those imports are the same memory in every process.

uvicorn's own supervisor starts each process with `spawn`: every one imports FastAPI, pydantic,
SQLAlchemy, asyncpg, numpy, the app and tiktoken's table again (~95 MB PSS each, the largest part
of an idle API process). Here the supervisor imports them once, freezes what it built (app/heap.py:
the collector then never writes to those objects, which would copy their pages), binds the socket
and forks; a forked process maps its parent's pages until it writes to them. This is
gunicorn's `--preload`; gunicorn is not a dependency and uvicorn's supervisor has no fork mode,
so this is the few lines of it Engram needs: start N, restart one that dies, stop them all on
SIGINT/SIGTERM after they drain.

The supervisor also builds the app object (routes, their pydantic validators, the OpenAPI
document the request metrics read their route templates from): ~13 MB PSS per process that each built
for itself after the fork. Building it makes no connection either: the engine, Redis and the
rest of the lifespan start in each process after the fork, as before.

Nothing that does not survive a fork may exist in the supervisor before it forks: no thread, event
loop, database or Redis connection, model session. Importing the app makes none (tests/system/
test_prefork.py checks the parent has one thread). With tracing on (ENGRAM_OTEL=on) building the
app starts the span exporter's thread, so then each process builds its own app after the fork.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import signal
import socket
import sys

import uvicorn
from starlette.types import ASGIApp
from uvicorn.config import STARTUP_FAILURE

from app.config import Settings, Switch
from app.heap import freeze_startup

_log = logging.getLogger("engram.serve")

APP = "app.main:app_factory"
# What every API process imports and nothing in it changes after the fork. Not `app.runtime`'s
# model: onnxruntime starts threads, and only a process that runs the worker loads it.
PRELOAD = ("app.main", "app.http_server")
_STOP = (signal.SIGINT, signal.SIGTERM)


def preload(settings: Settings) -> ASGIApp | None:
    """Import the app, load the token counter's table (tiktoken caches it per process) and, with
    tracing off, build the app every API process serves; then freeze: after this the supervisor
    builds nothing the API processes would not share. None: each process builds its own (APP)."""
    from app.ai.tokenizer import Tokenizer

    for module in PRELOAD:
        importlib.import_module(module)
    Tokenizer(settings.tokenizer).load()  # the process's app builds its own, on the cached table
    app = None
    if settings.otel is Switch.off:
        from app.main import app_factory

        app = app_factory()
        app.openapi()  # built once here, not on each process's first request
    freeze_startup()
    return app


def serve_forked(config: uvicorn.Config, processes: int) -> int:
    """Run `processes` API processes on one listening socket until SIGINT/SIGTERM; 0 when all of
    them stopped cleanly, else the first failing exit code. A process that dies while serving is
    replaced; one that fails to start stops them all (it would fail again the same way)."""
    sock = config.bind_socket()
    # Signals wait in the mask until read below; a child clears the mask it inherits.
    watched = {*_STOP, signal.SIGCHLD}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, watched)
    children: set[int] = set()
    stopping = False
    failed = 0
    try:
        for _ in range(processes):
            children.add(_fork(config, sock, before))
        while children:
            info = signal.sigtimedwait(watched, 1.0)
            if info is not None and info.si_signo in _STOP and not stopping:
                stopping = True
                _signal_all(children, signal.SIGTERM)
            for pid, code in _reaped(children):
                children.discard(pid)
                if stopping:
                    failed = failed or code
                elif code == STARTUP_FAILURE:
                    _log.error("an API process failed to start; stopping the others")
                    stopping, failed = True, code
                    _signal_all(children, signal.SIGTERM)
                else:
                    _log.warning("API process %d exited (%d); starting another", pid, code)
                    children.add(_fork(config, sock, before))
    finally:
        _signal_all(children, signal.SIGTERM)
        sock.close()
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
    return failed


def _fork(config: uvicorn.Config, sock: socket.socket, mask: set[int | signal.Signals]) -> int:
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        # uvicorn drains on SIGINT/SIGTERM and then re-raises the signal to the handler it found:
        # a no-op one, so this process ends below with its own code.
        for sig in _STOP:
            signal.signal(sig, _drained)
        uvicorn.Server(config).run(sockets=[sock])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        _log.exception("API process failed")
    finally:
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)  # never back into the supervisor's stack; skip the interpreter's teardown


def _drained(signum: int, frame: object) -> None:
    """uvicorn has drained the process's requests; what remains is to exit."""


def _reaped(children: set[int]) -> list[tuple[int, int]]:
    out = []
    for pid in list(children):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            out.append((pid, os.waitstatus_to_exitcode(status)))
    return out


def _signal_all(children: set[int], sig: signal.Signals) -> None:
    for pid in children:
        with contextlib.suppress(ProcessLookupError):  # already gone
            os.kill(pid, sig)
