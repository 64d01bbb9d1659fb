"""`engram` as real processes, for the tests that start them: `engram serve`, `engram worker`."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ENGRAM = str(Path(sys.executable).with_name("engram"))
# The exported ONNX model is cached here once; every process started by a test shares it.
MODEL_CACHE = Path.cwd() / ".engram" / "models"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"engram serve exited: {self.proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                if httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise AssertionError("engram serve did not become ready")

    def stop(self) -> int:
        """SIGTERM, then the exit code; a server still running after 40 s is killed (and its code,
        -9, fails the caller's check) rather than left behind to load the machine for later tests."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def start_worker(url: str, **env: str) -> subprocess.Popen[bytes]:
    """`engram worker` on the database at `url`; stop it with SIGTERM (exit code 0)."""
    return subprocess.Popen(
        [ENGRAM, "worker"],
        env=engram_env(ENGRAM_DATABASE_URL=url, ENGRAM_MODEL_CACHE_DIR=str(MODEL_CACHE), **env),
        stderr=subprocess.PIPE,
    )
