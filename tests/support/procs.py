"""`engram` as real processes: `engram serve`, `engram worker`, and the helpers to start, await
and stop a process. The one harness of the tests that start processes and of bench/."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx

ENGRAM = str(Path(sys.executable).with_name("engram"))
# The exported ONNX model is cached here once; every process started by a test shares it.
MODEL_CACHE = Path.cwd() / ".engram" / "models"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(
    url: str,
    proc: subprocess.Popen[bytes],
    *,
    timeout: float = 120,
    output: Callable[[], str] = lambda: "",
) -> None:
    """Until `url`/readyz answers 200; RuntimeError, with the end of `output()` (the process's
    log), if the process exits first or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}:\n{output()[-3000:]}")
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the server was not ready within {timeout:.0f} s:\n{output()[-3000:]}")


def log_tail(log: Path) -> Callable[[], str]:
    """`output` for `wait_ready`: the log file the process writes."""
    return lambda: log.read_text(errors="replace") if log.is_file() else ""


def stop(proc: subprocess.Popen[bytes], timeout: float = 40) -> int:
    """SIGTERM, then the exit code. A process still running after `timeout` is killed (its whole
    process group if it leads one: a server and its workers) rather than left behind to load the
    machine for what runs next; its code, -9, then fails a caller's check."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            if os.getpgid(proc.pid) == proc.pid:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                proc.kill()
        except ProcessLookupError:
            pass
        return proc.wait(timeout=10)


def engram_env(**extra: str) -> dict[str, str]:
    """This environment without any ENGRAM_* of the caller's, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.update({"ENGRAM_LOG_LEVEL": "warning", **extra})
    return env


class Server:
    """`engram serve` on a free port: with `data_dir`, the embedded PostgreSQL in it; without,
    the ENGRAM_DATABASE_URL given in `env`."""

    def __init__(self, data_dir: Path | None = None, *, args: tuple[str, ...] = (), **env: str) -> None:
        self.port = free_port()
        self.data_dir = data_dir
        self.url = f"http://127.0.0.1:{self.port}"
        where = ["--data-dir", str(data_dir)] if data_dir is not None else []
        self.proc = subprocess.Popen(
            [ENGRAM, "serve", "--port", str(self.port), *where, *args],
            # The shared model cache unless a test asks for its own: a fresh data dir would
            # otherwise export the model again (~30 s, minutes on a loaded machine).
            env=engram_env(**{"ENGRAM_MODEL_CACHE_DIR": str(MODEL_CACHE), **env}),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    def wait_ready(self, timeout: float = 120) -> None:
        wait_ready(self.url, self.proc, timeout=timeout, output=self._stderr)

    def _stderr(self) -> str:
        if self.proc.poll() is None:  # a pipe of a live process has no end to read up to
            return ""
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode(errors="replace")

    def stop(self) -> int:
        """SIGTERM, then the exit code (see `stop`)."""
        return stop(self.proc)


def start_worker(url: str, **env: str) -> subprocess.Popen[bytes]:
    """`engram worker` on the database at `url`; stop it with SIGTERM (exit code 0)."""
    return subprocess.Popen(
        [ENGRAM, "worker"],
        env=engram_env(ENGRAM_DATABASE_URL=url, ENGRAM_MODEL_CACHE_DIR=str(MODEL_CACHE), **env),
        stderr=subprocess.PIPE,
    )


def anonymous_kb(pid: int) -> tuple[int, int]:
    """(anonymous memory, its proportional share) of a process in kB, from smaps_rollup: a forked
    process whose pages are still its parent's has a share well below its total."""
    fields: dict[str, int] = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            name, _, rest = line.partition(":")
            if rest.strip().endswith("kB"):
                fields[name] = int(rest.split()[0])
    return fields["Anonymous"], fields["Pss_Anon"]
