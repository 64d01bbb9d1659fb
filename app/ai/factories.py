"""The model factories: which embedder, summariser and fact extractor the settings pick.

Apart from the protocols (embedder.py, summarizer.py, fact_extractor.py) so that a protocol module
never imports its implementations, which import it back. Each implementation is imported only
when chosen: an OpenAI-only deployment never loads the local model's runtime, and the reverse.
"""

from __future__ import annotations

from app.ai.embedder import Embedder
from app.ai.fact_extractor import FactExtractor
from app.ai.offload import Offload, in_thread, inline
from app.ai.summarizer import Summarizer
from app.ai.tokenizer import Tokenizer
from app.config import Provider, Settings


def make_embedder(settings: Settings) -> Embedder:
    if settings.embedder is Provider.openai:
        from app.ai.openai_embedder import OpenAIEmbedder

        return OpenAIEmbedder(settings)
    from app.ai.local_embedder import LocalEmbedder

    return LocalEmbedder(settings)


def make_summarizer(
    settings: Settings, *, embedder: Embedder, tokenizer: Tokenizer, offload: Offload = inline
) -> Summarizer:
    """`offload` runs the local summariser's CPU-heavy parts (app.ai.offload)."""
    if settings.llm is Provider.openai:
        from app.ai.openai_summarizer import OpenAISummarizer

        return OpenAISummarizer(settings, tokenizer=tokenizer)
    from app.ai.local_summarizer import LocalSummarizer

    return LocalSummarizer(
        embedder=embedder, tokenizer=tokenizer, ratio=settings.summary_max_ratio, offload=offload
    )


def make_fact_extractor(
    settings: Settings, *, embedder: Embedder, tokenizer: Tokenizer, offload: Offload = in_thread
) -> FactExtractor:
    """`offload` runs the local extractor's rules (app.ai.offload)."""
    if settings.llm is Provider.openai:
        from app.ai.openai_fact_extractor import OpenAIFactExtractor

        return OpenAIFactExtractor(settings, tokenizer=tokenizer)
    from app.ai.local_fact_extractor import LocalFactExtractor

    return LocalFactExtractor(offload=offload)
