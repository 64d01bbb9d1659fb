"""Retrieval quality of Engram's search on generated multi-session conversations (issue 3, §5).

    .venv/bin/python -m bench.recall.run                          # onnx-int8-mixed (the default), both splits
    .venv/bin/python -m bench.recall.run --backend onnx-int8 onnx torch --json /tmp/recall.json

For each split (`tune`: seed 1, `heldout`: seed 2 with question phrasings `tune` never uses) and
each local-model backend, the dataset from generate.py is loaded into a fresh database of an
embedded PostgreSQL through the real HTTP API, in-process (create_app over ASGI): users' sessions,
then their messages with speaker names and created_at. The app's own worker embeds everything;
the run waits until GET /v1/indexing shows nothing pending. Then every question is asked with
POST /v1/search, scoped to its user, limit 10, in the keyword, semantic and hybrid modes.

A question is a hit at k when any of its evidence turns is among the top k; NDCG@10 uses binary
relevance over all evidence turns. Figures are percentages over the questions.

`--set search_rrf_k=20` overrides a setting (repeatable) for tuning experiments; `--pg-dir DIR`
keeps the embedded server and its loaded databases in DIR, so later runs over the same data and
backend skip loading and embedding (the ranking code is what they exercise).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import math
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from asgi_lifespan import LifespanManager
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from app.config import Settings
from app.db.embedded import start_embedded
from app.db.engine import async_url
from app.db.migrate import upgrade
from app.logging import configure_logging
from app.main import create_app
from bench.recall.generate import describe, generate

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

MODES = ("keyword", "semantic", "hybrid")
KS = (1, 5, 10)
SPLITS = {"tune": 1, "heldout": 2}
REFERENCE = "torch"
OFF = {
    "search_role_weight": "0",
    "search_speaker_weight": "0",
    "search_reply_context": "0",
    "search_answer_context": "0",
}
# The tuning steps, replayed as settings (hybrid only); the step before them is the code before tuning.
STEPS: list[tuple[str, dict[str, str]]] = [
    ("rrf (k=60) over semantic + IDF keyword", {"search_fusion": "rrf"}),
    ("weighted: cosine + 0.1 x keyword", OFF),
    ("+ role of the turn", {**OFF, "search_role_weight": "0.05"}),
    (
        "+ reply / answer context",
        {**OFF, "search_role_weight": "0.05", "search_reply_context": "0.5", "search_answer_context": "0.15"},
    ),
    ("+ speaker names (= defaults)", {}),
    ("ablation: keyword weight 0", {"search_keyword_weight": "0"}),
]
MAX_DROP = 1.0  # points of Recall@10 a faster runtime may lose against the reference


# --- metrics ------------------------------------------------------------------------------------


def score_question(ranked: list[str], evidence: set[str]) -> dict[str, float]:
    out = {f"R@{k}": float(any(key in evidence for key in ranked[:k])) for k in KS}
    dcg = sum(1 / math.log2(i + 2) for i, key in enumerate(ranked[:10]) if key in evidence)
    idcg = sum(1 / math.log2(i + 2) for i in range(min(len(evidence), 10)))
    out["NDCG@10"] = dcg / idcg
    first = next((i + 1 for i, key in enumerate(ranked) if key in evidence), None)
    out["rank"] = float(first or 0)
    return out


def aggregate(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = [f"R@{k}" for k in KS] + ["NDCG@10"]
    n = len(rows)
    return {k: round(100 * sum(r[k] for r in rows) / n, 1) if n else 0.0 for k in keys} | {"n": n}


# --- the app, in-process ------------------------------------------------------------------------


def settings_for(url: str, backend: str, overrides: dict[str, str]) -> Settings:
    values: dict[str, Any] = {
        "database_url": url,
        "auth": "off",
        "redis_url": None,
        "run_worker": True,
        "migrate_on_start": False,
        "log_level": "warning",
        "local_embedder_backend": backend,
        "model_cache_dir": ROOT / ".engram" / "models",
    }
    values.update(overrides)
    return Settings(**values)


@contextlib.asynccontextmanager
async def api_for(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings)
    async with LifespanManager(app, startup_timeout=300, shutdown_timeout=60) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://engram.bench", timeout=120) as c:
            yield c


async def _ok(resp: httpx.Response) -> dict[str, Any]:
    if resp.status_code >= 300:
        raise RuntimeError(f"{resp.request.method} {resp.request.url.path}: {resp.status_code} {resp.text}")
    out: dict[str, Any] = resp.json()
    return out


async def load(api: httpx.AsyncClient, data: dict[str, Any]) -> None:
    for user in data["users"]:
        await _ok(await api.put(f"/v1/users/{user['user_id']}", json={"metadata": {"name": user["name"]}}))
        for s in user["sessions"]:
            await _ok(
                await api.post(
                    "/v1/sessions", json={"user_id": user["user_id"], "session_id": s["session_id"]}
                )
            )
            msgs = [
                {k: m[k] for k in ("role", "name", "content", "created_at") if k in m} for m in s["messages"]
            ]
            out = await _ok(
                await api.post(f"/v1/sessions/{s['session_id']}/messages", json={"messages": msgs})
            )
            seqs = [m["seq"] for m in out["messages"]]
            if seqs != [m["seq"] for m in s["messages"]]:
                raise RuntimeError(f"{s['session_id']}: the server numbered the messages {seqs[:5]}...")


async def wait_indexed(api: httpx.AsyncClient, total: int) -> float:
    started = time.perf_counter()
    last = -1
    while True:
        st = await _ok(await api.get("/v1/indexing"))
        if st["failed"]:
            raise RuntimeError(f"{st['failed']} embeddings failed: see GET /v1/indexing/failed")
        if st["pending"] == 0 and st.get("refining", 0) == 0:  # the sentences' vectors too
            return time.perf_counter() - started
        done = total - st["pending"]
        if done // 2000 != last // 2000:
            print(f"    embedded {done}/{total} ({time.perf_counter() - started:.0f} s)", flush=True)
        last = done
        await asyncio.sleep(0.5)


async def ask_all(
    api: httpx.AsyncClient, questions: list[dict[str, Any]], modes: list[str]
) -> tuple[dict[str, dict[str, list[str]]], dict[str, list[float]]]:
    """question id -> mode -> ranked message keys; and mode -> request latencies (ms).

    One request at a time, so the latencies are those of an idle server (plus this machine's load)."""
    out: dict[str, dict[str, list[str]]] = defaultdict(dict)
    ms: dict[str, list[float]] = defaultdict(list)
    for q in questions:
        for mode in modes:
            body = {"query": q["question"], "user_id": q["user_id"], "mode": mode, "limit": 10}
            t0 = time.perf_counter()
            res = await _ok(await api.post("/v1/search", json=body))
            ms[mode].append((time.perf_counter() - t0) * 1000)
            if not res["indexing"]["complete"]:
                raise RuntimeError("searched before indexing was complete")
            out[q["id"]][mode] = [f"{h['session_id']}:{h['seq']}" for h in res["results"]]
    return out, ms


# --- one (split, backend) -----------------------------------------------------------------------


async def database(admin_url: str, name: str) -> tuple[str, bool]:
    """URL of database `name` on the server, created and migrated if new; and whether it existed."""
    engine = create_async_engine(async_url(admin_url), isolation_level="AUTOCOMMIT")
    async with engine.connect() as conn:
        exists = (
            await conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})
        ).first()
        if not exists:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
    await engine.dispose()
    url = admin_url.replace("/postgres?", f"/{name}?")
    if not exists:
        await upgrade(url, 384)
    return url, bool(exists)


async def loaded_count(url: str) -> tuple[int, int]:
    engine = create_async_engine(async_url(url))
    async with engine.connect() as conn:
        row = (
            await conn.execute(
                text("SELECT count(*), count(*) FILTER (WHERE embed_status = 'done') FROM messages")
            )
        ).one()
    await engine.dispose()
    return int(row[0]), int(row[1])


async def run_one(
    admin_url: str, data: dict[str, Any], backend: str, overrides: dict[str, str], modes: list[str]
) -> dict[str, Any]:
    digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:10]
    name = f"recall_{data['meta']['split']}_{digest}_{backend.replace('-', '_')}"
    url, existed = await database(admin_url, name)
    total = sum(len(s["messages"]) for u in data["users"] for s in u["sessions"])
    settings = settings_for(url, backend, overrides)
    result: dict[str, Any] = {"database": name}
    async with api_for(settings) as api:
        have, done = await loaded_count(url) if existed else (0, 0)
        if have not in (0, total):
            raise RuntimeError(
                f"database {name} holds {have} messages, expected {total}: drop it or use another --pg-dir"
            )
        if have == 0:
            t0 = time.perf_counter()
            await load(api, data)
            result["load_seconds"] = round(time.perf_counter() - t0, 1)
            print(f"    loaded {total} messages in {result['load_seconds']} s", flush=True)
        secs = await wait_indexed(api, total)
        if have == 0:
            result["embed_seconds"] = round(secs, 1)
            result["embed_per_second"] = round(total / max(secs, 1e-9), 1)
            print(f"    indexed in {secs:.1f} s ({total / max(secs, 1e-9):.0f} messages/s)", flush=True)
        else:
            print(f"    reused {name} ({done} embedded)", flush=True)
        t0 = time.perf_counter()
        ranked, ms = await ask_all(api, data["questions"], modes)
        result["search_seconds"] = round(time.perf_counter() - t0, 1)
        result["latency_ms"] = {
            m: {"p50": round(statistics.median(v), 1), "p95": round(sorted(v)[int(0.95 * (len(v) - 1))], 1)}
            for m, v in ms.items()
        }
    per_q: dict[str, dict[str, dict[str, float]]] = {}
    for q in data["questions"]:
        ev = set(q["evidence"])
        per_q[q["id"]] = {m: score_question(ranked[q["id"]][m], ev) for m in modes}
    cats = sorted({q["category"] for q in data["questions"]})
    result["modes"] = {
        m: {
            "overall": aggregate([per_q[q["id"]][m] for q in data["questions"]]),
            "by_category": {
                c: aggregate([per_q[q["id"]][m] for q in data["questions"] if q["category"] == c])
                for c in cats
            },
        }
        for m in modes
    }
    result["per_question"] = {
        qid: {m: {"rank": int(v["rank"]), "ranked": ranked[qid][m]} for m, v in by_mode.items()}
        for qid, by_mode in per_q.items()
    }
    return result


# --- report -------------------------------------------------------------------------------------


def tables(report: dict[str, Any], per_category: bool) -> str:
    out: list[str] = []
    res = report["results"]
    out.append("| split | backend | mode | Recall@1 | Recall@5 | Recall@10 | NDCG@10 |")
    out.append("|---|---|---|---:|---:|---:|---:|")
    for split, by_backend in res.items():
        for backend, r in by_backend.items():
            for mode, v in r["modes"].items():
                o = v["overall"]
                best = mode == "hybrid"
                row = [o["R@1"], o["R@5"], o["R@10"], o["NDCG@10"]]
                cells = " | ".join(f"**{x:.1f}**" if best else f"{x:.1f}" for x in row)
                out.append(f"| {split} | {backend} | {mode} | {cells} |")
    out.append("")
    for split, by_backend in res.items():
        for backend, r in by_backend.items():
            modes = list(r["modes"])
            if "hybrid" in modes and all(m in modes for m in ("keyword", "semantic")):
                h = r["modes"]["hybrid"]["overall"]["R@10"]
                k = r["modes"]["keyword"]["overall"]["R@10"]
                s = r["modes"]["semantic"]["overall"]["R@10"]
                verdict = "yes" if h > k and h > s else "NO"
                out.append(
                    f"- {split} / {backend}: hybrid beats both single modes at Recall@10: {verdict} "
                    f"({h:.1f} vs semantic {s:.1f}, keyword {k:.1f})"
                )
    out.append("")
    for split, by_backend in res.items():
        for backend, r in by_backend.items():
            lat = ", ".join(f"{m} {v['p50']:.0f}/{v['p95']:.0f}" for m, v in r.get("latency_ms", {}).items())
            out.append(
                f"- search latency ms p50/p95, {split} / {backend} (in-process, loaded machine): {lat}"
            )
    out.append("")
    for split, by_backend in res.items():
        if REFERENCE in by_backend and len(by_backend) > 1:
            out.append(
                f"Backends against {REFERENCE} ({split}), Recall@10; a backend passes if it loses <= 1 point:"
            )
            out.append("")
            out.append("| backend | semantic R@10 | Δ | hybrid R@10 | Δ | embed msgs/s | verdict |")
            out.append("|---|---:|---:|---:|---:|---:|---|")
            ref = by_backend[REFERENCE]["modes"]
            for backend, r in by_backend.items():
                m = r["modes"]
                ds = m["semantic"]["overall"]["R@10"] - ref["semantic"]["overall"]["R@10"]
                dh = m["hybrid"]["overall"]["R@10"] - ref["hybrid"]["overall"]["R@10"]
                ok = ds >= -MAX_DROP and dh >= -MAX_DROP
                verdict = "reference" if backend == REFERENCE else ("pass" if ok else "FAIL")
                rate = r.get("embed_per_second", "-")
                out.append(
                    f"| {backend} | {m['semantic']['overall']['R@10']:.1f} | {ds:+.1f} | "
                    f"{m['hybrid']['overall']['R@10']:.1f} | {dh:+.1f} | {rate} | {verdict} |"
                )
            out.append("")
    if report.get("steps"):
        splits = list(res)
        out.append(
            f"Tuning steps, hybrid, {next(iter(next(iter(res.values()))))} (Recall@1 / @5 / @10 / NDCG@10):"
        )
        out.append("")
        out.append("| step | " + " | ".join(splits) + " |")
        out.append("|---|" + "---|" * len(splits))
        for name, by_split in report["steps"].items():
            steps = []
            for sp in splits:
                o = by_split[sp]["overall"]
                steps.append(f"{o['R@1']:.1f} / {o['R@5']:.1f} / {o['R@10']:.1f} / {o['NDCG@10']:.1f}")
            out.append(f"| {name} | " + " | ".join(steps) + " |")
        out.append("")
    if per_category:
        for split, by_backend in res.items():
            for backend, r in by_backend.items():
                modes = list(r["modes"])
                out.append(f"Per category, {split} / {backend} (Recall@10, and NDCG@10 for hybrid):")
                out.append("")
                out.append(
                    "| category | n | " + " | ".join(f"{m} R@10" for m in modes) + " | hybrid NDCG@10 |"
                )
                out.append("|---|---:|" + "---:|" * (len(modes) + 1))
                first = r["modes"][modes[0]]["by_category"]
                for c in first:
                    cells = " | ".join(f"{r['modes'][m]['by_category'][c]['R@10']:.1f}" for m in modes)
                    nd = r["modes"].get("hybrid", r["modes"][modes[-1]])["by_category"][c]["NDCG@10"]
                    out.append(f"| {c} | {first[c]['n']} | {cells} | {nd:.1f} |")
                out.append("")
    return "\n".join(out)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    overrides = dict(kv.split("=", 1) for kv in args.set)
    splits = list(SPLITS) if args.split == "both" else [args.split]
    datasets = {s: generate(SPLITS[s], s, args.users, args.sessions) for s in splits}
    pg_dir = args.pg_dir or Path(tempfile.mkdtemp(prefix="engram-recall-"))
    server = await asyncio.to_thread(start_embedded, pg_dir)
    report: dict[str, Any] = {
        "meta": {
            "command": " ".join(sys.argv),
            "python": platform.python_version(),
            "overrides": overrides,
            "datasets": {s: describe(d) for s, d in datasets.items()},
        },
        "results": {},
    }
    try:
        for split, data in datasets.items():
            for backend in args.backend:
                print(f"== {split} / {backend}", flush=True)
                r = await run_one(server.url, data, backend, overrides, args.modes)
                report["results"].setdefault(split, {})[backend] = r
                if args.steps and backend == args.backend[0]:
                    for name, step in STEPS:
                        print(f"   step: {name}", flush=True)
                        sr = await run_one(server.url, data, backend, {**step, **overrides}, ["hybrid"])
                        report.setdefault("steps", {}).setdefault(name, {})[split] = sr["modes"]["hybrid"]
    finally:
        server.stop()
        if args.pg_dir is None:
            shutil.rmtree(pg_dir, ignore_errors=True)
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--backend",
        nargs="+",
        default=["onnx-int8-mixed"],
        choices=["onnx-int8-mixed", "onnx-int8", "onnx", "torch"],
    )
    ap.add_argument("--split", choices=["tune", "heldout", "both"], default="both")
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a setting")
    ap.add_argument("--pg-dir", type=Path, help="keep the embedded PostgreSQL (and loaded data) here")
    ap.add_argument("--json", type=Path, help="write the full report (with per-question ranks) here")
    ap.add_argument("--no-categories", action="store_true", help="skip the per-category tables")
    ap.add_argument("--steps", action="store_true", help="also replay the tuning steps (first backend)")
    args = ap.parse_args()
    configure_logging("warning", json=False)
    report = asyncio.run(main_async(args))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    print()
    for split, d in report["meta"]["datasets"].items():
        print(f"dataset {split}: {json.dumps(d)}")
    print()
    print(tables(report, not args.no_categories))


if __name__ == "__main__":
    main()
