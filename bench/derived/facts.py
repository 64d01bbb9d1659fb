"""Facts on real conversations (issue 12 §5): recall of LoCoMo's gold observations per speaker,
and precision on a hand-checked sample of the facts Engram produced.

    .venv/bin/python -m bench.derived.facts --split tune                 # conv-26, conv-30
    .venv/bin/python -m bench.derived.facts --split held-out             # conv-41, conv-42, conv-43
    .venv/bin/python -m bench.derived.facts --split held-out --show 100  # facts to hand-check
    .venv/bin/python -m bench.derived.facts --show-matches 50            # matching-rule check

Each conversation of `--data` (a LoCoMo-format file; default the shared dev file) is ingested
through the HTTP API into a live Engram (bench/locomo/ingest: one user per conversation, speaker_a
as `user`, speaker_b as `assistant`, both with their `name`), the worker extracts facts
(`POST /v1/sessions/{id}/extract?wait_seconds=` per session, as a live chat is read), and every
fact of the user (`include_invalid=true`; a fact is about `speaker`, the user's own being
speaker_a's) is scored:

- **recall** of the gold `observation`s of each speaker: an observation is covered when one of that
  speaker's facts, read as "<speaker>: <fact>", has a cosine of at least `--threshold` with it
  (all-MiniLM-L6-v2, the service's local model). The threshold was chosen on the tune split and
  checked by hand on 50 (observation, best fact) pairs (`--show-matches`): the agreement is
  printed and recorded in docs/benchmarks.md;
- **precision** on a hand-checked sample: `--show N` prints N facts (seeded sample) with the turns
  they came from; the verdicts are kept in `bench/derived/judgements.json` keyed by a hash of
  (conversation, speaker, fact text), so the file holds no dataset text. Facts with a verdict count.
  A sample judged as a whole keeps its own list in the same format (`sample-session9.json`: the 50
  of `--split held-out --show 50 --seed 9` at the commit that added it; `sample-session10.json`:
  the 50 of `--split held-out --show 50 --seed 10 --exclude bench/derived/sample-session9.json`,
  drawn from what the code produced at the start of session 10, so the two make a sample of 100).

Nothing of the data set is written to the repository; `--json` writes figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.locomo import data, ingest

ROOT = Path(__file__).resolve().parents[2]

SPLITS = {"tune": ("conv-26", "conv-30"), "held-out": ("conv-41", "conv-42", "conv-43")}
JUDGEMENTS = Path(__file__).with_name("judgements.json")
THRESHOLD = 0.8  # perfect agreement with a hand check of 12 tune-split pairs (and of 38 held-out ones)


@dataclass(frozen=True)
class Produced:
    key: str  # stable id: a hash of (conversation, speaker, content), nothing of the data set
    conversation: str
    speaker: str
    content: str
    valid: bool
    sources: tuple[str, ...]  # dia_ids


@dataclass(frozen=True)
class Gold:
    conversation: str
    speaker: str
    text: str
    dia_id: str


def fact_key(conversation: str, speaker: str, content: str) -> str:
    return hashlib.sha256(f"{conversation}\x1f{speaker}\x1f{content}".encode()).hexdigest()[:16]


def observations(path: Path, wanted: set[str]) -> list[Gold]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    out: list[Gold] = []
    for item in raw:
        if item["sample_id"] not in wanted:
            continue
        for by_speaker in (item.get("observation") or {}).values():
            for speaker, items in by_speaker.items():
                for entry in items:
                    text, dia = entry[0], entry[1] if len(entry) > 1 else ""
                    out.append(Gold(item["sample_id"], speaker, str(text), str(dia)))
    return out


async def produce(api: Any, conv: data.Conversation) -> list[Produced]:
    done = await ingest.ingest(api, conv)
    await ingest.wait_searchable(api, done.user_id)
    for sid in done.sessions:
        for _ in range(20):  # the worker also summarises: a session may wait its turn
            r = await ingest.ok(await api.post(f"/v1/sessions/{sid}/extract", params={"wait_seconds": 60}))
            if r["done"]:
                break
        else:
            raise RuntimeError(f"extraction of {sid} not done: {r}")
    facts: list[dict[str, Any]] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"include_invalid": "true", "limit": 1000}
        if cursor:
            params["cursor"] = cursor
        page = await ingest.ok(await api.get(f"/v1/users/{done.user_id}/facts", params=params))
        facts += page["items"]
        cursor = page.get("next_cursor")
        if not cursor:
            break
    out = []
    for f in facts:
        speaker = f.get("speaker") or conv.speaker_a
        out.append(
            Produced(
                key=fact_key(conv.sample_id, speaker, f["content"]),
                conversation=conv.sample_id,
                speaker=speaker,
                content=f["content"],
                valid=f["invalid_at"] is None,
                sources=tuple(done.by_message.get(str(m), "?") for m in f["source_message_ids"]),
            )
        )
    return out


def embedder() -> Any:
    from app.ai.local_embedder import LocalEmbedder
    from app.config import Settings

    e = LocalEmbedder(Settings())
    e.load()
    return e


def vectors(model: Any, texts: list[str]) -> np.ndarray:
    """Each text encoded on its own: in a batch a text is padded to its neighbours' length, which
    moves its cosine by up to ~0.01, so a fact's match would depend on which other facts were
    produced (a code change elsewhere flipped matches near the threshold both ways)."""
    return np.vstack([np.asarray(model.encode([t]), dtype=np.float32) for t in texts])


def best_matches(
    golds: list[Gold], produced: list[Produced], model: Any
) -> list[tuple[Gold, Produced | None, float]]:
    """For each gold observation, the produced fact of the same conversation and speaker closest to
    it, and their cosine."""
    facts_by: dict[tuple[str, str], list[Produced]] = defaultdict(list)
    for p in produced:
        facts_by[(p.conversation, p.speaker)].append(p)
    out: list[tuple[Gold, Produced | None, float]] = []
    gold_vecs = vectors(model, [g.text for g in golds]) if golds else None
    cache: dict[tuple[str, str], np.ndarray] = {}
    for i, g in enumerate(golds):
        mine = facts_by.get((g.conversation, g.speaker), [])
        if not mine or gold_vecs is None:
            out.append((g, None, 0.0))
            continue
        key = (g.conversation, g.speaker)
        if key not in cache:
            cache[key] = vectors(model, [f"{p.speaker}: {p.content}" for p in mine])
        sims = cache[key] @ gold_vecs[i]
        j = int(np.argmax(sims))
        out.append((g, mine[j], float(sims[j])))
    return out


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=data.DEFAULT_DATA)
    ap.add_argument("--split", choices=[*SPLITS, "all"], default="tune")
    ap.add_argument("--threshold", type=float, default=THRESHOLD)
    ap.add_argument("--show", type=int, default=0, help="print N produced facts (seeded) to hand-check")
    ap.add_argument("--show-matches", type=int, default=0, help="print N (observation, best fact) pairs")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument(
        "--exclude",
        type=Path,
        action="append",
        default=[],
        help="a sample file (key -> verdict): its facts are not drawn by --show (a fresh sample)",
    )
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    wanted = set(SPLITS[args.split]) if args.split != "all" else {c for s in SPLITS.values() for c in s}
    convs = [c for c in data.load(args.data) if c.sample_id in wanted]
    started = time.perf_counter()
    produced: list[Produced] = []
    async with ingest.engram() as api:
        for conv in convs:
            produced += await produce(api, conv)
    seconds = time.perf_counter() - started
    golds = observations(args.data, wanted)
    model = embedder()
    matches = best_matches(golds, produced, model)
    speakers = {(c.sample_id, c.speaker_a): "speaker_a" for c in convs} | {
        (c.sample_id, c.speaker_b): "speaker_b" for c in convs
    }
    by_side: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for g, _, sim in matches:
        side = speakers.get((g.conversation, g.speaker), "?")
        by_side[side][0] += int(sim >= args.threshold)
        by_side[side][1] += 1
    made: dict[str, int] = defaultdict(int)
    for p in produced:
        made[speakers.get((p.conversation, p.speaker), "?")] += 1
    judged = json.loads(JUDGEMENTS.read_text()) if JUDGEMENTS.exists() else {}
    verdicts = [judged[p.key] for p in produced if p.key in judged]
    correct = sum(1 for v in verdicts if v == "correct")
    print(f"## bench/derived/facts ({args.split}: {', '.join(sorted(wanted))}; {seconds:.0f} s)\n")
    print("| speaker side | facts produced | gold observations | covered | recall |")
    print("|---|---:|---:|---:|---:|")
    for side in ("speaker_a", "speaker_b"):
        f, n = by_side[side]
        role = "user" if side == "speaker_a" else "assistant"
        print(f"| {side} (`{role}` + name) | {made[side]} | {n} | {f} | {f / n if n else 0:.3f} |")
    f = sum(v[0] for v in by_side.values())
    n = sum(v[1] for v in by_side.values())
    print(f"| all | {len(produced)} | {n} | {f} | **{f / n if n else 0:.3f}** |")
    print(f"\nmatching: cosine >= {args.threshold} between the observation and '<speaker>: <fact>'")
    if verdicts:
        print(
            f"precision (hand-checked {len(verdicts)} of {len(produced)}): **{correct / len(verdicts):.3f}**"
        )
    rng = random.Random(args.seed)
    if args.show:
        drawn: set[str] = set().union(*(json.loads(f.read_text()) for f in args.exclude))
        pool = [p for p in produced if p.key not in drawn]
        sample = rng.sample(pool, min(args.show, len(pool)))
        by_dia = {(c.sample_id, t.dia_id): t for c in convs for s in c.sessions for t in s.turns}
        for p in sample:
            turns = [(d, by_dia[(p.conversation, d)]) for d in p.sources if (p.conversation, d) in by_dia]
            said = " | ".join(f"{d} {t.speaker}: {t.text}" for d, t in turns)
            print(f"\n{p.key} [{p.speaker}] {p.content}  <- {said}")
    if args.show_matches:
        for g, best, sim in rng.sample(matches, min(args.show_matches, len(matches))):
            fact = best.content if best else "-"
            print(f"\n{sim:.3f} {g.conversation} {g.dia_id} GOLD {g.text}\n      FACT {fact}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "split": args.split,
                    "threshold": args.threshold,
                    "seconds": seconds,
                    "recall": {k: {"covered": v[0], "gold": v[1]} for k, v in by_side.items()},
                    "produced": dict(made),
                    "precision": {"judged": len(verdicts), "correct": correct},
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    asyncio.run(main())
