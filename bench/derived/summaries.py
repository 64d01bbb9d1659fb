"""Summary coverage of LoCoMo's gold session summaries against compression (issue 12).

    python -m bench.derived.summaries [--data ../shared/data/locomo/locomo-dev.json]
        [--threshold 0.72] [--label N]   # --label: print N matches to judge by hand
        [--judge-backend onnx]           # match with this runtime, not the summariser's

Results in docs/benchmarks.md.

Each LoCoMo session is one summary step, as the worker runs it (app.ai.factories.make_summarizer
with the default settings, the worker's max_tokens): the turns as Engram stores them (speaker_a
role `user`, speaker_b `assistant`, `name` = the speaker, `created_at` = the session's date, like
bench/locomo/ingest.py), no previous summary. The summariser is called in process, not through a
live Engram: its input is what the worker's step reads, and the step itself is tested in
tests/api/test_summaries.py.

Matching rule: the gold `session_summary` is split into sentences (its atomic statements); a
statement is covered when some sentence of the produced summary, prefixed with its speaker
("Priya: I went to ..."), has a cosine >= THRESHOLD with it (the local embedding model). The
`--judge-backend` fixes that model when the summariser's changes: the int8 runtimes' vectors
carry noise of their own (~0.995 cosine to fp32's), and a judge that changes with the summariser
moves the coverage by as much as the summary's change (docs/benchmarks.md, "Footprint, session
14"). The threshold was chosen by hand-labelling 50 (gold statement, best produced sentence)
pairs of the tune split (bench/derived/labels.json holds only the verdicts, keyed by
conversation, session and statement number) and taking the threshold that agrees best with them.

Splits: tune = conv-26, conv-30 (where the threshold was chosen); held out = conv-41, conv-42,
conv-43. Compression = produced summary tokens / tokens of the session's messages.
The data is CC BY-NC: read from --data, never copied into the repository.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.ai.factories import make_summarizer
from app.ai.local_embedder import LocalEmbedder
from app.ai.summarize.sentences import split_sentences
from app.ai.summarizer import Turn
from app.ai.tokenizer import Tokenizer
from app.config import Settings
from bench.locomo.data import DEFAULT_DATA, Conversation, load

TUNE = ("conv-26", "conv-30")
THRESHOLD = 0.72  # agrees best (0.86) with the 50 hand-checked pairs of the tune split
LABELS = Path(__file__).with_name("labels.json")
_LINE_LABEL = r"^(?:\[[0-9-]{10}\]\s)?(?:(?P<speaker>[^:\n]{1,64}):\s)?"


@dataclass
class Item:
    sample_id: str
    session: int
    statement: int
    gold: str
    best: str
    cosine: float


def produced_sentences(summary: str) -> list[str]:
    out: list[str] = []
    for line in summary.splitlines():
        m = re.match(_LINE_LABEL, line)
        speaker = m.group("speaker") if m else None
        body = line[m.end() :] if m else line
        out += [f"{speaker}: {s}" if speaker else s for s in split_sentences(body)]
    return out


async def run(
    data: Path,
    raw_items: list[dict[str, Any]],
    threshold: float,
    label: int,
    split_only: str = "all",
    judge_backend: str | None = None,
) -> None:
    settings = Settings()
    tok = Tokenizer(settings.tokenizer)
    embedder = LocalEmbedder(settings)
    embedder.load()
    judge = embedder
    if judge_backend is not None and judge_backend != settings.local_embedder_backend:
        judge = LocalEmbedder(settings.model_copy(update={"local_embedder_backend": judge_backend}))
        judge.load()
    summarizer = make_summarizer(settings, embedder=embedder, tokenizer=tok)
    rows: dict[str, list[tuple[float, float, int, int]]] = {"tune": [], "held-out": []}
    items: list[Item] = []
    convs: list[Conversation] = load(data)
    raw = {c["sample_id"]: c for c in raw_items}
    for conv in convs:
        split = "tune" if conv.sample_id in TUNE else "held-out"
        if split_only not in ("all", split):
            continue
        gold_all = raw[conv.sample_id]["session_summary"]
        for s in conv.sessions:
            gold_text = gold_all.get(f"session_{s.number}_summary")
            if not gold_text:
                continue
            turns = [
                Turn(i + 1, "user" if t.speaker == conv.speaker_a else "assistant", t.speaker, t.text, s.date)
                for i, t in enumerate(s.turns)
            ]
            covered_tokens = sum(tok.count(t.content) for t in turns)
            summary = await summarizer.summarize(
                previous=None, turns=turns, max_tokens=settings.summary_max_tokens
            )
            gold = split_sentences(gold_text)
            produced = produced_sentences(summary)
            if not produced:
                rows[split].append((0.0, tok.count(summary) / covered_tokens, len(gold), 0))
                continue
            g = np.asarray(await judge.embed(gold))
            p = np.asarray(await judge.embed(produced))
            sims = g @ p.T
            best = sims.max(axis=1)
            hits = int((best >= threshold).sum())
            rows[split].append((hits / len(gold), tok.count(summary) / covered_tokens, len(gold), hits))
            for k, sentence in enumerate(gold):
                j = int(sims[k].argmax())
                items.append(Item(conv.sample_id, s.number, k, sentence, produced[j], float(best[k])))
    print(f"summariser {summarizer.name} on {embedder.name}, judge {judge.name}, threshold {threshold}")
    print(
        "| split | sessions | gold statements | covered | coverage (micro) | coverage (mean) "
        "| compression median | p90 | max |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for split, r in rows.items():
        if not r:
            continue
        ratios = sorted(x[1] for x in r)
        n_gold = sum(x[2] for x in r)
        n_hit = sum(x[3] for x in r)
        print(
            f"| {split} | {len(r)} | {n_gold} | {n_hit} | {n_hit / n_gold:.3f} | "
            f"{statistics.mean(x[0] for x in r):.3f} | {statistics.median(ratios):.3f} | "
            f"{ratios[int(0.9 * (len(ratios) - 1))]:.3f} | {ratios[-1]:.3f} |"
        )
    labels = json.loads(LABELS.read_text()) if LABELS.exists() else {}
    judged = [
        (it, labels[key]) for it in items if (key := f"{it.sample_id}/{it.session}/{it.statement}") in labels
    ]
    if judged:
        best_t, best_agree = threshold, -1.0
        for t in np.arange(0.3, 0.9, 0.01):
            agree = sum((it.cosine >= t) == ok for it, ok in judged) / len(judged)
            if agree > best_agree + 1e-9:
                best_t, best_agree = float(t), agree
        here = sum((it.cosine >= threshold) == ok for it, ok in judged) / len(judged)
        print(
            f"hand-checked pairs: {len(judged)}; agreement at {threshold}: {here:.2f}; "
            f"best threshold on them {best_t:.2f} ({best_agree:.2f})"
        )
    if label:
        tune = [it for it in items if it.sample_id in TUNE]
        rng = np.random.default_rng(7)
        for i in sorted(rng.choice(len(tune), size=min(label, len(tune)), replace=False)):
            it = tune[int(i)]
            print(
                f"{it.sample_id}/{it.session}/{it.statement}\t{it.cosine:.3f}\t"
                f"GOLD: {it.gold}\n\t\tBEST: {it.best}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--threshold", type=float, default=THRESHOLD)
    ap.add_argument("--split", choices=["tune", "held-out", "all"], default="all")
    ap.add_argument("--label", type=int, default=0, help="print this many tune-split matches to judge")
    ap.add_argument(
        "--judge-backend",
        choices=["onnx", "onnx-int8-mixed", "onnx-int8", "torch"],
        help="the runtime that matches statements (default: the summariser's)",
    )
    args = ap.parse_args()
    raw = json.loads(Path(args.data).read_text())
    asyncio.run(run(args.data, raw, args.threshold, args.label, args.split, args.judge_backend))


if __name__ == "__main__":
    main()
