"""Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, Ollama, llama.cpp, TEI...)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import openai
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

from app.ai.embedder import EmbedderUnavailable, Vectors
from app.ai.openai_client import RETRYABLE, make_client, retry_wait
from app.config import Settings


class OpenAIEmbedder:
    def __init__(self, settings: Settings) -> None:
        self._client = make_client(settings)
        self._model = settings.openai_embedding_model
        self._send_dimensions = settings.openai_send_dimensions
        self._batch = settings.openai_embedding_batch
        self._attempts = settings.openai_max_attempts
        self._wait = retry_wait(settings)
        self.dim = settings.embedding_dim
        self.name = f"openai/{self._model}"

    async def start(self) -> None:
        """Nothing to load: the endpoint is checked by the first call."""

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            parts = [
                await self._call(list(texts[i : i + self._batch])) for i in range(0, len(texts), self._batch)
            ]
        except RETRYABLE as exc:
            raise EmbedderUnavailable(f"{type(exc).__name__}: {exc}") from exc
        vectors = np.concatenate(parts).astype(np.float32)
        if vectors.shape[1] != self.dim:
            raise ValueError(
                f"the endpoint returned {vectors.shape[1]}-dimensional vectors; "
                f"ENGRAM_EMBEDDING_DIM is {self.dim}"
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit: Vectors = (vectors / np.clip(norms, 1e-12, None)).astype(np.float32)
        return unit

    async def _call(self, batch: list[str]) -> Vectors:
        async for attempt in AsyncRetrying(
            retry=retry_if_exception_type(RETRYABLE),
            stop=stop_after_attempt(self._attempts),
            wait=self._wait,
            reraise=True,
        ):
            with attempt:
                resp = await self._client.embeddings.create(
                    model=self._model,
                    input=batch,
                    dimensions=self.dim if self._send_dimensions else openai.omit,
                )
                data = sorted(resp.data, key=lambda d: d.index)
                return np.array([d.embedding for d in data], dtype=np.float32)
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        await self._client.close()
