"""A first run as a newcomer sees it: `engram serve` with nothing prepared, a taken port, a stop."""

from __future__ import annotations

import os
import pty
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support.procs import ENGRAM, MODEL_CACHE, Server, engram_env

QUERY = {"query": "where do I live", "mode": "semantic", "kinds": ["messages"]}


def test_a_first_run_answers_while_the_model_is_prepared(tmp_path: Path) -> None:
    # A fresh model cache: the model is exported (~30 s) while the server already answers.
    srv = Server(tmp_path / "data", ENGRAM_MODEL_CACHE_DIR=str(tmp_path / "models"))
    try:
        deadline = time.monotonic() + 60
        while True:
            assert srv.proc.poll() is None, srv.proc.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "no /healthz within 60 s"
            try:
                if httpx.get(f"{srv.url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        ready = httpx.get(f"{srv.url}/readyz", timeout=5)
        assert ready.status_code == 503, ready.text
        assert ready.json()["checks"]["model"] == "preparing (first run exports the model, ~30 s)"
        assert ready.json()["checks"]["database"] == "ok"
        # Writes need no model; a search by meaning answers 503 with Retry-After, not a hang.
        r = httpx.post(f"{srv.url}/v1/sessions", json={"user_id": "u", "session_id": "s"}, timeout=10)
        assert r.status_code == 201, r.text
        r = httpx.post(
            f"{srv.url}/v1/sessions/s/messages",
            json={"messages": [{"role": "user", "content": "I moved to Lisbon last spring"}]},
            timeout=10,
        )
        assert r.status_code == 201, r.text
        r = httpx.post(
            f"{srv.url}/v1/search", json={"query": "where do I live", "mode": "semantic"}, timeout=10
        )
        assert r.status_code == 503, r.text
        assert r.headers["content-type"] == "application/problem+json"
        assert int(r.headers["Retry-After"]) > 0
        assert "preparing" in r.json()["detail"]

        srv.wait_ready(timeout=300)
        assert httpx.get(f"{srv.url}/readyz", timeout=5).json()["checks"]["model"] == "ok"
        # The worker started once the model was ready: the message gets its vector and is found.
        found: list[str] = []
        deadline = time.monotonic() + 60
        while not found and time.monotonic() < deadline:
            r = httpx.post(
                f"{srv.url}/v1/search",
                json={
                    "query": "where do I live",
                    "mode": "semantic",
                    "kinds": ["messages"],
                    "wait_for_indexing_ms": 5000,
                },
                timeout=30,
            )
            assert r.status_code == 200, r.text
            found = [hit["content"] for hit in r.json()["results"]]
        assert found == ["I moved to Lisbon last spring"]
    finally:
        assert srv.stop() == 0
    log = srv.proc.stderr.read().decode()  # type: ignore[union-attr]
    # The exporter's and the quantiser's warnings are silenced (harmless here; see onnx_export).
    assert "will produce incorrect results" not in log
    assert "pre-processing before quantization" not in log
    assert "TracerWarning" not in log
    # Nor platformdirs' warning where XDG_RUNTIME_DIR is unset, nor alembic's plugin announcements.
    assert "XDG_RUNTIME_DIR" not in log
    assert "setup plugin" not in log


def test_a_taken_port_is_one_clear_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [ENGRAM, "serve", "--port", str(port), "--data-dir", str(tmp_path / "data")],
            env=engram_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert done.stderr == f"engram: port {port} on 127.0.0.1 is already in use; set ENGRAM_PORT or --port\n"
    assert not (tmp_path / "data").exists(), "nothing is started before the port is checked"


def test_a_bad_setting_is_one_clear_line() -> None:
    done = subprocess.run(
        [ENGRAM, "serve"],
        env=engram_env(ENGRAM_PORT="eighty", ENGRAM_DATABASE_URL="postgresql://secret@nowhere/x"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("engram: invalid setting ENGRAM_PORT: Input should be a valid integer")
    assert done.stderr.count("\n") == 1
    assert "eighty" not in done.stderr


def test_an_idle_server_stops_promptly_on_sigterm(tmp_path: Path) -> None:
    srv = Server(tmp_path / "data", ENGRAM_MODEL_CACHE_DIR=str(MODEL_CACHE))
    try:
        srv.wait_ready()
        with httpx.Client() as idle:  # a keep-alive connection left open, as clients do
            assert idle.get(f"{srv.url}/healthz").status_code == 200
            started = time.monotonic()
            srv.proc.send_signal(signal.SIGTERM)
            code = srv.proc.wait(timeout=30)
            took = time.monotonic() - started
    finally:
        srv.stop()
    print(f"\nSIGTERM to exit: {took:.2f} s")
    assert code == 0
    # The goal is under 3 s (0.6 s measured on a loaded 2-core machine; 5.8 s before the
    # interpreter's teardown was skipped); 5 s leaves room for a machine busier still.
    assert took < 5, took


@pytest.mark.parametrize(("setting", "json_lines"), [(None, False), ("true", True)])
def test_logs_are_readable_on_a_terminal_unless_json_is_asked_for(
    setting: str | None, json_lines: bool
) -> None:
    main, terminal = pty.openpty()
    extra = {} if setting is None else {"ENGRAM_LOG_JSON": setting}
    code = (
        "from app.config import Settings; from app.logging import configure_logging; import structlog; "
        "s = Settings(); configure_logging('info', s.log_json); structlog.get_logger('t').info('hello', n=1)"
    )
    with os.fdopen(main, "rb") as out:
        subprocess.run(
            [sys.executable, "-c", code], env=engram_env(**extra), stderr=terminal, check=True, timeout=60
        )
        os.close(terminal)
        line = out.read1(4096).decode()
    assert "hello" in line
    assert line.lstrip().startswith("{") is json_lines, line
