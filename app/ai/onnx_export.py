"""One-time export of the packaged all-MiniLM-L6-v2 weights to ONNX (optionally int8), cached.

The same weights run 2-4x faster under onnxruntime with dynamic int8 quantisation than under
PyTorch on a small CPU. The export needs PyTorch once; later starts load the cached file only.

Variants of the fp32 export (dynamic int8: weights per output channel, activations per call):
`int8` quantises every Linear layer and the embedding tables; `int8-mixed` every Linear layer
but the feed-forward outputs (1536 -> 384) of the first two layers, whose inputs (GELU outputs)
lose the most to a per-call activation scale, and stores the word-embedding table (30,522 x 384,
three quarters of the file) in fp16, cast back to fp32 after the lookup: 22 MB less memory in
every process that loads the model, vectors as close to fp32's (cosine 0.9942 on average either
way) and the same CPU per text (docs/benchmarks.md, "Footprint, session 13").
On the 2-core box: fp32 1.0x, int8-mixed 1.8x, int8 2.0x the fp32 rate; cosine to fp32 0.995 vs
0.9925 (bench/quant_variants.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import fasteners

_log = logging.getLogger("engram.onnx")
EXPORT_VERSION = "2"  # bump when the export recipe changes, so caches are rebuilt
Variant = Literal["fp32", "int8", "int8-mixed"]
# A variant's recipe changes its suffix (int8-mixed's fp16 table: "-h"), not EXPORT_VERSION, which
# would make every install export the fp32 model from PyTorch again.
_SUFFIX: dict[str, str] = {"fp32": "", "int8": "-int8", "int8-mixed": "-int8-mixed-h"}
# int8-mixed keeps these layers' feed-forward output MatMuls in fp32: with layer 2's, the Linear
# layers that move the vectors most when quantised alone (bench/quant_variants.py). Keeping 2 of
# the 36 costs ~10 % of int8's speed and removes a third of its error (cosine to fp32 0.9949 vs 0.9925).
MIXED_FP32_FFN_OUT_LAYERS = (0, 1)
_FFN_OUT = re.compile(r"/layer\.(\d+)/output/dense/MatMul$")  # not .../attention/output/dense/...


def model_fingerprint(model_dir: Path) -> str:
    weights = model_dir / "model.safetensors"
    stat = weights.stat()
    return hashlib.sha256(f"{weights.name}:{stat.st_size}:{EXPORT_VERSION}".encode()).hexdigest()[:16]


def onnx_path(model_dir: Path, cache_dir: Path, *, variant: Variant = "fp32") -> Path:
    """Where the ONNX model for `model_dir` is cached (it may not exist yet)."""
    return cache_dir / f"minilm-{model_fingerprint(model_dir)}{_SUFFIX[variant]}.onnx"


def ensure_onnx(model_dir: Path, cache_dir: Path, *, variant: Variant = "fp32") -> Path:
    """Path of the ONNX model for `model_dir`, exporting it first if it is not cached."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    stem = f"minilm-{model_fingerprint(model_dir)}"
    target = onnx_path(model_dir, cache_dir, variant=variant)
    if target.is_file():
        return target
    # Several processes may start at once: one exports, the others wait and reuse its file.
    with fasteners.InterProcessLock(str(cache_dir / ".export.lock")):
        if target.is_file():
            return target
        fp32 = cache_dir / f"{stem}.onnx"
        if not fp32.is_file():
            _log.info("exporting %s to ONNX (once)", model_dir)
            _export(model_dir, fp32)
        if variant != "fp32":
            tmp = target.with_suffix(".tmp")
            _quantize(fp32, tmp, variant)
            os.replace(tmp, target)
    return target


class _QuantiserChatter(logging.Filter):
    """Drops the two lines onnxruntime's quantiser logs to the root logger on every export:
    "Please consider to run pre-processing before quantization" (shape inference and graph
    fusions for static, calibrated quantisation; dynamic quantisation of a transformer gains
    nothing from it, and bench/quant_variants.py measured these exact files) and one
    "Quantization parameters for tensor ... not specified" per tensor (expected: dynamic
    quantisation computes activation scales per call, so none are given)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        return not (
            message.startswith("Please consider to run pre-processing before quantization")
            or message.startswith("Quantization parameters for tensor")
        )


@contextlib.contextmanager
def _quiet_quantiser() -> Iterator[None]:
    root = logging.getLogger()  # onnxruntime.quantization logs with logging.info/warning
    chatter = _QuantiserChatter()
    root.addFilter(chatter)
    try:
        yield
    finally:
        root.removeFilter(chatter)


def _quantize(fp32: Path, out: Path, variant: Variant) -> None:
    with _quiet_quantiser():
        _quantize_dynamic(fp32, out, variant)


def _quantize_dynamic(fp32: Path, out: Path, variant: Variant) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # Per-channel scales keep int8 vectors within ~0.99 cosine of fp32 (per-tensor: ~0.96).
    if variant == "int8":
        quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8, per_channel=True)
        return
    quantize_dynamic(
        str(fp32),
        str(out),
        weight_type=QuantType.QInt8,
        per_channel=True,
        op_types_to_quantize=["MatMul"],  # not Gather: int8 embedding tables cost accuracy, save no time
        nodes_to_quantize=_mixed_nodes(fp32),
    )
    _half_word_table(out)


WORD_TABLE = "word_embeddings"


def _half_word_table(path: Path) -> None:
    """Store the word-embedding table in fp16 and cast each looked-up row back to fp32. Its 47 MB
    are the largest part of the loaded model, and fp16 keeps ~3 significant digits, far below
    int8's noise: the vectors stay as close to fp32's as before."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    tables = {i.name: i for i in graph.initializer if WORD_TABLE in i.name}
    nodes = [n for n in graph.node if n.op_type == "Gather" and n.input[0] in tables]
    if len(nodes) != 1:  # the exporter named the table differently
        raise RuntimeError(f"int8-mixed: expected one Gather of the {WORD_TABLE} table, found {len(nodes)}")
    gather = nodes[0]
    table = tables[gather.input[0]]
    half = numpy_helper.from_array(numpy_helper.to_array(table).astype(np.float16), f"{table.name}.fp16")
    graph.initializer.remove(table)
    graph.initializer.append(half)
    rows = gather.output[0]
    gather.input[0], gather.output[0] = half.name, f"{rows}.fp16"
    cast = helper.make_node(
        "Cast", [f"{rows}.fp16"], [rows], to=TensorProto.FLOAT, name=f"{gather.name}/Cast"
    )
    graph.node.insert(list(graph.node).index(gather) + 1, cast)
    onnx.save(model, str(path))


def _mixed_nodes(fp32: Path) -> list[str]:
    """The Linear layers (MatMul by a weight) that int8-mixed quantises: all but the kept ones."""
    import onnx

    model = onnx.load(str(fp32), load_external_data=False)
    weights = {i.name for i in model.graph.initializer}
    linear = [n.name for n in model.graph.node if n.op_type == "MatMul" and n.input[1] in weights]
    kept = [
        name
        for name in linear
        if (m := _FFN_OUT.search(name)) is not None and int(m.group(1)) in MIXED_FP32_FFN_OUT_LAYERS
    ]
    if len(kept) != len(MIXED_FP32_FFN_OUT_LAYERS):  # the exporter named the nodes differently
        raise RuntimeError(f"int8-mixed: expected FFN output MatMuls of layers {MIXED_FP32_FFN_OUT_LAYERS}")
    return [name for name in linear if name not in kept]


@contextlib.contextmanager
def _quiet_exporter() -> Iterator[None]:
    """Silences the tracer's and the exporter's warnings about this model, which are harmless:

    - TracerWarning "Converting a tensor to a Python boolean might cause the trace to be
      incorrect" (transformers' masking_utils: a key/value padding length that is 0 for every
      input of an encoder run without a cache, so the branch traced is the one always taken);
    - UserWarning "Exporting aten::index ... If indices include negative values, the exported
      graph will produce incorrect results" (the indices are token positions, never negative).

    tests/api/test_embedders.py checks the exported model's vectors against sentence-transformers'.
    """
    from transformers.utils import logging as hf_logging

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Converting a tensor to a Python boolean")
        warnings.filterwarnings("ignore", message=r"Exporting aten::index operator", category=UserWarning)
        # "Loading weights: 100%": a progress bar for a step of a fraction of a second.
        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        try:
            yield
        finally:
            hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]


def _export(model_dir: Path, out: Path) -> None:
    with _quiet_exporter():
        _export_onnx(model_dir, out)


def _export_onnx(model_dir: Path, out: Path) -> None:
    import torch
    from transformers import AutoModel

    class _Encoder(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(
            self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
        ) -> torch.Tensor:
            out = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return out.last_hidden_state  # type: ignore[no-any-return]

    # Eager attention traces to a plain graph; SDPA bakes trace-time mask shapes in.
    model = _Encoder(AutoModel.from_pretrained(str(model_dir), attn_implementation="eager")).eval()
    dummy = torch.ones(2, 16, dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    tmp = out.with_suffix(".tmp")
    with torch.no_grad():
        torch.onnx.export(
            model,
            (dummy, dummy, torch.zeros_like(dummy)),
            str(tmp),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={
                "input_ids": axes,
                "attention_mask": axes,
                "token_type_ids": axes,
                "last_hidden_state": axes,
            },
            opset_version=17,
            dynamo=False,
        )
    os.replace(tmp, out)
