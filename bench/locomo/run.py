"""Search quality on LoCoMo-format conversations (issue 11): which turns Engram's search returns
for each question, against the turns annotated as its evidence.

    .venv/bin/python -m bench.locomo.run                                  # dev file, hybrid + BM25
    .venv/bin/python -m bench.locomo.run --modes hybrid keyword semantic --json /tmp/locomo.json
    .venv/bin/python -m bench.locomo.run --split tune --set search_keyword_weight=0.3
    .venv/bin/python -m bench.locomo.run --url http://127.0.0.1:8000 --api-key KEY   # a running server

Every conversation of `--data` (default: the shared dev file) is ingested through the HTTP API as
bench/locomo/ingest.py describes (one user per conversation, speaker_a as `user`, speaker_b as
`assistant`, names set, `created_at` = session date, `dia_id` in metadata), into a fresh database
of an embedded PostgreSQL with the app in-process and its own worker (or a server at `--url`).
The run waits with GET /v1/indexing until nothing is pending (ingest-to-searchable time), then
asks every question of categories 1-4 with POST /v1/search scoped to its user, limit 10, one at a
time, in each mode of `--modes`.

Scoring (as the data README says): Recall@k = |evidence ∩ dia_ids of the top k hits| / |evidence|,
averaged over questions; NDCG@10 with binary gains (a hit gains for evidence it is first to cover);
overall, per category, per speaker of the evidence (`user` = speaker_a, `assistant` = speaker_b:
the recall of each question's evidence turns of that speaker), and per split. The split is by
conversation: `tune` = the first two of the file (choose settings there), `heldout` = the others,
`all`. A plain BM25 over each conversation's turns (rank-bm25 over the speaker's name and the text,
lower-cased words less English stop words) is the baseline.

Figures are percentages. `--json` writes everything, with each question's ranked dia_ids.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import math
import platform
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.locomo import ingest
from bench.locomo.data import CATEGORIES, DEFAULT_DATA, SCORED, Conversation, Question, load

ROOT = Path(__file__).resolve().parents[2]

KS = (1, 5, 10)
MODES = ("hybrid", "keyword", "semantic")
TUNE_COUNT = 2  # the first conversations of the file form the tune split
TARGETS = {"R@10": 78.0, "R@1": 45.0}
SPEAKER_GAP = 3.0
P95_MS = 50.0


# --- metrics ------------------------------------------------------------------------------------


def score(hits: list[list[str]], evidence: list[str]) -> dict[str, float]:
    """Recall@k and NDCG@10 of one question; `hits` = the dia_ids of each hit, in rank order."""
    ev = set(evidence)
    out: dict[str, float] = {}
    for k in KS:
        got = {d for h in hits[:k] for d in h} & ev
        out[f"R@{k}"] = len(got) / len(ev)
    seen: set[str] = set()
    dcg = 0.0
    for i, h in enumerate(hits[:10]):
        new = (set(h) & ev) - seen
        if new:
            dcg += 1 / math.log2(i + 2)
            seen |= new
    idcg = sum(1 / math.log2(i + 2) for i in range(min(len(ev), 10)))
    out["NDCG@10"] = dcg / idcg
    return out


def speaker_recall(hits: list[list[str]], evidence: list[str], role_of: dict[str, str]) -> dict[str, float]:
    """R@10 of each speaker's share of the evidence (role -> recall)."""
    got = {d for h in hits[:10] for d in h}
    by_role: dict[str, list[str]] = defaultdict(list)
    for d in set(evidence):
        if d in role_of:
            by_role[role_of[d]].append(d)
    return {r: sum(d in got for d in ds) / len(ds) for r, ds in by_role.items()}


def aggregate(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = [f"R@{k}" for k in KS] + ["NDCG@10"]
    n = len(rows)
    return {k: round(100 * sum(r[k] for r in rows) / n, 1) if n else 0.0 for k in keys} | {"n": n}


def summarise(per_q: list[dict[str, Any]]) -> dict[str, Any]:
    """Overall, per category and per speaker figures of a list of scored questions."""
    out: dict[str, Any] = {"overall": aggregate([p["scores"] for p in per_q])}
    out["by_category"] = {
        CATEGORIES[c]: aggregate([p["scores"] for p in per_q if p["category"] == c])
        for c in SCORED
        if any(p["category"] == c for p in per_q)
    }
    by_role: dict[str, list[float]] = defaultdict(list)
    for p in per_q:
        for role, r in p["speakers"].items():
            by_role[role].append(r)
    out["by_speaker_R@10"] = {r: round(100 * sum(v) / len(v), 1) for r, v in sorted(by_role.items())}
    return out


# --- BM25 baseline ------------------------------------------------------------------------------

_TOKEN = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> list[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return [w for w in _TOKEN.findall(text.lower()) if w not in ENGLISH_STOP_WORDS]


def bm25_rankings(conv: Conversation, questions: list[Question]) -> list[list[list[str]]]:
    from rank_bm25 import BM25Okapi

    turns = [t for s in conv.sessions for t in s.turns]
    index = BM25Okapi([_tokens(f"{t.speaker} {t.text}") for t in turns])
    out = []
    for q in questions:
        scores = index.get_scores(_tokens(q.question))
        order = sorted(range(len(turns)), key=lambda i: -scores[i])[:10]
        out.append([[turns[i].dia_id] for i in order])
    return out


# --- the run ------------------------------------------------------------------------------------


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return round(s[min(len(s) - 1, int(p * (len(s) - 1) + 0.5))], 1) if s else 0.0


async def run(args: argparse.Namespace) -> dict[str, Any]:
    convs = load(args.data)
    if args.conversations:
        convs = [c for c in convs if c.sample_id in args.conversations]
    tune_ids = {c.sample_id for c in load(args.data)[:TUNE_COUNT]}
    if args.split == "tune":
        convs = [c for c in convs if c.sample_id in tune_ids]
    elif args.split == "heldout":
        convs = [c for c in convs if c.sample_id not in tune_ids]
    overrides = dict(kv.split("=", 1) for kv in args.set)
    report: dict[str, Any] = {
        "meta": {
            "command": " ".join(sys.argv),
            "data": str(args.data),
            "python": platform.python_version(),
            "overrides": overrides,
            "tune": sorted(tune_ids),
            "conversations": [c.sample_id for c in convs],
        },
        "ingest": {},
        "latency_ms": {},
    }
    per_q: dict[str, list[dict[str, Any]]] = defaultdict(list)
    ms: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, dict[str, float]] = defaultdict(lambda: {"process": 0.0, "postgres": 0.0})
    wall: dict[str, float] = defaultdict(float)  # seconds spent in each mode's search loops
    idle: dict[str, float] | None = None
    async with ingest.engram(
        url=args.url, api_key=args.api_key, overrides=overrides, pg_dir=args.pg_dir, database=args.database
    ) as api:
        for conv in convs:
            questions = [q for q in conv.questions if q.category in SCORED and q.evidence]
            t0 = time.perf_counter()
            user_id = f"{args.user_prefix}{conv.sample_id}"
            if args.reuse and (await api.get(f"/v1/users/{user_id}")).status_code == 200:
                # Loaded by an earlier run into the same --pg-dir/--database: message hits carry
                # their dia_id in metadata, which is all a messages-only search needs.
                done = ingest.Ingested(user_id=user_id, messages=conv.turn_count)
            else:
                done = await ingest.ingest(api, conv, user_prefix=args.user_prefix, captions=args.captions)
            wait, refined = await ingest.wait_searchable(api, done.user_id)
            total = time.perf_counter() - t0 - (refined - wait)
            report["ingest"][conv.sample_id] = {
                "messages": done.messages,
                "append_seconds": round(done.seconds, 2),
                "ingest_to_searchable_seconds": round(total, 2),
                "searchable_after_last_append_seconds": round(wait, 2),
                "refined_after_last_append_seconds": round(refined, 2),
                "messages_per_second": round(done.messages / total, 1),
            }
            print(
                f"  {conv.sample_id}: {done.messages} turns searchable {total:.1f} s after the first append "
                f"({done.messages / total:.0f} msg/s), their sentences {refined - wait:.1f} s later, "
                f"{len(questions)} questions",
                flush=True,
            )
            role_of = {
                t.dia_id: ("user" if t.speaker == conv.speaker_a else "assistant")
                for s in conv.sessions
                for t in s.turns
            }
            split = "tune" if conv.sample_id in tune_ids else "heldout"
            for mode in args.modes:
                before = _cpu_now(args.pg_dir)
                started = time.perf_counter()
                for q in questions:
                    body: dict[str, Any] = {
                        "query": q.question,
                        "user_id": done.user_id,
                        "mode": mode,
                        "limit": 10,
                    }
                    if args.kinds:
                        body["kinds"] = args.kinds
                    t1 = time.perf_counter()
                    res = await ingest.ok(await api.post("/v1/search", json=body))
                    ms[mode].append((time.perf_counter() - t1) * 1000)
                    hits = [done.hit_dia_ids(h) for h in res["results"]]
                    per_q[mode].append(_scored(conv, q, hits, role_of, split))
                wall[mode] += time.perf_counter() - started
                for part, secs in _cpu_now(args.pg_dir).items():
                    cpu[mode][part] += secs - before[part]
            for q, hits in zip(questions, bm25_rankings(conv, questions), strict=True):
                per_q["bm25"].append(_scored(conv, q, hits, role_of, split))
        if args.idle_seconds > 0:  # after the searches: the start-up's sweeps are done by then
            idle = await _idle_rate(args.pg_dir, args.idle_seconds)
    report["latency_ms"] = {m: {"p50": pct(v, 0.5), "p95": pct(v, 0.95), "n": len(v)} for m, v in ms.items()}
    report["cpu_ms_per_search"] = {
        m: {part: round(1000 * secs / len(ms[m]), 2) for part, secs in parts.items()}
        for m, parts in cpu.items()
    }
    if idle is not None:
        # What the app spends with no request at all (the worker's polls, housekeeping) over the
        # time the searches took: part of the figures above, not of any search.
        report["idle_cpu_ms_per_second"] = {part: round(1000 * rate, 2) for part, rate in idle.items()}
        report["cpu_ms_per_search_net_of_idle"] = {
            m: {
                part: round(1000 * (secs - idle[part] * wall[m]) / len(ms[m]), 2)
                for part, secs in parts.items()
            }
            for m, parts in cpu.items()
        }
    report["results"] = {
        method: {
            sp: summarise([p for p in rows if sp == "all" or p["split"] == sp])
            for sp in ("all", "tune", "heldout")
            if any(sp == "all" or p["split"] == sp for p in rows)
        }
        for method, rows in per_q.items()
    }
    report["per_question"] = per_q
    return report


async def _idle_rate(pg_dir: Path | None, seconds: float) -> dict[str, float]:
    """CPU seconds per second of this process and of PostgreSQL while no request runs (the app's
    worker polling its queues, housekeeping), over `seconds`."""
    before, started = _cpu_now(pg_dir), time.perf_counter()
    await asyncio.sleep(seconds)
    after, spent = _cpu_now(pg_dir), time.perf_counter() - started
    return {part: (after[part] - before[part]) / spent for part in before}


def _cpu_now(pg_dir: Path | None) -> dict[str, float]:
    """CPU seconds so far of this process (the client and the in-process app) and of the embedded
    PostgreSQL in `pg_dir` (its postmaster and backends; 0 without one: a temporary server)."""
    import psutil

    from bench.append import cpu_seconds, tree

    pg = 0.0
    pid_file = pg_dir / "pg" / "postmaster.pid" if pg_dir else None
    if pid_file is not None and pid_file.exists():
        pg = sum(cpu_seconds(tree(int(pid_file.read_text().split("\n", 1)[0]))).values())
    t = psutil.Process().cpu_times()
    return {"process": t.user + t.system, "postgres": pg}


def _scored(
    conv: Conversation, q: Question, hits: list[list[str]], role_of: dict[str, str], split: str
) -> dict[str, Any]:
    return {
        "conversation": conv.sample_id,
        "split": split,
        "question": q.question,
        "category": q.category,
        "evidence": q.evidence,
        "hits": hits,
        "scores": score(hits, q.evidence),
        "speakers": speaker_recall(hits, q.evidence, role_of),
    }


# --- report -------------------------------------------------------------------------------------


def tables(report: dict[str, Any]) -> str:
    res = report["results"]
    out: list[str] = []
    for sp in ("all", "tune", "heldout"):
        methods = [m for m in res if sp in res[m]]
        if not methods:
            continue
        out.append(f"### {sp} ({', '.join(report['meta']['conversations']) if sp == 'all' else sp})")
        out.append("")
        out.append("| method | category | n | R@1 | R@5 | R@10 | NDCG@10 |")
        out.append("|---|---|---:|---:|---:|---:|---:|")
        for m in methods:
            r = res[m][sp]
            rows = [("overall", r["overall"]), *r["by_category"].items()]
            for cat, v in rows:
                out.append(
                    f"| {m} | {cat} | {v['n']} | {v['R@1']:.1f} | {v['R@5']:.1f} | {v['R@10']:.1f} | "
                    f"{v['NDCG@10']:.1f} |"
                )
        out.append("")
        out.append("| method | R@10, `user` evidence | R@10, `assistant` evidence | gap |")
        out.append("|---|---:|---:|---:|")
        for m in methods:
            s = res[m][sp]["by_speaker_R@10"]
            u, a = s.get("user", 0.0), s.get("assistant", 0.0)
            out.append(f"| {m} | {u:.1f} | {a:.1f} | {abs(u - a):.1f} |")
        out.append("")
    lat = report["latency_ms"]
    out.append(
        "Search latency, ms (one request at a time): "
        + ", ".join(f"{m} p50 {v['p50']:.1f} / p95 {v['p95']:.1f}" for m, v in lat.items())
    )
    out.append(
        "CPU per search, ms (this process: client, app and its idle worker; PostgreSQL with --pg-dir): "
        + ", ".join(
            f"{m} {v['process']:.2f} + {v['postgres']:.2f}"
            for m, v in report.get("cpu_ms_per_search", {}).items()
        )
    )
    idle, net = report.get("idle_cpu_ms_per_second"), report.get("cpu_ms_per_search_net_of_idle", {})
    if idle is not None:
        out.append(
            f"Idle background, CPU ms per second (no request running): this process {idle['process']:.1f}, "
            f"PostgreSQL {idle['postgres']:.1f}; CPU per search net of it, ms: "
            + ", ".join(f"{m} {v['process']:.2f} + {v['postgres']:.2f}" for m, v in net.items())
        )
    ing = report["ingest"]
    if ing:
        n = sum(v["messages"] for v in ing.values())
        secs = sum(v["ingest_to_searchable_seconds"] for v in ing.values())
        out.append(
            f"Ingest to searchable: {n} turns in {secs:.1f} s ({n / secs:.0f} msg/s; per conversation "
            + ", ".join(f"{k} {v['ingest_to_searchable_seconds']:.1f} s" for k, v in ing.items())
            + ")"
        )
    out.append("")
    out.append(targets(report))
    return "\n".join(out)


def targets(report: dict[str, Any]) -> str:
    """The issue's targets, met or not, for the first mode asked (the default one: hybrid)."""
    res = report["results"]
    mode = next((m for m in res if m != "bm25"), None)
    if mode is None or "bm25" not in res:
        return ""
    r, b = res[mode]["all"], res["bm25"]["all"]
    lines = [f"Targets ({mode}, all conversations):"]
    for k, goal in TARGETS.items():
        v = r["overall"][k]
        lines.append(f"- {k} {v:.1f} >= {goal:.0f}: {'met' if v >= goal else 'MISSED'}")
    for cat, v in r["by_category"].items():
        bv = b["by_category"][cat]["R@10"]
        lines.append(
            f"- {cat} R@10 {v['R@10']:.1f} above BM25 {bv:.1f}: {'met' if v['R@10'] > bv else 'MISSED'}"
        )
    s = r["by_speaker_R@10"]
    gap = abs(s.get("user", 0.0) - s.get("assistant", 0.0))
    lines.append(
        f"- speakers within {SPEAKER_GAP:.0f} points: gap {gap:.1f}: "
        f"{'met' if gap <= SPEAKER_GAP else 'MISSED'}"
    )
    p95 = report["latency_ms"][mode]["p95"]
    lines.append(f"- search p95 {p95:.1f} ms < {P95_MS:.0f}: {'met' if p95 < P95_MS else 'MISSED'}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a LoCoMo-format JSON file")
    ap.add_argument("--split", choices=["all", "tune", "heldout"], default="all")
    ap.add_argument("--conversations", nargs="+", help="only these sample_ids")
    ap.add_argument("--modes", nargs="+", default=["hybrid"], choices=MODES)
    ap.add_argument(
        "--kinds", nargs="+", choices=["messages", "summaries", "facts"], help="default: the server's"
    )
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a setting")
    ap.add_argument("--url", help="a running Engram server instead of an in-process one")
    ap.add_argument("--api-key")
    ap.add_argument("--user-prefix", default="", help="prefix of the user ids (a shared server)")
    ap.add_argument("--captions", action="store_true", help="append image captions to the content")
    ap.add_argument("--pg-dir", type=Path, help="keep the embedded PostgreSQL here")
    ap.add_argument(
        "--idle-seconds",
        type=float,
        default=5.0,
        help="measure the idle background's CPU this long after the searches (0: not)",
    )
    ap.add_argument("--database", help="database name in --pg-dir (default: a new one)")
    ap.add_argument("--reuse", action="store_true", help="skip conversations already loaded (--database)")
    ap.add_argument("--json", type=Path, help="write the full report here")
    args = ap.parse_args()
    if importlib.util.find_spec("rank_bm25") is None:
        # Checked before the ingest (minutes) rather than at the baseline, where it would crash.
        sys.exit(
            "bench/locomo: the BM25 baseline needs rank-bm25 (the `bench` extra, not in the test lock): "
            "`make bench-locomo` installs it, or `.venv/bin/pip install rank-bm25==0.2.2`"
        )
    from app.logging import configure_logging

    configure_logging("warning", json=False)
    report = asyncio.run(run(args))
    print(tables(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
