"""A redis-server of a test's own, on a free port, that the test may kill, restart or freeze."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time

from tests.support.procs import free_port


class RedisServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def pause(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)

    def close(self) -> None:
        """Stop it for good, frozen or not (a no-op once it has exited)."""
        if self.proc is not None and self.proc.poll() is None:
            self.resume()
            self.kill()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"
