"""The API process's query embedder over its own model (app/ai/batcher.py): concurrent queries go
to the model together, one call at a time, each caller gets its own rows, errors reach every
caller of the failed call, and a caller that leaves does not disturb the others."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from app.ai.batcher import BatchedEmbedder
from app.ai.model_gate import ModelGate
from tests.unit.test_shared_embedder import CountingModel


async def _ready(model: CountingModel) -> BatchedEmbedder:
    gate = ModelGate(model, exporting=False)
    await gate.start()
    return BatchedEmbedder(gate)


async def test_concurrent_queries_share_model_calls_and_get_their_own_rows() -> None:
    model = CountingModel(delay=0.05)
    embedder = await _ready(model)
    running = asyncio.ensure_future(embedder.embed(["first"]))
    await asyncio.sleep(0.01)  # the model is busy with it
    texts = [["a" * n] for n in range(1, 17)] + [["x", "yy", "zzz"]]
    results = await asyncio.gather(*(embedder.embed(t) for t in texts))
    # The 17 callers who arrived while a call ran went together in the next one.
    assert model.calls == [1, 19]
    assert (await running)[0, 0] == 5
    for sent, got in zip(texts, results, strict=True):
        assert got.shape == (len(sent), model.dim)
        assert list(got[:, 0]) == [len(t) for t in sent]
    assert await embedder.readiness() == "ok"


async def test_a_failed_call_fails_its_callers_and_the_next_call_goes_on() -> None:
    model = CountingModel(delay=0.05)
    embedder = await _ready(model)
    real = model.embed
    failures = 1

    async def flaky(texts: list[str]) -> np.ndarray:
        nonlocal failures
        if failures:
            failures -= 1
            await asyncio.sleep(0.05)
            raise RuntimeError("model fell over")
        return await real(texts)

    model.embed = flaky  # type: ignore[method-assign,assignment]
    first = asyncio.ensure_future(embedder.embed(["one"]))
    await asyncio.sleep(0.01)
    second = asyncio.ensure_future(embedder.embed(["two"]))
    with pytest.raises(RuntimeError):
        await first
    assert (await second)[0, 0] == 3


async def test_a_caller_that_leaves_does_not_disturb_the_others() -> None:
    model = CountingModel(delay=0.05)
    embedder = await _ready(model)
    running = asyncio.ensure_future(embedder.embed(["first"]))
    await asyncio.sleep(0.01)
    gone = asyncio.ensure_future(embedder.embed(["gone"]))
    stays = asyncio.ensure_future(embedder.embed(["stays"]))
    await asyncio.sleep(0.01)
    gone.cancel()
    assert (await stays)[0, 0] == 5
    assert (await running)[0, 0] == 5
    assert gone.cancelled()
