"""Attributes of the worker's step spans in the OpenTelemetry GenAI semantic conventions
(`gen_ai.*`, semconv 1.x incubating). Those conventions have no memory-specific names yet; a
step's memory meaning is in `engram.step` (embed, summarize, extract, ...)."""

from __future__ import annotations

from app.config import Provider, Settings
from app.telemetry.tracing import Attributes

EMBEDDING_STEPS = ("embed", "embed_sentences", "embed_facts", "embed_summaries")
CHAT_STEPS = ("summarize", "extract")


def step_attributes(settings: Settings, *, model: str, dim: int) -> dict[str, Attributes]:
    """Per step kind: the GenAI operation and model it runs. `model`/`dim`: the embedder's."""
    embeddings: dict[str, str | int | float | bool] = {
        "gen_ai.operation.name": "embeddings",
        "gen_ai.request.model": model,
        "gen_ai.embeddings.dimension.count": dim,
    }
    if settings.embedder is Provider.openai:
        embeddings["gen_ai.provider.name"] = "openai"
    # The local summariser and fact rules are no language model: only a chat model is `chat`.
    chat: dict[str, str | int | float | bool] = (
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": settings.openai_chat_model,
        }
        if settings.llm is Provider.openai
        else {"engram.llm": "local"}
    )
    return {
        **{kind: embeddings for kind in EMBEDDING_STEPS},
        **{kind: chat for kind in CHAT_STEPS},
    }
