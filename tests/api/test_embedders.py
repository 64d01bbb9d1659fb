"""Embedders: the local model's runtimes agree; the OpenAI-compatible client against a real
HTTP server speaking the wire format (good, rate-limited, failing, slow, malformed answers)."""

from __future__ import annotations

import numpy as np
import pytest

from app.ai.embedder import EmbedderMismatch, EmbedderUnavailable
from app.ai.local_embedder import LocalEmbedder
from app.ai.openai_embedder import OpenAIEmbedder
from app.config import Settings
from app.db.embedded import EmbeddedPostgres
from app.runtime import start_embedder
from tests.support.db import create_database, engine_for
from tests.support.openai_stub import Script, fake_vector, serve

TEXTS = [
    "I moved to Lisbon last week.",
    "My sister Ana is a nurse.",
    "Remind me to buy oat milk.",
    "The quarterly report is due on the 3rd of December, please don't forget to send it.",
    "ok",
]


@pytest.mark.slow
async def test_local_runtimes_agree_with_the_reference() -> None:
    reference = await LocalEmbedder(Settings(local_embedder_backend="torch")).embed(TEXTS)
    # int8 activations are quantised per batch, so a short text padded beside a long one moves a
    # little; the recall benchmark shows what that costs in retrieval.
    for backend, floor in (("onnx", 0.9999), ("onnx-int8-mixed", 0.95), ("onnx-int8", 0.95)):
        vectors = await LocalEmbedder(Settings(local_embedder_backend=backend)).embed(TEXTS)
        assert vectors.shape == (len(TEXTS), 384)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-4)
        assert np.min(np.sum(vectors * reference, axis=1)) > floor, backend


async def test_local_embedder_handles_any_input() -> None:
    local = LocalEmbedder(Settings())
    out = await local.embed(["", " ", "日本語のテキスト", "emoji 🎉" * 500, "x" * 100_000])
    assert out.shape == (5, 384) and np.isfinite(out).all()
    assert (await local.embed([])).shape == (0, 384)


def _openai(base_url: str, **extra: object) -> OpenAIEmbedder:
    values: dict[str, object] = {
        "embedder": "openai",
        "openai_base_url": base_url,
        "openai_api_key": "sk-test",
        "openai_embedding_batch": 2,
        "openai_max_attempts": 3,
        "openai_backoff_seconds": 0.01,  # the retries, not the production waits
        "openai_timeout_seconds": 2,
    }
    return OpenAIEmbedder(Settings(**{**values, **extra}))  # type: ignore[arg-type]


async def test_openai_embedder_batches_orders_and_normalises() -> None:
    script = Script()
    with serve(script) as url:
        embedder = _openai(url, openai_send_dimensions=True)
        out = await embedder.embed(TEXTS)
        await embedder.aclose()
    assert out.shape == (5, 384)
    expected = np.array([fake_vector(t, 384) for t in TEXTS], dtype=np.float32)
    assert np.allclose(out, expected, atol=1e-5)  # indices honoured although answered reversed
    assert [len(r["body"]["input"]) for r in script.requests] == [2, 2, 1]
    assert all(r["auth"] == "Bearer sk-test" for r in script.requests)
    assert all(r["body"]["dimensions"] == 384 for r in script.requests)


async def test_openai_embedder_retries_rate_limits_with_backoff() -> None:
    script = Script(fail_with=429, failures=2)
    with serve(script) as url:
        embedder = _openai(url)
        out = await embedder.embed(TEXTS[:2])
        await embedder.aclose()
    assert out.shape == (2, 384)
    assert len(script.requests) == 3


# The stall outlasts the client's timeout five times over (a 2 s timeout against a 3 s stall took
# three tries of 2 s each, plus the stub's shutdown behind the last stalled request).
@pytest.mark.parametrize(
    ("script", "client_timeout"),
    [(Script(fail_with=500, failures=99), 2.0), (Script(stall_seconds=1.5), 0.3)],
)
async def test_openai_embedder_gives_up_as_unavailable(script: Script, client_timeout: float) -> None:
    with serve(script) as url:
        embedder = _openai(url, openai_timeout_seconds=client_timeout)
        with pytest.raises(EmbedderUnavailable):
            await embedder.embed(TEXTS[:1])
        await embedder.aclose()
    assert len(script.requests) == 3  # openai_max_attempts


async def test_openai_embedder_rejects_malformed_and_wrong_dimensions() -> None:
    for script in (Script(malformed=True), Script(dim=8)):
        with serve(script) as url:
            embedder = _openai(url)
            with pytest.raises(Exception) as info:
                await embedder.embed(TEXTS[:1])
            await embedder.aclose()
        assert not isinstance(info.value, EmbedderUnavailable)


async def test_a_dimension_mismatch_stops_the_start(pg: EmbeddedPostgres) -> None:
    url = await create_database(pg)  # installed with vector(384)
    engine = engine_for(url)
    try:
        with pytest.raises(EmbedderMismatch, match="vector\\(384\\)"):
            await start_embedder(
                Settings(embedder="openai", embedding_dim=1536, openai_base_url="http://x"), engine
            )
    finally:
        await engine.dispose()


async def test_the_default_model_keeps_its_word_table_in_half_precision() -> None:
    """The word-embedding table is three quarters of the model: in fp16 it is 22 MB less in every
    process that loads it, and the vectors stay as close to fp32's (the test above)."""
    import onnx

    from app.ai.local_embedder import ONNX_VARIANTS, packaged_model_dir
    from app.ai.onnx_export import WORD_TABLE, ensure_onnx

    settings = Settings()
    path = ensure_onnx(
        packaged_model_dir(),
        settings.model_cache_dir or settings.data_dir / "models",
        variant=ONNX_VARIANTS[settings.local_embedder_backend],
    )
    graph = onnx.load(str(path)).graph
    tables = [t for t in graph.initializer if WORD_TABLE in t.name]
    assert [(tuple(t.dims), t.data_type) for t in tables] == [((30522, 384), onnx.TensorProto.FLOAT16)]
    vectors = await LocalEmbedder(settings).embed(TEXTS)
    assert vectors.dtype == np.float32 and np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-4)


async def test_a_batch_hands_its_buffers_back_and_a_query_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """After a batch's last model call the arena shrinks and the C heap is trimmed (~22 MB of the
    worker's memory between batches); a single text, a search's query, skips both, and the vectors
    are the same either way."""
    import app.ai.local_embedder as module

    local = LocalEmbedder(Settings())
    local.load()
    calls: list[object] = []
    trims: list[None] = []
    run = local._session.run

    def recorded(out: object, feeds: object, opts: object = None) -> object:
        calls.append(opts)
        return run(out, feeds, opts)

    monkeypatch.setattr(local._session, "run", recorded)
    monkeypatch.setattr(module, "trim_c_heap", lambda: trims.append(None))
    texts = [f"{t} ({n})" + " and more" * (n * 7) for n, t in enumerate(TEXTS * 8)]  # several calls
    batch = await local.embed(texts)
    assert len(calls) > 1 and calls[:-1] == [None] * (len(calls) - 1)
    assert calls[-1] is local._release and len(trims) == 1
    calls.clear()
    alone = await local.embed(texts[:1])
    assert calls == [None] and len(trims) == 1
    assert np.allclose(alone[0], (await local.embed(texts[:1]))[0])
    monkeypatch.setattr(local, "_release", None)
    assert np.array_equal(batch, await local.embed(texts))
