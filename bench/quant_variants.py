"""Quantised variants of the local model (all-MiniLM-L6-v2, same weights): speed and Recall@10.

    .venv/bin/python -m bench.quant_variants                         # every variant: speed + recall
    .venv/bin/python -m bench.quant_variants speed --variants fp32 int8 i8-ffn
    .venv/bin/python -m bench.quant_variants recall --variants fp32 i8-ffn --split tune
    .venv/bin/python -m bench.quant_variants recall --worker-batch 16  # the same, other batching
    .venv/bin/python -m bench.quant_variants speed --threads 2 --rounds 3 --variants int8 i8-x-fo01
    .venv/bin/python -m bench.quant_variants table                   # the table of all results so far

Each variant is built from the app's cached fp32 export (app/ai/onnx_export.py, under
.engram/models) into bench/results/quant-variants/<model fingerprint>/<variant>.onnx, once.

speed: every variant gets a session with ONE intra-op thread (the app's other session options:
no spinning, ORT_ENABLE_ALL), inside app.ai.local_embedder.LocalEmbedder, so tokenisation, the
sub-batching by length (<= 1024 padded tokens / <= 32 texts) and pooling are the app's. The same
~2,000 chat texts (bench/chat_text.py) go through encode() in calls of 128 texts (the worker's
batch), in alternation: a slice of 256 texts for each variant in turn (rotating who goes first),
round after round, so drift on a shared machine touches every variant alike. Reported: texts per
CPU-second (time.process_time of this process) and per wall second, the ratio to fp32, and the
rate estimated for the app's 2 threads (the ratio times FP32_2T_MPS, the fp32 raw rate measured
with 2 threads on this machine). Also each variant's vectors against fp32's on the same texts:
mean / 1st percentile / min cosine.

recall: bench/recall's evaluation with each variant's vectors: each split (tune, heldout) is
loaded once through the API into a template database (no worker); each variant gets a copy of it
(CREATE DATABASE ... TEMPLATE), the app's own worker embeds every message with the variant, then
every question is asked in the semantic and hybrid modes (keyword search reads no vector). The
app loads the variant through app.ai.onnx_export.ensure_onnx, replaced in this process only.
The embedded PostgreSQL lives in bench/results/quant-variants/pg (reused: a variant's database is
kept and re-asked only if its file changed; `--fresh` drops them).

Dynamic int8 quantises activations per model call, so a variant's vectors depend on which texts
share a call: `--worker-batch N` re-embeds with the worker's batch at N (a result key
`split@bN`). At this benchmark's size (625 / 621 questions, 0.16 points each) the same int8 file
scored -1.4 to -0.1 points of tune hybrid Recall@10 depending on batching alone, so compare
variants over several batchings (the second table), not on one run.

Results accumulate in bench/results/quant-variants/results.json (latest per variant and split);
the Markdown table is printed at the end of every command.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

import app.ai.onnx_export as onnx_export
from app.ai.local_embedder import LocalEmbedder, packaged_model_dir
from app.config import Settings
from bench.chat_text import chat_messages

ROOT = Path(__file__).resolve().parents[1]

MODEL_CACHE = ROOT / ".engram" / "models"  # the app's exported fp32 / int8 files (as bench/indexing.py)
OUT = ROOT / "bench" / "results" / "quant-variants"
RESULTS = OUT / "results.json"
RECIPES_VERSION = "1"  # bump when a recipe below changes, so variant files are rebuilt
FP32_2T_MPS = 299.0  # raw fp32 (`onnx`) with the app's 2 threads on this machine (int8: 594)
TARGET_MPS = 400.0
MAX_DROP = 1.0  # points of Recall@10 a faster runtime may lose against fp32
WORKER_BATCH = 128  # texts per encode() call, as the worker's default batch
SLICE = 256  # texts per turn in the alternation
LAYERS = 6

Builder = Callable[[Path, Path], None]  # (fp32 source, target)


# --- recipes ------------------------------------------------------------------------------------


def matmuls(src: Path, keep: Callable[[str], bool]) -> list[str]:
    """Names of the MatMul nodes with a constant weight (the Linear layers) that `keep` accepts."""
    import onnx

    model = onnx.load(str(src))
    consts = {i.name for i in model.graph.initializer}
    return [
        n.name for n in model.graph.node if n.op_type == "MatMul" and n.input[1] in consts and keep(n.name)
    ]


def layer_of(name: str) -> int:
    part = name.split("/layer.")[1]
    return int(part.split("/")[0])


def is_ffn(name: str) -> bool:
    return is_ffn_in(name) or is_ffn_out(name)


def is_ffn_in(name: str) -> bool:
    return "/intermediate/dense/" in name


def is_ffn_out(name: str) -> bool:
    return "/output/dense/" in name and "/attention/" not in name


def dynamic(
    keep: Callable[[str], bool] | None = None,
    *,
    per_channel: bool = True,
    reduce_range: bool = False,
    gather: bool = False,
) -> Builder:
    """quantize_dynamic (int8 weights, uint8 activations quantised per call) of the chosen MatMuls."""

    def build(src: Path, dst: Path) -> None:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        nodes = matmuls(src, keep) if keep is not None else None
        quantize_dynamic(
            str(src),
            str(dst),
            op_types_to_quantize=["MatMul", "Gather"] if gather else ["MatMul"],
            per_channel=per_channel,
            reduce_range=reduce_range,
            weight_type=QuantType.QInt8,
            nodes_to_quantize=nodes,
        )

    return build


def nbits(
    bits: int,
    block: int,
    *,
    accuracy_level: int | None = 4,
    symmetric: bool = False,
    keep: Callable[[str], bool] | None = None,
) -> Builder:
    """MatMulNBits (com.microsoft): weights in `bits` bits per block of `block` inputs, per output
    column; accuracy_level 4 computes in int8 with the activations quantised per block of each row
    (not per tensor and call, as dynamic quantisation does). What onnxruntime's MatMulNBitsQuantizer
    writes, built here with the same C++ quantiser (that module needs onnx_ir, not installed)."""

    def build(src: Path, dst: Path) -> None:
        import onnx
        from onnx import helper, numpy_helper
        from onnxruntime.capi import _pybind_state as ortc

        model = onnx.load(str(src))
        names = set(matmuls(src, keep or (lambda _n: True)))
        inits = {i.name: i for i in model.graph.initializer}
        quantise = {8: ortc.quantize_matmul_8bits, 4: ortc.quantize_matmul_4bits}[bits]
        kpack = 8 // bits
        nodes = []
        dropped: set[str] = set()
        for node in model.graph.node:
            if node.name not in names:
                nodes.append(node)
                continue
            w = numpy_helper.to_array(inits[node.input[1]]).astype(np.float32)
            rows, cols = w.shape
            k_blocks = (rows + block - 1) // block
            pad = k_blocks * block - rows
            if pad:
                w = np.pad(w, ((0, pad), (0, 0)))
            packed = np.zeros((cols, k_blocks, (block + kpack - 1) // kpack), dtype=np.uint8)
            zp = np.zeros((cols, (k_blocks + kpack - 1) // kpack), dtype=np.uint8)
            scales = np.zeros((cols, k_blocks), dtype=np.float32)
            quantise(packed, np.ascontiguousarray(w), scales, zp, block, cols, rows, symmetric)
            base = node.input[1]
            tensors = [
                numpy_helper.from_array(packed, f"{base}_Q{bits}"),
                numpy_helper.from_array(scales, f"{base}_scales"),
            ]
            if not symmetric:
                tensors.append(numpy_helper.from_array(zp, f"{base}_zp"))
            model.graph.initializer.extend(tensors)
            attrs: dict[str, Any] = {"K": rows, "N": cols, "bits": bits, "block_size": block}
            if accuracy_level:
                attrs["accuracy_level"] = accuracy_level
            nodes.append(
                helper.make_node(
                    "MatMulNBits",
                    [node.input[0], *(t.name for t in tensors)],
                    list(node.output),
                    name=f"{node.name}_Q{bits}",
                    domain="com.microsoft",
                    **attrs,
                )
            )
            dropped.add(base)
        del model.graph.node[:]
        model.graph.node.extend(nodes)
        used = {i for n in model.graph.node for i in n.input}
        keep_inits = [i for i in model.graph.initializer if i.name not in dropped or i.name in used]
        del model.graph.initializer[:]
        model.graph.initializer.extend(keep_inits)
        if not any(o.domain == "com.microsoft" for o in model.opset_import):
            model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
        onnx.save(model, str(dst))

    return build


def static(keep: Callable[[str], bool] | None = None) -> Builder:
    """quantize_static, QDQ: int8 per-channel weights, uint8 activations with fixed (MinMax) ranges
    calibrated on 512 other chat texts, run in the app's sub-batches."""

    def build(src: Path, dst: Path) -> None:
        from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
        from tokenizers import Tokenizer

        from app.ai.local_embedder import MAX_TOKENS, sub_batches

        tok = Tokenizer.from_file(str(packaged_model_dir() / "tokenizer.json"))
        tok.enable_truncation(MAX_TOKENS)
        tok.no_padding()
        ids = [e.ids for e in tok.encode_batch([m["content"] for m in chat_messages(512, seed=99)])]

        class Reader(CalibrationDataReader):  # type: ignore[misc]
            def __init__(self) -> None:
                self.groups = iter(sub_batches([len(t) for t in ids]))

            def get_next(self) -> dict[str, np.ndarray] | None:
                idx = next(self.groups, None)
                if idx is None:
                    return None
                batch = np.zeros((len(idx), max(len(ids[i]) for i in idx)), dtype=np.int64)
                mask = np.zeros_like(batch)
                for row, i in enumerate(idx):
                    batch[row, : len(ids[i])] = ids[i]
                    mask[row, : len(ids[i])] = 1
                return {"input_ids": batch, "attention_mask": mask, "token_type_ids": np.zeros_like(batch)}

        quantize_static(
            str(src),
            str(dst),
            Reader(),
            quant_format=QuantFormat.QDQ,
            op_types_to_quantize=["MatMul"],
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            nodes_to_quantize=matmuls(src, keep or (lambda _n: True)),
            extra_options={"MatMulConstBOnly": True},
        )

    return build


def fused(src: Path, dst: Path) -> None:
    """onnxruntime.transformers' BERT fusions (Attention, SkipLayerNormalization, BiasGelu), fp32."""
    from onnxruntime.transformers.optimizer import optimize_model

    optimize_model(
        str(src), model_type="bert", num_heads=12, hidden_size=384, opt_level=0
    ).save_model_to_file(str(dst))


@dataclass(frozen=True)
class Variant:
    name: str
    what: str
    build: Builder | None  # None: the app's own file (ensure_onnx)
    recall: bool = False  # in the default recall run (the others are too slow or too far from fp32)


VARIANTS: list[Variant] = [
    Variant("fp32", "the app's `onnx` export (the reference)", None, recall=True),
    Variant(
        "int8", "the app's `onnx-int8`: dynamic, per-channel, MatMul + Gather (embeddings)", None, recall=True
    ),
    Variant("i8-mm", "dynamic per-channel, the 36 Linear MatMuls; embeddings fp32", dynamic(), recall=True),
    Variant("i8-mm-pt", "as i8-mm, per-tensor weight scales", dynamic(per_channel=False)),
    Variant("i8-mm-rr", "as i8-mm, reduce_range (7-bit weights)", dynamic(reduce_range=True)),
    Variant("i8-ffn", "dynamic per-channel, the 12 FFN MatMuls only", dynamic(is_ffn)),
    Variant("i8-ffn-in", "dynamic per-channel, the 6 FFN input MatMuls (384->1536) only", dynamic(is_ffn_in)),
    Variant(
        "i8-x-ffn-out",
        "dynamic per-channel, all Linear MatMuls but the 6 FFN outputs (1536->384)",
        dynamic(lambda n: not is_ffn_out(n)),
        recall=True,
    ),
    Variant(
        "i8-mid",
        "dynamic per-channel, the Linear MatMuls of layers 1-4 (first and last layer fp32)",
        dynamic(lambda n: 0 < layer_of(n) < LAYERS - 1),
    ),
    Variant(
        "i8-x-fo0",
        "dynamic per-channel, all Linear MatMuls but layer 0's FFN output",
        dynamic(lambda n: not (is_ffn_out(n) and layer_of(n) == 0)),
    ),
    Variant(
        "i8-x-fo01",
        "dynamic per-channel, all Linear MatMuls but the FFN outputs of layers 0-1 (the patch's int8-mixed)",
        dynamic(lambda n: not (is_ffn_out(n) and layer_of(n) <= 1)),
        recall=True,
    ),
    Variant(
        "i8-x-fo012",
        "dynamic per-channel, all Linear MatMuls but the FFN outputs of layers 0-2",
        dynamic(lambda n: not (is_ffn_out(n) and layer_of(n) <= 2)),
        recall=True,
    ),
    Variant(
        "i8-x-f012",
        "dynamic per-channel, all Linear MatMuls but the FFNs (in and out) of layers 0-2",
        dynamic(lambda n: not (is_ffn(n) and layer_of(n) <= 2)),
        recall=True,
    ),
    Variant("n8-b32", "MatMulNBits 8-bit, block 32, int8 compute (accuracy_level 4)", nbits(8, 32)),
    Variant("n8-b128", "MatMulNBits 8-bit, block 128, int8 compute", nbits(8, 128)),
    Variant(
        "n8-b128-s", "MatMulNBits 8-bit, block 128, symmetric, int8 compute", nbits(8, 128, symmetric=True)
    ),
    Variant(
        "n8-b32-w",
        "MatMulNBits 8-bit, block 32, fp32 compute (weight-only)",
        nbits(8, 32, accuracy_level=None),
    ),
    Variant("n4-b32", "MatMulNBits 4-bit, block 32, int8 compute", nbits(4, 32)),
    Variant(
        "st-mm", "static QDQ, per-channel weights, MinMax-calibrated activations, 36 Linear MatMuls", static()
    ),
    Variant("fp32-fused", "fp32 with onnxruntime.transformers' BERT fusions", fused),
]
BY_NAME = {v.name: v for v in VARIANTS}


def variant_path(v: Variant) -> Path:
    model_dir = packaged_model_dir()
    if v.build is None:
        return onnx_export.ensure_onnx(model_dir, MODEL_CACHE, variant="int8" if v.name == "int8" else "fp32")
    fp32 = onnx_export.ensure_onnx(model_dir, MODEL_CACHE, variant="fp32")
    target = OUT / f"{onnx_export.model_fingerprint(model_dir)}-r{RECIPES_VERSION}" / f"{v.name}.onnx"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".tmp")
        t0 = time.perf_counter()
        v.build(fp32, tmp)
        os.replace(tmp, target)
        say(f"built {target.name} in {time.perf_counter() - t0:.0f} s")
    return target


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:8]


@contextlib.contextmanager
def serving(path: Path) -> Iterator[None]:
    """LocalEmbedder (backend `onnx`) loads `path` instead of the app's export, in this process."""
    original = onnx_export.ensure_onnx

    def ensure(model_dir: Path, cache_dir: Path, *, variant: onnx_export.Variant = "fp32") -> Path:
        return path

    onnx_export.ensure_onnx = ensure
    try:
        yield
    finally:
        onnx_export.ensure_onnx = original


def say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --- speed --------------------------------------------------------------------------------------


def speed(names: Sequence[str], n_texts: int, rounds: int, threads: int = 1) -> dict[str, dict[str, Any]]:
    texts = [m["content"] for m in chat_messages(n_texts, seed=11)]
    embedders: dict[str, LocalEmbedder] = {}
    for name in names:
        path = variant_path(BY_NAME[name])
        emb = LocalEmbedder(
            Settings(local_embedder_backend="onnx", embedder_threads=threads, model_cache_dir=MODEL_CACHE)
        )
        with serving(path):
            emb.load()
        emb.encode(texts[:WORKER_BATCH])  # warm-up
        embedders[name] = emb
    cpu = dict.fromkeys(names, 0.0)
    wall = dict.fromkeys(names, 0.0)
    vectors: dict[str, np.ndarray] = {n: np.zeros((len(texts), 384), dtype=np.float32) for n in names}
    slices = [range(i, min(i + SLICE, len(texts))) for i in range(0, len(texts), SLICE)]
    turn = 0
    for r in range(rounds):
        for sl in slices:
            order = list(names[turn % len(names) :]) + list(names[: turn % len(names)])
            turn += 1
            for name in order:
                emb = embedders[name]
                c0, w0 = time.process_time(), time.perf_counter()
                out = [
                    emb.encode(texts[i : i + WORKER_BATCH]) for i in range(sl.start, sl.stop, WORKER_BATCH)
                ]
                cpu[name] += time.process_time() - c0
                wall[name] += time.perf_counter() - w0
                if r == 0:
                    vectors[name][sl.start : sl.stop] = np.concatenate(out)
        say(
            f"round {r + 1}/{rounds}: " + ", ".join(f"{n} {len(texts) * (r + 1) / cpu[n]:.0f}" for n in names)
        )
    total = len(texts) * rounds
    res: dict[str, dict[str, Any]] = {}
    ref = vectors.get("fp32")
    for name in names:
        row: dict[str, Any] = {
            "texts": total,
            "cpu_s": round(cpu[name], 2),
            "wall_s": round(wall[name], 2),
            "texts_per_cpu_s": round(total / cpu[name], 1),
            "texts_per_wall_s": round(total / wall[name], 1),
            "file_mb": round(variant_path(BY_NAME[name]).stat().st_size / 1e6, 1),
            "at": now(),
        }
        if ref is not None:
            cos = np.sum(vectors[name] * ref, axis=1)
            row["cos_mean"] = round(float(cos.mean()), 5)
            row["cos_p1"] = round(float(np.percentile(cos, 1)), 5)
            row["cos_min"] = round(float(cos.min()), 5)
        res[name] = row
    if "fp32" in res:
        base = res["fp32"]["texts_per_cpu_s"]
        for row in res.values():
            row["ratio"] = round(row["texts_per_cpu_s"] / base, 3)
    return res


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- recall -------------------------------------------------------------------------------------


def recall_module() -> ModuleType:
    """bench/recall/run.py, imported when first needed (it loads the recall set's generator)."""
    import bench.recall.run

    return bench.recall.run


async def admin(admin_url: str, sql: str) -> None:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    from app.db.engine import async_url

    engine = create_async_engine(async_url(admin_url), isolation_level="AUTOCOMMIT")
    async with engine.connect() as conn:
        await conn.execute(text(sql))
    await engine.dispose()


async def db_exists(admin_url: str, name: str) -> bool:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    from app.db.engine import async_url

    engine = create_async_engine(async_url(admin_url))
    async with engine.connect() as conn:
        row = (await conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})).first()
    await engine.dispose()
    return row is not None


async def recall_split(
    admin_url: str, split: str, names: Sequence[str], fresh: bool, batch: int
) -> dict[str, dict[str, Any]]:
    rr = recall_module()
    data: dict[str, Any] = rr.generate(rr.SPLITS[split], split, 20, 20)
    digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:10]
    total = sum(len(s["messages"]) for u in data["users"] for s in u["sessions"])
    base = f"qv_{split}_{digest}_base"
    base_url, existed = await rr.database(admin_url, base)
    have = (await rr.loaded_count(base_url))[0] if existed else 0
    if have not in (0, total):
        raise RuntimeError(f"template {base} holds {have} messages, expected {total}: drop it")
    if have == 0:  # the messages only: the worker is off, so every copy starts with all pending
        say(f"== {split}: loading {total} messages into the template database")
        settings = rr.settings_for(base_url, "onnx", {}).model_copy(update={"run_worker": False})
        t0 = time.perf_counter()
        async with rr.api_for(settings) as api:
            await rr.load(api, data)
        say(f"   loaded in {time.perf_counter() - t0:.0f} s")
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        path = variant_path(BY_NAME[name])
        fd = file_digest(path)
        suffix = "" if batch == WORKER_BATCH else f"_b{batch}"
        db = f"qv_{split[:4]}_{digest[:6]}_{name.replace('-', '_')}_{fd}{suffix}"
        exists = await db_exists(admin_url, db)
        url = base_url.replace(f"/{base}?", f"/{db}?")
        if exists and (fresh or (await rr.loaded_count(url))[1] != total):
            await admin(admin_url, f'DROP DATABASE "{db}"')
            exists = False
        if not exists:
            await admin(admin_url, f'CREATE DATABASE "{db}" TEMPLATE "{base}"')
        say(f"== {split} / {name} ({db})")
        settings = rr.settings_for(url, "onnx", {}).model_copy(update={"worker_batch_size": batch})
        with serving(path):
            async with rr.api_for(settings) as api:
                secs = await rr.wait_indexed(api, total)
                say(f"   indexed in {secs:.0f} s; asking {len(data['questions'])} questions")
                ranked, _ = await rr.ask_all(api, data["questions"], list(RECALL_MODES))
        per_q = {
            q["id"]: {m: rr.score_question(ranked[q["id"]][m], set(q["evidence"])) for m in RECALL_MODES}
            for q in data["questions"]
        }
        row: dict[str, Any] = {
            m: rr.aggregate([per_q[q["id"]][m] for q in data["questions"]]) for m in RECALL_MODES
        }
        row["rank"] = {qid: {m: int(v["rank"]) for m, v in by_mode.items()} for qid, by_mode in per_q.items()}
        row |= {"file": fd, "database": db, "embed_s": round(secs, 1), "at": now()}
        say("   " + ", ".join(f"{m} R@10 {row[m]['R@10']:.1f}" for m in RECALL_MODES))
        out[name] = row
    return out


RECALL_MODES = ("semantic", "hybrid")


async def recall(
    names: Sequence[str], splits: Sequence[str], fresh: bool, batch: int
) -> dict[str, dict[str, Any]]:
    """variant -> result key (the split; `split@bN` for another worker batch than 128) -> result."""
    from app.db.embedded import start_embedded
    from app.logging import configure_logging

    configure_logging("warning", json=False)
    server = await asyncio.to_thread(start_embedded, OUT / "pg")
    res: dict[str, dict[str, Any]] = {}
    try:
        for split in splits:
            key = split if batch == WORKER_BATCH else f"{split}@b{batch}"
            for name, row in (await recall_split(server.url, split, names, fresh, batch)).items():
                res.setdefault(name, {})[key] = row
    finally:
        server.stop()
    return res


# --- results ------------------------------------------------------------------------------------


def load_results() -> dict[str, Any]:
    if RESULTS.is_file():
        out: dict[str, Any] = json.loads(RESULTS.read_text())
        return out
    return {"speed": {}, "recall": {}}


def save_results(res: dict[str, Any]) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(res, indent=1))


def flips(rec: dict[str, Any], ref: dict[str, Any], mode: str) -> tuple[int, int]:
    """Questions lost / gained at Recall@10 against the reference."""
    lost = gained = 0
    for qid, r in rec["rank"].items():
        a = 0 < ref["rank"][qid][mode] <= 10
        b = 0 < r[mode] <= 10
        lost += a and not b
        gained += b and not a
    return lost, gained


def table(res: dict[str, Any]) -> str:
    sp, rc = res.get("speed", {}), res.get("recall", {})
    ref = rc.get("fp32", {})
    lines = [
        "| variant | texts/CPU-s | x fp32 | est. msg/s (2 thr) | wall texts/s | cos mean / p1 to fp32 "
        "| hybrid R@10 tune (Δ) | hybrid heldout (Δ) | semantic tune (Δ) | semantic heldout (Δ) "
        "| hybrid lost/gained | verdict |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for v in VARIANTS:
        s, r = sp.get(v.name), rc.get(v.name, {})
        if s is None and not r:
            continue
        cells = [f"`{v.name}`"]
        if s is not None:
            est = s["ratio"] * FP32_2T_MPS
            cos = f"{s['cos_mean']:.4f} / {s['cos_p1']:.4f}" if "cos_mean" in s else "-"
            cells += [
                f"{s['texts_per_cpu_s']:.0f}",
                f"{s['ratio']:.2f}",
                f"{est:.0f}",
                f"{s['texts_per_wall_s']:.0f}",
                cos,
            ]
        else:
            est = None
            cells += ["-"] * 5
        ok_quality: bool | None = None
        for mode in ("hybrid", "semantic"):
            for split in ("tune", "heldout"):
                if split not in r:
                    cells.append("-")
                    continue
                x = r[split][mode]["R@10"]
                if split in ref:
                    d = x - ref[split][mode]["R@10"]
                    cells.append(f"{x:.1f} ({d:+.1f})")
                    if split == "tune":
                        ok_quality = (ok_quality is not False) and d >= -MAX_DROP
                else:
                    cells.append(f"{x:.1f}")
        both = [(r[k], ref[k]) for k in ("tune", "heldout") if k in r and k in ref]
        if both:
            pairs = [flips(a, b, "hybrid") for a, b in both]
            cells.append(f"{sum(p[0] for p in pairs)} / {sum(p[1] for p in pairs)}")
        else:
            cells.append("-")
        if v.name == "fp32":
            verdict = "reference"
        else:
            fast = None if est is None else est >= TARGET_MPS
            parts = []
            if fast is not None:
                parts.append("fast" if fast else "slow")
            if ok_quality is not None:
                parts.append("recall ok" if ok_quality else "recall FAIL")
            verdict = ", ".join(parts) or "-"
            if fast and ok_quality:
                verdict = "**PASS**"
        cells.append(verdict)
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(
        f"est. msg/s = (texts/CPU-s / fp32's, in the same alternation) x {FP32_2T_MPS:.0f} (the raw fp32 "
        f"rate with the app's 2 threads); target {TARGET_MPS:.0f}. Recall passes if hybrid and semantic "
        f"Recall@10 on tune lose at most {MAX_DROP:.0f} point against fp32; lost/gained: hybrid hits at 10 "
        "against fp32, both splits."
    )
    lines.append("")
    for v in VARIANTS:
        if v.name in sp or v.name in rc:
            lines.append(f"- `{v.name}`: {v.what}")
    lines.append("")
    lines += batching_table(res)
    t2 = res.get("speed@t2", {})
    if t2:
        lines.append("")
        lines.append("Wall-clock check with the app's 2 threads (same alternation; a shared machine):")
        lines.append("")
        lines.append("| variant | texts/s (wall) | x fp32 | texts/CPU-s |")
        lines.append("|---|--:|--:|--:|")
        base = t2.get("fp32", {}).get("texts_per_wall_s")
        for v in VARIANTS:
            if v.name in t2:
                w = t2[v.name]["texts_per_wall_s"]
                ratio = f"{w / base:.2f}" if base else "-"
                lines.append(f"| `{v.name}` | {w:.0f} | {ratio} | {t2[v.name]['texts_per_cpu_s']:.0f} |")
    return "\n".join(lines)


def batching_table(res: dict[str, Any]) -> list[str]:
    """Recall@10 deltas against fp32 for every worker batch measured: dynamic quantisation scales
    activations per model call, so the same variant's vectors (and hits) move with the batching."""
    rc = res.get("recall", {})
    ref = rc.get("fp32", {})
    keys = sorted(
        {k for r in rc.values() for k in r if k in ref}, key=lambda k: (k.split("@")[0] != "tune", k)
    )
    if len(keys) <= 2:
        return []
    head = " | ".join(f"{k if '@' in k else k + '@b128'}" for k in keys)
    out = [
        "Hybrid / semantic Recall@10 minus fp32's, by split and worker batch (fp32 itself gives the same "
        "figures at every batch):",
        "",
        f"| variant | {head} | mean hybrid Δ tune | mean hybrid Δ all | mean semantic Δ all "
        "| hybrid lost / gained, all runs |",
        "|---|" + "--:|" * (len(keys) + 4),
    ]
    for v in VARIANTS:
        r = rc.get(v.name, {})
        if v.name == "fp32" or sum(k in r for k in keys) < 2:
            continue
        cells, dh, dh_tune, ds = [], [], [], []
        lost = gained = 0
        for k in keys:
            if k not in r:
                cells.append("-")
                continue
            fl = flips(r[k], ref[k], "hybrid")
            lost, gained = lost + fl[0], gained + fl[1]
            h = r[k]["hybrid"]["R@10"] - ref[k]["hybrid"]["R@10"]
            m = r[k]["semantic"]["R@10"] - ref[k]["semantic"]["R@10"]
            cells.append(f"{h:+.1f} / {m:+.1f}")
            dh.append(h)
            ds.append(m)
            if k.startswith("tune"):
                dh_tune.append(h)
        tune = f"{sum(dh_tune) / len(dh_tune):+.2f}" if dh_tune else "-"
        means = f"{tune} | {sum(dh) / len(dh):+.2f} | {sum(ds) / len(ds):+.2f} | {lost} / {gained}"
        out.append(f"| `{v.name}` | {' | '.join(cells)} | {means} |")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", nargs="?", default="all", choices=["all", "build", "speed", "recall", "table"])
    ap.add_argument(
        "--variants", nargs="+", choices=list(BY_NAME), help="default: all (recall: the marked ones)"
    )
    ap.add_argument("--texts", type=int, default=2048, help="speed: chat texts per round")
    ap.add_argument("--rounds", type=int, default=2, help="speed: passes over the texts")
    ap.add_argument(
        "--threads",
        type=int,
        default=1,
        help="speed: intra-op threads (1: the CPU-time comparison; 2: a wall-clock check, kept apart)",
    )
    ap.add_argument("--split", choices=["tune", "heldout", "both"], default="both")
    ap.add_argument("--fresh", action="store_true", help="recall: re-embed even if a database is kept")
    ap.add_argument(
        "--worker-batch",
        type=int,
        default=WORKER_BATCH,
        help="recall: the worker's batch (dynamic quantisation scales activations per model call, "
        "so a variant's vectors, and its recall, move with the batching)",
    )
    a = ap.parse_args(argv)
    res = load_results()
    if a.command == "build":
        for n in a.variants or list(BY_NAME):
            say(f"{n}: {variant_path(BY_NAME[n])}")
    if a.command in ("all", "speed"):
        names = list(a.variants or BY_NAME)
        if "fp32" not in names:
            names.insert(0, "fp32")  # the ratio needs the reference in the same alternation
        key = "speed" if a.threads == 1 else f"speed@t{a.threads}"
        res.setdefault(key, {}).update(speed(names, a.texts, a.rounds, a.threads))
        res["machine"] = {"python": platform.python_version(), "cpus": os.cpu_count()}
        save_results(res)
    if a.command in ("all", "recall"):
        names = list(a.variants or [v.name for v in VARIANTS if v.recall])
        if "fp32" not in names:
            names.insert(0, "fp32")
        splits = ["tune", "heldout"] if a.split == "both" else [a.split]
        for name, by_split in asyncio.run(recall(names, splits, a.fresh, a.worker_batch)).items():
            res["recall"].setdefault(name, {}).update(by_split)
        save_results(res)
    print(table(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
