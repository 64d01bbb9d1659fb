"""What tracing (ENGRAM_OTEL=on) and the audit trail cost the hot paths: append and memory-read
throughput and API CPU per request, on vs off, in interleaved rounds (bench/wrk_rounds.py).

Starts an embedded PostgreSQL, a sink for OTLP/HTTP (answers 200, counts bytes: the exporter's
work is real) and four `engram serve` processes (auth on, worker off): one with tracing off, one
with it on, one with it on and 10 % of traces sampled, one with it on and every trace dropped
(`parentbased_always_off`: what a sampled-out request costs), exporting to the sink. Five
configurations: those four, and tracing off for a tenant whose audit trail is on. With
`--baseline DIR`, two more: tracing on and on with sampling in the `app` of another checkout (the
commit before a change: before and after side by side in the same rounds).

    .venv/bin/python -m bench.otel [--rounds 5] [--seconds 5] [--connections 8] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import threading
from contextlib import ExitStack
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from app.db.embedded import start_embedded
from app.db.migrate import upgrade
from bench.wrk_rounds import Target, api, print_table, rounds, server_pid
from tests.support.procs import free_port

ROOT = Path(__file__).resolve().parents[1]


class Sink(BaseHTTPRequestHandler):
    received = 0

    def do_POST(self) -> None:
        n = int(self.headers.get("Content-Length", "0"))
        Sink.received += len(self.rfile.read(n))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--baseline", type=Path, help="A checkout whose `app` runs traced as `before`.")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("bench/otel.py needs wrk (apt-get install wrk)")
    home = Path(tempfile.mkdtemp(prefix="engram-bench-otel-"))
    pg = start_embedded(home / "db")
    sink = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    here = {"PYTHONPATH": str(ROOT)}
    traced = {
        "ENGRAM_OTEL": "on",
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink.server_address[1]}",
        "OTEL_SERVICE_NAME": "engram-bench",
    }
    sampled = {**traced, "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.1"}
    dropped = {**traced, "OTEL_TRACES_SAMPLER": "parentbased_always_off"}
    servers = {
        "off": here,
        "on": {**here, **traced},
        "sampled": {**here, **sampled},
        "dropped": {**here, **dropped},
    }
    if args.baseline is not None:
        before = {"PYTHONPATH": str(args.baseline.resolve())}
        servers |= {"on before": {**before, **traced}, "sampled before": {**before, **sampled}}
    try:
        asyncio.run(upgrade(pg.url, 384))
        with ExitStack() as stack:
            bases = {
                name: stack.enter_context(api(pg.url, free_port(), home / f"{name}.log", **env))
                for name, env in servers.items()
            }
            plain = Target.start(bases["off"], "plain")
            audited = Target.start(bases["off"], "audited", audit=True)

            def same_tenant(name: str) -> Target:  # one database: the tenant is every server's
                return Target(bases[name], plain.key, plain.sessions, server_pid(bases[name]))

            configs = {
                "tracing off": plain,
                "tracing on": same_tenant("on"),
                "on, 10% kept": same_tenant("sampled"),
                "on, all dropped": same_tenant("dropped"),
                "audit on": audited,
            }
            if args.baseline is not None:
                configs["on, before"] = same_tenant("on before")
                configs["10%, before"] = same_tenant("sampled before")
            results = rounds(
                configs, count=args.rounds, seconds=args.seconds, connections=args.connections, workdir=home
            )
        print_table(
            "bench/otel.py",
            results,
            list(configs),
            baseline="tracing off",
            rounds_run=args.rounds,
            seconds=args.seconds,
            connections=args.connections,
        )
        print(f"OTLP bytes received by the sink: {Sink.received}")
    finally:
        sink.shutdown()
        pg.stop()
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
