"""Quality of user-fact extraction on generated chats with planted facts (issue 5, §5).

    .venv/bin/python -m bench.facts.run                        # llm=local, 30 users x 7 sessions
    .venv/bin/python -m bench.facts.run --users 5 --json /tmp/facts.json
    ENGRAM_OPENAI_BASE_URL=... .venv/bin/python -m bench.facts.run --llm openai

The dataset from generate.py (seeded) is loaded into a fresh database of an embedded PostgreSQL
through the real HTTP API, in-process (create_app over ASGI, the app's own worker): per user, one
session after the other, its messages are appended and `POST /v1/sessions/{id}/extract` waits
until the worker has read them for facts, as a live chat would be read; users run side by side.
Then every fact of every user (`include_invalid=true`) is scored against the gold record.

Matching (also in README.md): an extracted fact matches a gold fact when its kind is one the
gold accepts (generate.ACCEPT: e.g. a pet may be `relationship` or `other`, a plan `plan` or
`event`) and one of the gold's key terms appears in its content (case- and accent-insensitive,
on word boundaries, an optional plural "s"/"es"; a term ending in "*" is a prefix; numbers must
stand alone, so the age 23 is not found in "2026-02-23"). For likes, dislikes, activities and
diet the polarity must agree too: a dislike needs a negative word in the content ("Dislikes
olives.", "Can't stand olives."), a liking must have none.

Final valid set (facts with no `invalid_at`, oldest first): a fact matching a gold fact valid at
the end is correct, once per gold fact: a second fact for the same gold fact is a duplicate and
counts as a false positive, as does a fact holding a value that has ended (stale; "negation
stored" when its source is the very message that ended the value) and a fact matching nothing
(spurious; its source messages' generator tags show what it came from: a hypothetical, another
person's fact, ...). One fact that names several gold facts ("Speaks Greek and Dutch.") counts
for each of them, as one correct fact. A fact matching only an optional gold fact (true, not
required: "Doesn't eat meat.", "Has a hamster.", "Has a friend named Daniel.") counts neither
way. Precision = correct / (correct + false positives); recall = gold facts found / gold facts
valid at the end.

Superseded chain: an update (home Lisbon -> Porto) is right when every extracted fact holding the
old value is invalid and one has `superseded_by` pointing at a fact holding the new value; a
negation (quit the job, gave up tennis) is right when every fact holding the ended value is
invalid. Recall of invalidations = right / (updates + negations); precision of invalidations =
invalid facts holding a value that ended / all invalid facts holding a gold value (an invalid fact
whose value gold says still holds is a false invalidation, unless a fact with the same value
superseded it: a restatement). The timing of an invalidation is not scored.

Scopes: `--kinds` are the kinds the extractor claims to handle (default: those the local
extractor's docstring lists, which is every kind, health facts being `other`); precision counts
the extracted facts of those kinds, recall the gold facts of those kinds. The "all kinds" row
counts everything (one row when the two are the same).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from app.config import Settings
from app.db.embedded import start_embedded
from app.logging import configure_logging
from bench.facts.generate import KINDS, describe, generate
from bench.recall.run import _ok, api_for, database, settings_for

ROOT = Path(__file__).resolve().parents[2]

# What app/ai/local_fact_extractor.py says it handles (its module docstring): identity, location,
# occupation, relationships, health (as `other`) and diet, preferences, plans and events: every kind.
CLAIMED_LOCAL = KINDS
POLAR_SLOTS = {"likes", "dislikes", "activity", "diet"}
_NEG = re.compile(
    r"(?<!\w)(?:not|no|never|dislikes?|hates?|can[\u2019']?t|cannot|avoids?|stopped|quit|gave up|"
    r"no longer|any ?more)(?!\w)|n[\u2019']t(?!\w)",
    re.IGNORECASE,
)


# --- matching -------------------------------------------------------------------------------------


def fold(text: str) -> str:
    """Lower case without accents: "Zürich" and "Zurich" are the same word here."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def term_pattern(term: str) -> re.Pattern[str]:
    prefix = term.endswith("*")
    body = r"\s+".join(re.escape(w) for w in fold(term.rstrip("*")).split())
    if body.isdigit():  # an age: not a piece of a date or a longer number
        return re.compile(rf"(?<![\w.:/-]){body}(?![\w:/-])")
    return re.compile(rf"(?<!\w){body}" + ("" if prefix else r"(?:s|es)?(?!\w)"))


@dataclass
class GoldFact:
    id: str
    kind: str
    kinds: frozenset[str]
    slot: str
    value: str
    patterns: list[re.Pattern[str]]
    polarity: str
    required: bool
    status: str
    superseded_by: str | None
    date: str | None
    sources: list[str]
    ended_by: str | None

    @classmethod
    def of(cls, g: dict[str, Any]) -> GoldFact:
        return cls(
            id=g["id"],
            kind=g["kind"],
            kinds=frozenset(g["kinds"]),
            slot=g["slot"],
            value=g["value"],
            patterns=[term_pattern(t) for t in g["terms"]],
            polarity=g["polarity"],
            required=g["required"],
            status=g["status"],
            superseded_by=g["superseded_by"],
            date=g["date"],
            sources=g["sources"],
            ended_by=g["ended_by"],
        )

    @property
    def valid(self) -> bool:
        return self.status == "valid"


@dataclass
class Fact:
    id: str
    content: str
    kind: str
    subject: str | None
    valid: bool
    superseded_by: str | None
    valid_from: str
    sources: list[str]  # message keys (session_id:seq)


def matches(f: Fact, g: GoldFact) -> bool:
    if f.kind not in g.kinds:
        return False
    text = fold(f.content)
    if not any(p.search(text) for p in g.patterns):
        return False
    if g.polarity == "-":
        return bool(_NEG.search(text))
    if g.slot.split(":")[0] in POLAR_SLOTS:
        return not _NEG.search(text)
    return True


# --- scoring --------------------------------------------------------------------------------------


@dataclass
class Tally:
    """Counts for one scope: the final valid set and the invalidations."""

    correct: int = 0
    fp: Counter[str] = field(default_factory=Counter)  # reason -> count
    optional: int = 0
    gold: int = 0
    found: int = 0

    @property
    def extracted(self) -> int:
        return self.correct + sum(self.fp.values()) + self.optional

    def precision(self) -> float | None:
        n = self.correct + sum(self.fp.values())
        return self.correct / n if n else None

    def recall(self) -> float | None:
        return self.found / self.gold if self.gold else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "extracted_valid": self.extracted,
            "correct": self.correct,
            "false_positives": dict(self.fp),
            "optional": self.optional,
            "precision": self.precision(),
            "gold": self.gold,
            "found": self.found,
            "recall": self.recall(),
        }


@dataclass
class Score:
    claimed: frozenset[str]
    scopes: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_kind_p: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))  # extracted kind
    by_kind_r: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))  # gold kind
    chain: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    inval: Counter[str] = field(default_factory=Counter)
    dates: Counter[str] = field(default_factory=Counter)
    fps: list[dict[str, Any]] = field(default_factory=list)
    misses: list[dict[str, Any]] = field(default_factory=list)
    chain_fails: list[dict[str, Any]] = field(default_factory=list)
    false_inval: list[dict[str, Any]] = field(default_factory=list)
    fp_sources: Counter[str] = field(default_factory=Counter)


def _scopes(score: Score, kind: str) -> list[str]:
    return ["all"] + (["claimed"] if kind in score.claimed else [])


def score_user(
    score: Score, user: dict[str, Any], facts: list[Fact], texts: dict[str, tuple[str, str]]
) -> None:
    """Add one user's figures to `score`. `texts`: message key -> (content, generator tag)."""
    golds = [GoldFact.of(g) for g in user["gold"]]
    required = [g for g in golds if g.valid and g.required]
    for g in required:
        for sc in _scopes(score, g.kind):
            score.scopes[sc].gold += 1
        score.by_kind_r[g.kind].gold += 1
    taken: dict[str, str] = {}
    for f in sorted((f for f in facts if f.valid), key=lambda f: (f.valid_from, f.id)):
        hits = [g for g in required if matches(f, g)]
        reason: str | None = None
        if hits:
            new = [g for g in hits if g.id not in taken]
            if new:
                for g in new:
                    taken[g.id] = f.id
                    for sc in _scopes(score, g.kind):
                        score.scopes[sc].found += 1
                    score.by_kind_r[g.kind].found += 1
                    if g.date is not None:
                        dated = g.date in f.content or f.valid_from[:10] == g.date
                        score.dates["right" if dated else "wrong"] += 1
            else:
                reason = "duplicate"
        elif any(matches(f, g) for g in golds if g.valid and not g.required):
            for sc in _scopes(score, f.kind):
                score.scopes[sc].optional += 1
            score.by_kind_p[f.kind].optional += 1
            continue
        else:
            ended = [g for g in golds if not g.valid and matches(f, g)]
            if ended:
                reason = "negation stored" if any(g.ended_by in f.sources for g in ended) else "stale"
            else:
                reason = "spurious"
                for key in f.sources:
                    tag = texts.get(key, ("", "?"))[1]
                    # "distractor:hypothetical" -> "hypothetical"; "plant:<gold id>" -> "plant"
                    score.fp_sources[
                        tag.split(":")[1] if tag.startswith("distractor:") else tag.split(":")[0]
                    ] += 1
        if reason is None:
            for sc in _scopes(score, f.kind):
                score.scopes[sc].correct += 1
            score.by_kind_p[f.kind].correct += 1
        else:
            for sc in _scopes(score, f.kind):
                score.scopes[sc].fp[reason] += 1
            score.by_kind_p[f.kind].fp[reason] += 1
            score.fps.append(
                {
                    "reason": reason,
                    "user": user["user_id"],
                    "kind": f.kind,
                    "subject": f.subject,
                    "content": f.content,
                    "from": [texts.get(k, ("?", "?")) for k in f.sources],
                }
            )
    for g in required:
        if g.id not in taken:
            score.misses.append(
                {
                    "user": user["user_id"],
                    "kind": g.kind,
                    "slot": g.slot,
                    "value": g.value,
                    "said": [texts.get(k, ("?", "?"))[0] for k in g.sources],
                }
            )
    _score_chain(score, user, golds, facts, texts)


def _score_chain(
    score: Score,
    user: dict[str, Any],
    golds: list[GoldFact],
    facts: list[Fact],
    texts: dict[str, tuple[str, str]],
) -> None:
    by_id = {g.id: g for g in golds}
    cases = [("update", u["old"], u["new"]) for u in user["updates"]]
    cases += [("negation", n, None) for n in user["negations"]]
    for what, old_id, new_id in cases:
        old = by_id[old_id]
        olds = [f for f in facts if matches(f, old)]
        news = {f.id for f in facts if new_id is not None and matches(f, by_id[new_id])}
        if not olds:
            outcome = "old value never extracted"
        elif any(f.valid for f in olds):
            outcome = "old value still valid"
        elif new_id is None or any(f.superseded_by in news for f in olds):
            outcome = "right"
        else:
            outcome = "ended, not linked to the new value"
        score.chain[what][outcome] += 1
        if outcome != "right":
            score.chain_fails.append(
                {
                    "user": user["user_id"],
                    "what": what,
                    "outcome": outcome,
                    "old": f"{old.slot}={old.value}",
                    "new": by_id[new_id].value if new_id is not None else None,
                    "said": texts.get(old.ended_by or "", ("?", "?"))[0],
                    "facts": [(f.content, "valid" if f.valid else "invalid") for f in olds],
                }
            )
    by_fact = {f.id: f for f in facts}
    for f in facts:
        if f.valid:
            continue
        hits = [g for g in golds if matches(f, g)]
        if not hits:
            score.inval["spurious fact ended"] += 1
        elif any(not g.valid for g in hits):
            score.inval["right"] += 1
        else:
            after = by_fact.get(f.superseded_by or "")
            if after is not None and any(matches(after, g) for g in hits):
                score.inval["restated"] += 1
            else:
                score.inval["false"] += 1
                score.false_inval.append(
                    {
                        "user": user["user_id"],
                        "content": f.content,
                        "superseded_by": after.content if after is not None else None,
                    }
                )


# --- loading and extraction through the API -------------------------------------------------------


async def run_user(
    api: httpx.AsyncClient, user: dict[str, Any], wait: float, latencies: list[float]
) -> tuple[list[Fact], dict[str, tuple[str, str]]]:
    ids: dict[str, str] = {}  # message_id -> key
    texts: dict[str, tuple[str, str]] = {}
    for s in user["sessions"]:
        sid = s["session_id"]
        await _ok(await api.post("/v1/sessions", json={"user_id": user["user_id"], "session_id": sid}))
        body = [{k: m[k] for k in ("role", "content", "created_at")} for m in s["messages"]]
        out = await _ok(await api.post(f"/v1/sessions/{sid}/messages", json={"messages": body}))
        for m, stored in zip(s["messages"], out["messages"], strict=True):
            key = f"{sid}:{stored['seq']}"
            ids[stored["message_id"]] = key
            texts[key] = (m["content"], m["tag"])
        t0 = time.perf_counter()
        for _ in range(10):  # a slow step (a busy machine) gets a few more waits
            res = await _ok(await api.post(f"/v1/sessions/{sid}/extract", params={"wait_seconds": wait}))
            job = res.get("job") or {}
            if res["done"]:
                break
            if job.get("status") == "failed":
                raise RuntimeError(f"extraction of {sid} failed: {job.get('error')}")
        else:
            raise RuntimeError(f"extraction of {sid} did not finish")
        latencies.append(time.perf_counter() - t0)
    facts: list[Fact] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"include_invalid": "true", "limit": 1000}
        if cursor:
            params["cursor"] = cursor
        page = await _ok(await api.get(f"/v1/users/{user['user_id']}/facts", params=params))
        for x in page["items"]:
            if x["actor"] != "system":
                continue
            facts.append(
                Fact(
                    id=x["fact_id"],
                    content=x["content"],
                    kind=x["kind"],
                    subject=x["subject"],
                    valid=x["invalid_at"] is None,
                    superseded_by=x["superseded_by"],
                    valid_from=x["valid_from"],
                    sources=[ids.get(m, "?") for m in x["source_message_ids"]],
                )
            )
        cursor = page.get("next_cursor")
        if not cursor:
            return facts, texts


async def run(args: argparse.Namespace, data: dict[str, Any]) -> dict[str, Any]:
    overrides = {"llm": args.llm, "embedder": "local"} | dict(kv.split("=", 1) for kv in args.set)
    pg_dir = Path(tempfile.mkdtemp(prefix="engram-facts-"))
    server = await asyncio.to_thread(start_embedded, pg_dir)
    latencies: list[float] = []
    results: dict[str, tuple[list[Fact], dict[str, tuple[str, str]]]] = {}
    try:
        url, _ = await database(server.url, f"facts_{args.llm}_{os.getpid()}")
        settings = settings_for(url, Settings.model_fields["local_embedder_backend"].default, overrides)
        async with api_for(settings) as api:
            gate = asyncio.Semaphore(args.concurrency)
            done = 0

            async def one(user: dict[str, Any]) -> None:
                nonlocal done
                async with gate:
                    results[user["user_id"]] = await run_user(api, user, args.wait, latencies)
                done += 1
                if done % 5 == 0 or done == len(data["users"]):
                    print(f"    {done}/{len(data['users'])} users extracted", flush=True)

            t0 = time.perf_counter()
            await asyncio.gather(*(one(u) for u in data["users"]))
            extract_seconds = time.perf_counter() - t0
    finally:
        server.stop()
        shutil.rmtree(pg_dir, ignore_errors=True)
    score = Score(claimed=frozenset(args.kinds))
    n_facts = Counter[str]()
    for user in data["users"]:
        facts, texts = results[user["user_id"]]
        n_facts["valid"] += sum(f.valid for f in facts)
        n_facts["invalid"] += sum(not f.valid for f in facts)
        score_user(score, user, facts, texts)
    ordered = sorted(latencies)
    return {
        "score": score,
        "facts": dict(n_facts),
        "extract_seconds": round(extract_seconds, 1),
        "session_latency_s": {
            "p50": round(statistics.median(ordered), 2),
            "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
        },
    }


# --- report ---------------------------------------------------------------------------------------


def pct(x: float | None) -> str:
    # Three decimals: at two, 0.897 would read as 0.90 and pass a 0.9 target it misses.
    return "-" if x is None else f"{x:.3f}"


def chain_figures(score: Score) -> dict[str, Any]:
    upd, neg = score.chain["update"], score.chain["negation"]
    right = upd["right"] + neg["right"]
    total = sum(upd.values()) + sum(neg.values())
    judged = score.inval["right"] + score.inval["false"]
    return {
        "updates": dict(upd),
        "negations": dict(neg),
        "recall": right / total if total else None,
        "update_recall": upd["right"] / sum(upd.values()) if upd else None,
        "negation_recall": neg["right"] / sum(neg.values()) if neg else None,
        "invalid_facts": dict(score.inval),
        "precision": score.inval["right"] / judged if judged else None,
    }


def _fmt_fp(fp: Counter[str]) -> str:
    order = ("duplicate", "stale", "negation stored", "spurious")
    return " / ".join(str(fp.get(k, 0)) for k in order)


def markdown(report: dict[str, Any], score: Score) -> str:
    d = report["dataset"]
    out: list[str] = []
    out.append(
        f"Dataset (seed {report['seed']}): {d['users']} users, {d['sessions']} sessions, "
        f"{d['messages']} messages ({d['user_messages']} from users, {d['distractors_total']} of them "
        f"distractors), {d['span']}; gold: {d['gold_valid_at_end']} facts valid at the end, "
        f"{d['updates']} updates, {d['negations']} negations. llm=`{report['llm']}`; "
        f"{report['facts']['valid']} facts valid, {report['facts']['invalid']} invalid at the end; "
        f"wall {report['wall_seconds']:.0f} s (load + extraction {report['extract_seconds']:.0f} s; "
        f"a session's /extract p50 {report['session_latency_s']['p50']} s, "
        f"p95 {report['session_latency_s']['p95']} s)."
    )
    out.append("")
    out.append(
        "| scope | extracted (valid) | correct | optional | false pos. (dup / stale / neg. stored / "
        "spurious) | precision | gold | found | recall |"
    )
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    claimed = ", ".join(k for k in KINDS if k in score.claimed)
    rows = [("claimed", f"claimed kinds ({claimed})"), ("all", "all kinds")]
    if score.claimed >= set(KINDS):  # the same figures twice otherwise
        rows = [("all", "all kinds (all claimed)")]
    for name, label in rows:
        t = score.scopes[name]
        out.append(
            f"| {label} | {t.extracted} | {t.correct} | {t.optional} | {_fmt_fp(t.fp)} "
            f"| **{pct(t.precision())}** "
            f"| {t.gold} | {t.found} | **{pct(t.recall())}** |"
        )
    out.append("")
    out.append(
        "| kind | claimed | gold | found | recall | extracted | correct | optional | false pos. | precision |"
    )
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in KINDS:
        r, p = score.by_kind_r.get(k, Tally()), score.by_kind_p.get(k, Tally())
        if not r.gold and not p.extracted:
            continue
        out.append(
            f"| {k} | {'yes' if k in score.claimed else 'no'} | {r.gold} | {r.found} | {pct(r.recall())} "
            f"| {p.extracted} | {p.correct} | {p.optional} | {sum(p.fp.values())} | {pct(p.precision())} |"
        )
    out.append("")
    c = chain_figures(score)
    out.append(
        "| invalidation | gold | right | recall | recall, old value extracted | old value still valid "
        "| ended, unlinked | never extracted |"
    )
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for what, label in (
        ("update", "updates (superseded by the new value)"),
        ("negation", "negations (ended)"),
    ):
        ch = score.chain[what]
        n = sum(ch.values())
        seen = n - ch["old value never extracted"]
        out.append(
            f"| {label} | {n} | {ch['right']} | {pct(ch['right'] / n if n else None)} "
            f"| {pct(ch['right'] / seen if seen else None)} "
            f"| {ch['old value still valid']} | {ch['ended, not linked to the new value']} "
            f"| {ch['old value never extracted']} |"
        )
    total = sum(score.chain["update"].values()) + sum(score.chain["negation"].values())
    right = score.chain["update"]["right"] + score.chain["negation"]["right"]
    seen = total - score.chain["update"]["old value never extracted"]
    seen -= score.chain["negation"]["old value never extracted"]
    out.append(
        f"| all | {total} | {right} | **{pct(c['recall'])}** | {pct(right / seen if seen else None)} | | | |"
    )
    out.append("")
    iv = score.inval
    out.append(
        f"Invalidation precision: **{pct(c['precision'])}** ({iv['right']} invalid facts hold a value "
        f"that ended, {iv['false']} hold one that still holds; not counted: {iv['restated']} "
        f"restatements superseded by the same value, {iv['spurious fact ended']} spurious facts ended)."
    )
    if score.dates:
        n = score.dates["right"] + score.dates["wrong"]
        out.append(
            f"Dates: {score.dates['right']} of {n} plans and events found whose day the text pins "
            "carry that day (in the content or as `valid_from`)."
        )
    if score.fp_sources:
        top = ", ".join(f"{k} {v}" for k, v in score.fp_sources.most_common())
        out.append(f"Spurious facts came from (generator tags of their source messages): {top}.")
    return "\n".join(out)


def _pick(items: list[dict[str, Any]], key: str, n: int) -> list[dict[str, Any]]:
    """Up to `n` examples, spread over the values of `key` so one kind of failure does not crowd
    out the others."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for it in items:
        groups[str(it[key])].append(it)
    out: list[dict[str, Any]] = []
    while len(out) < n and any(groups.values()):
        for g in list(groups.values()):
            if g and len(out) < n:
                out.append(g.pop(0))
    return out


def examples(score: Score, n: int) -> str:
    out: list[str] = ["Examples of false positives:"]
    for fp in _pick(score.fps, "reason", n):
        src = " | ".join(f"{t!r} [{tag}]" for t, tag in fp["from"])
        out.append(f"- {fp['reason']}: {fp['kind']} {fp['content']!r} (subject {fp['subject']}) <- {src}")
    out.append("Examples of misses:")
    for m in _pick(score.misses, "kind", n):
        out.append(f"- {m['kind']} {m['slot']}={m['value']!r}: said as {m['said']}")
    out.append("Examples of chain failures:")
    for f in _pick(score.chain_fails, "outcome", n):
        out.append(
            f"- {f['what']} {f['old']} -> {f['new']} ({f['outcome']}): said {f['said']!r}; facts {f['facts']}"
        )
    if score.false_inval:
        out.append("Examples of false invalidations:")
        for fi in score.false_inval[:n]:
            out.append(f"- {fi['content']!r} superseded by {fi['superseded_by']!r}")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llm", choices=["local", "openai"], default="local")
    ap.add_argument("--users", type=int, default=30)
    ap.add_argument("--sessions", type=int, default=7, help="sessions per user")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--kinds",
        nargs="+",
        choices=KINDS,
        default=list(CLAIMED_LOCAL),
        help="kinds the extractor claims to handle (default: the local extractor's list)",
    )
    ap.add_argument("--concurrency", type=int, default=4, help="users loaded side by side")
    ap.add_argument("--wait", type=float, default=60, help="wait_seconds of one /extract call (<= 60)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a setting")
    ap.add_argument("--json", type=Path, help="write the raw figures (and every failure) here")
    ap.add_argument("--examples", type=int, default=8, help="failure examples of each sort")
    args = ap.parse_args()
    configure_logging("warning", json=False)
    if args.llm == "openai" and not Settings().openai_base_url:
        print("skipped: --llm openai needs ENGRAM_OPENAI_BASE_URL (and ENGRAM_OPENAI_API_KEY, ...)")
        return
    started = time.perf_counter()
    data = generate(args.seed, args.users, args.sessions)
    stats = describe(data)
    stats["distractors_total"] = sum(stats["distractors"].values())
    print(f"dataset: {json.dumps(stats)}", flush=True)
    res = asyncio.run(run(args, data))
    score: Score = res.pop("score")
    report: dict[str, Any] = {
        "command": " ".join(sys.argv),
        "python": platform.python_version(),
        "llm": args.llm,
        "seed": args.seed,
        "kinds": sorted(score.claimed),
        "dataset": stats,
        **res,
        "wall_seconds": round(time.perf_counter() - started, 1),
    }
    report["final_valid"] = {k: v.as_dict() for k, v in score.scopes.items()}
    report["recall_by_gold_kind"] = {k: v.as_dict() for k, v in score.by_kind_r.items()}
    report["precision_by_extracted_kind"] = {k: v.as_dict() for k, v in score.by_kind_p.items()}
    report["chain"] = chain_figures(score)
    report["dates"] = dict(score.dates)
    report["spurious_sources"] = dict(score.fp_sources)
    print()
    print(markdown(report, score))
    print()
    print(examples(score, args.examples))
    if args.json:
        failures = {
            "false_positives": score.fps,
            "misses": score.misses,
            "chain_failures": score.chain_fails,
            "false_invalidations": score.false_inval,
        }
        args.json.write_text(json.dumps(report | {"failures": failures}, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
