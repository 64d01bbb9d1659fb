"""Offline replay of hybrid search over a loaded benchmark database: tune ranking in seconds.

    # after bench/locomo/run.py --pg-dir D --database locomo_dev (or bench/recall/run.py --pg-dir D)
    .venv/bin/python -m bench.search_replay dump --pg-dir D --locomo locomo_dev --out /tmp/locomo.pkl
    .venv/bin/python -m bench.search_replay dump --pg-dir D --recall tune --out /tmp/recall-tune.pkl
    .venv/bin/python -m bench.search_replay score /tmp/locomo.pkl /tmp/recall-tune.pkl \\
        --set search_keyword_weight=0.3 --set search_neighbour_context=0.2

`dump` reads every turn of every benchmark user once (its cosine-ready vector and its full-text
lexemes) and embeds each question the way a search does (alone, with the configured backend), so
that `replay` can compute what `POST /v1/search` (mode hybrid, user-scoped, no filters) computes:
the semantic top n (exact cosine), the keyword top n (app/search/sql.py's IDF-weighted share of the
query's lexemes), the neighbours of the best `search_context_candidates`, and then
`ranking.in_context` itself, so the ranking code under test is the app's. `score` prints the
benchmarks' figures for settings given with --set; `check` compares a replay with a benchmark's
--json output (they should agree question for question).

A dump of LoCoMo holds the conversations' text: keep it out of the repository (licence).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import math
import pickle
import re
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from app.config import Settings
from app.search import ranking, sentences, service, when

ROOT = Path(__file__).resolve().parents[1]

ROW_COLS = "message_id, session_id, user_id, seq, role, name, content, metadata, created_at"
IDF_CAP = service.IDF_SCOPE_CAP
YEAR = re.compile(r"^(19|20)[0-9]{2}$")
EXTRA: dict[str, Any] = {}  # ranking.Weights fields that have no setting (yet): --w NAME=VALUE


@dataclass
class User:
    rows: list[dict[str, Any]]
    vecs: npt.NDArray[np.float32]  # (n, dim), unit length
    lexemes: list[frozenset[str]]
    at: dict[tuple[str, int], int] = field(default_factory=dict)  # (session_id, seq) -> row index

    def __post_init__(self) -> None:
        self.at = {(r["session_id"], r["seq"]): i for i, r in enumerate(self.rows)}
        # Document frequencies over the scope's first IDF_CAP rows, as WEIGHTS_SQL counts them.
        self.df: dict[str, int] = defaultdict(int)
        for lex in self.lexemes[:IDF_CAP]:
            for w in lex:
                self.df[w] += 1
        self.total = min(len(self.rows), IDF_CAP)


@dataclass
class Question:
    user_id: str
    query: str
    vec: npt.NDArray[np.float32]
    lexemes: list[str]
    evidence: list[tuple[str, int]]  # (session_id, seq) keys
    category: str
    scoring: str  # "fraction" (LoCoMo: share of the evidence found) or "any" (bench/recall)
    speakers: dict[tuple[str, int], str] = field(default_factory=dict)  # evidence key -> role


# --- dump -----------------------------------------------------------------------------------------


async def _dump(args: argparse.Namespace) -> None:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    from app.ai.local_embedder import LocalEmbedder
    from app.db.embedded import start_embedded
    from app.db.engine import async_url

    server = await asyncio.to_thread(start_embedded, args.pg_dir)
    try:
        if args.locomo:
            dbname = args.locomo
        else:
            dbname = await _recall_database(server.url, args.recall)
        engine = create_async_engine(async_url(server.url.replace("/postgres?", f"/{dbname}?")))
        settings = Settings(model_cache_dir=ROOT / ".engram" / "models", **_backend(args))
        embedder = LocalEmbedder(settings)
        embedder.load()
        users: dict[str, User] = {}
        questions = _locomo_questions(args.data) if args.locomo else _recall_questions(args.recall)
        async with engine.connect() as conn:
            for uid in sorted({q["user_id"] for q in questions}):
                res = await conn.execute(
                    text(
                        f"SELECT {ROW_COLS}, CAST(embedding AS text) AS vec, s.vecs AS sentence_vecs, "
                        "tsvector_to_array(content_tsv) AS lex FROM messages "
                        "LEFT JOIN message_sentences s USING (message_id, tenant_id, user_id, session_id) "
                        "WHERE user_id = :u AND embedding IS NOT NULL ORDER BY session_id, seq"
                    ),
                    {"u": uid},
                )
                rows = [dict(r) for r in res.mappings().all()]
                vecs = np.array([np.fromstring(r.pop("vec")[1:-1], sep=",") for r in rows], dtype=np.float32)
                lex = [frozenset(r.pop("lex")) for r in rows]
                users[uid] = User(rows=rows, vecs=vecs, lexemes=lex)
            out: list[Question] = []
            for q in questions:
                lexemes = (
                    await conn.execute(
                        text("SELECT tsvector_to_array(to_tsvector('english', :q))"), {"q": q["query"]}
                    )
                ).scalar_one()
                vec = embedder.encode([q["query"]])[0]
                u = users[q["user_id"]]
                if q.get("dia_evidence") is not None:
                    by_dia = {r["metadata"].get("dia_id"): (r["session_id"], r["seq"]) for r in u.rows}
                    ev = [by_dia[d] for d in q["dia_evidence"] if d in by_dia]
                    q["speakers"] = {by_dia[d]: role for d, role in q["roles"].items() if d in by_dia}
                else:
                    ev = q["evidence"]
                out.append(
                    Question(
                        user_id=q["user_id"],
                        query=q["query"],
                        vec=vec,
                        lexemes=list(lexemes),
                        evidence=ev,
                        category=q["category"],
                        scoring=q["scoring"],
                        speakers=q.get("speakers", {}),
                    )
                )
        await engine.dispose()
    finally:
        server.stop()
    plain = {
        "users": {uid: {"rows": u.rows, "vecs": u.vecs, "lexemes": u.lexemes} for uid, u in users.items()},
        "questions": [asdict(q) for q in out],
        "source": dbname,
    }
    args.out.write_bytes(pickle.dumps(plain))
    print(f"wrote {args.out}: {len(users)} users, {len(out)} questions")


def _backend(args: argparse.Namespace) -> dict[str, Any]:
    return {"local_embedder_backend": args.backend} if args.backend else {}


def _locomo_questions(path: Path | None) -> list[dict[str, Any]]:
    from bench.locomo.data import CATEGORIES, DEFAULT_DATA, SCORED, load

    out = []
    for conv in load(path or DEFAULT_DATA):
        roles = {
            t.dia_id: ("user" if t.speaker == conv.speaker_a else "assistant")
            for s in conv.sessions
            for t in s.turns
        }
        for q in conv.questions:
            if q.category in SCORED and q.evidence:
                out.append(
                    {
                        "user_id": conv.sample_id,
                        "query": q.question,
                        "dia_evidence": q.evidence,
                        "roles": {d: roles[d] for d in q.evidence if d in roles},
                        "category": CATEGORIES[q.category],
                        "scoring": "fraction",
                    }
                )
    return out


def _recall_questions(split: str) -> list[dict[str, Any]]:
    from bench.recall.generate import generate

    seeds = {"tune": 1, "heldout": 2}
    data = generate(seeds[split], split, 20, 20)
    return [
        {
            "user_id": q["user_id"],
            "query": q["question"],
            "evidence": [(k.rsplit(":", 1)[0], int(k.rsplit(":", 1)[1])) for k in q["evidence"]],
            "category": q["category"],
            "scoring": "any",
        }
        for q in data["questions"]
    ]


async def _recall_database(admin_url: str, split: str) -> str:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    from app.db.engine import async_url

    engine = create_async_engine(async_url(admin_url))
    async with engine.connect() as conn:
        names = [
            r[0]
            for r in (
                await conn.execute(
                    text("SELECT datname FROM pg_database WHERE datname LIKE :p"), {"p": f"recall_{split}_%"}
                )
            ).all()
        ]
    await engine.dispose()
    if len(names) != 1:
        raise SystemExit(f"expected one recall_{split}_* database, found {names}")
    return str(names[0])


# --- replay ---------------------------------------------------------------------------------------


def keyword_scores(u: User, lexemes: list[str]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Each row's keyword score (KEYWORD_SQL) and whether it is a keyword candidate at all."""
    n = len(u.rows)
    # WEIGHTS_SQL leaves out a year no row of the sample holds.
    lexemes = [w for w in lexemes if u.df.get(w, 0) > 0 or not YEAR.match(w)]
    idf = {w: math.log(1 + (u.total - u.df.get(w, 0) + 0.5) / (u.df.get(w, 0) + 0.5)) for w in lexemes}
    whole = u.total < IDF_CAP
    draws = {w for w in lexemes if whole or u.df.get(w, 0) * 20 <= u.total}
    if not draws and lexemes:
        draws = {min(lexemes, key=lambda w: (u.df.get(w, 0), w))}
    total = sum(idf.values())
    kw = np.zeros(n)
    hit = np.zeros(n, dtype=bool)
    if not total:
        return kw, hit
    for i, lex in enumerate(u.lexemes):
        common = lex.intersection(lexemes)
        if common:
            kw[i] = sum(idf[w] for w in common) / total
            hit[i] = bool(common & draws)
    return kw, hit


def replay(u: User, q: Question, s: Settings, now: datetime | None = None) -> list[tuple[str, int]]:
    """The (session_id, seq) of the top 10 hits hybrid search returns for `q` with settings `s`."""
    return [(c.row["session_id"], c.row["seq"]) for c in candidates(u, q, s, now)[:10]]


def candidates(
    u: User,
    q: Question,
    s: Settings,
    now: datetime | None = None,
    cos: npt.NDArray[np.float32] | None = None,
) -> list[ranking.Candidate]:
    """Every candidate of hybrid search for `q`, best first (what service.search sorts); `cos`
    replaces the rows' cosines to the query (experiments)."""
    n = max(s.search_candidates, 10 * 4)
    if cos is None:
        cos = u.vecs @ q.vec.astype(np.float32)
    sem_order = np.argsort(-cos, kind="stable")[:n]
    kw, hit = keyword_scores(u, q.lexemes)
    kw_idx = np.flatnonzero(hit)
    kw_order = sorted(kw_idx.tolist(), key=lambda i: (-kw[i], u.rows[i]["seq"], u.rows[i]["session_id"]))[:n]
    sem_rows = [u.rows[i] | {"semantic": float(cos[i])} for i in sem_order]
    kw_rows = [u.rows[i] | {"keyword": float(kw[i]), "semantic": float(cos[i])} for i in kw_order]
    cands, _, _ = ranking.merge(sem_rows, kw_rows)
    w = dataclasses.replace(service.weights(s), **EXTRA)
    if s.search_sentence_weight > 0:  # as sentences.rescore, from the dumped sentence vectors
        top = sentences.chosen(cands, w, s.search_sentence_candidates)
        packed = {c.row["message_id"]: c.row["sentence_vecs"] for c in top if c.row.get("sentence_vecs")}
        sentences.apply(top, packed, q.vec, s.search_sentence_weight)
    best = sorted(cands.values(), key=lambda c: ranking.relevance(c, w), reverse=True)
    sids, seqs = ranking.context_window(best[: s.search_context_candidates])
    neighbours = []
    for sid, seq in zip(sids, seqs, strict=True):
        i = u.at.get((sid, seq))
        if i is not None:
            row = u.rows[i] | {"semantic": float(cos[i]), "eligible": True}
            neighbours.append(row)
    for row in neighbours:
        if row["message_id"] not in cands:
            cands[row["message_id"]] = ranking.Candidate(row=row, semantic=float(row["semantic"]))
    people = ranking.people_sessions([c.row for c in cands.values()] + neighbours)
    bias = {sid: sid not in people for sid in {c.row["session_id"] for c in cands.values()}}
    asked = when.period(q.query, now or datetime.now(UTC)) if w.time else None
    ranking.in_context(cands, neighbours, q.query, w, bias, asked)
    for c in cands.values():
        c.score = c.fused
    return sorted(cands.values(), key=lambda c: c.score, reverse=True)


# --- scoring --------------------------------------------------------------------------------------


def score(q: Question, top: list[tuple[str, int]]) -> dict[str, float]:
    ev = set(q.evidence)
    out: dict[str, float] = {}
    for k in (1, 5, 10):
        got = set(top[:k]) & ev
        out[f"R@{k}"] = (len(got) / len(ev) if q.scoring == "fraction" else float(bool(got))) if ev else 0.0
    seen: set[tuple[str, int]] = set()
    dcg = 0.0
    for i, key in enumerate(top[:10]):
        if key in ev and (q.scoring == "any" or key not in seen):
            dcg += 1 / math.log2(i + 2)
            seen.add(key)
    out["NDCG@10"] = dcg / sum(1 / math.log2(i + 2) for i in range(min(len(ev), 10))) if ev else 0.0
    return out


def summary(qs: list[Question], tops: list[list[tuple[str, int]]]) -> dict[str, Any]:
    rows = [score(q, t) for q, t in zip(qs, tops, strict=True)]

    def agg(idx: list[int]) -> dict[str, float]:
        return {k: round(100 * sum(rows[i][k] for i in idx) / max(len(idx), 1), 1) for k in rows[0]} | {
            "n": len(idx)
        }

    out: dict[str, Any] = {"overall": agg(list(range(len(qs))))}
    cats = sorted({q.category for q in qs})
    out["by_category"] = {c: agg([i for i, q in enumerate(qs) if q.category == c]) for c in cats}
    by_role: dict[str, list[float]] = defaultdict(list)
    for q, t in zip(qs, tops, strict=True):
        got = set(t[:10])
        roles: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for key, role in q.speakers.items():
            roles[role].append(key)
        for role, keys in roles.items():
            by_role[role].append(sum(k in got for k in keys) / len(keys))
    out["speakers"] = {r: round(100 * sum(v) / len(v), 1) for r, v in sorted(by_role.items())}
    return out


def load_dump(path: Path) -> dict[str, Any]:
    """A dump's users (User) and questions (Question)."""
    plain = pickle.loads(path.read_bytes())
    return {
        "users": {uid: User(**u) for uid, u in plain["users"].items()},
        "questions": [Question(**q) for q in plain["questions"]],
        "source": plain["source"],
    }


def settings_with(sets: list[str], weights: list[str] | None = None) -> Settings:
    EXTRA.clear()
    for kv in weights or []:
        k, v = kv.split("=", 1)
        EXTRA[k] = float(v)
    return Settings(**dict(kv.split("=", 1) for kv in sets))  # type: ignore[arg-type]


def run_dump(d: dict[str, Any], s: Settings, only: set[str] | None = None) -> dict[str, Any]:
    qs = [q for q in d["questions"] if only is None or q.user_id in only]
    tops = [replay(d["users"][q.user_id], q, s) for q in qs]
    return summary(qs, tops)


def _print(name: str, r: dict[str, Any]) -> None:
    o = r["overall"]
    figures = " ".join(f"{k} {o[k]:.1f}" for k in ("R@1", "R@5", "R@10", "NDCG@10"))
    line = f"{name}: {figures} (n {o['n']})"
    cats = " | ".join(f"{c} {v['R@1']:.1f}/{v['R@10']:.1f}" for c, v in r["by_category"].items())
    sp = " ".join(f"{k} {v:.1f}" for k, v in r["speakers"].items())
    print(line)
    print(f"    {cats}")
    if sp:
        print(f"    speakers R@10: {sp}")


LOCOMO_TUNE = {"conv-26", "conv-30"}


def _score(args: argparse.Namespace) -> None:
    s = settings_with(args.set, args.w)
    for path in args.dumps:
        d = load_dump(path)
        locomo = any(q.scoring == "fraction" for q in d["questions"])
        if locomo:
            for split, only in (("tune", LOCOMO_TUNE), ("heldout", None if args.all else set())):
                if only is None:
                    only = {q.user_id for q in d["questions"]} - LOCOMO_TUNE
                if only:
                    _print(f"{path.name} {split}", run_dump(d, s, only))
        else:
            _print(path.name, run_dump(d, s))


def _check(args: argparse.Namespace) -> None:
    """Compare the replay with a bench/locomo --json report's hybrid rankings."""
    import json

    d = load_dump(args.dump)
    report = json.loads(Path(args.report).read_text())
    s = settings_with(args.set)
    rows = report["per_question"]["hybrid"]
    by_q = {(r["conversation"], r["question"]): r for r in rows}
    same = diff = 0
    for q in d["questions"]:
        r = by_q.get((q.user_id, q.query))
        if r is None:
            continue
        u = d["users"][q.user_id]
        dia = {(row["session_id"], row["seq"]): row["metadata"].get("dia_id") for row in u.rows}
        mine = [dia[k] for k in replay(u, q, s)]
        theirs = [h[0] if h else None for h in r["hits"]]
        if mine == theirs:
            same += 1
        else:
            diff += 1
            if diff <= args.show:
                print(q.query, "\n  replay:", mine, "\n  api:   ", theirs)
    print(f"same ranking: {same}, different: {diff}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--pg-dir", type=Path, required=True)
    g = d.add_mutually_exclusive_group(required=True)
    g.add_argument("--locomo", metavar="DATABASE")
    g.add_argument("--recall", choices=["tune", "heldout"])
    d.add_argument("--data", type=Path, help="the LoCoMo file (default: the shared dev file)")
    d.add_argument("--backend", help="local_embedder_backend (default: the setting's default)")
    d.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("score")
    s.add_argument("dumps", nargs="+", type=Path)
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    s.add_argument("--w", action="append", default=[], metavar="NAME=VALUE", help="a Weights field")
    s.add_argument("--all", action="store_true", help="LoCoMo: the held-out conversations too")
    c = sub.add_parser("check")
    c.add_argument("dump", type=Path)
    c.add_argument("report", type=Path)
    c.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    c.add_argument("--show", type=int, default=5)
    args = ap.parse_args()
    if args.cmd == "dump":
        asyncio.run(_dump(args))
    elif args.cmd == "score":
        _score(args)
    else:
        _check(args)


if __name__ == "__main__":
    main()
