"""The one way Engram builds a client for an OpenAI-compatible endpoint (embeddings, chat)."""

from __future__ import annotations

import openai
from tenacity import wait_exponential_jitter
from tenacity.wait import wait_base

from app.config import Settings

# Worth another try: the endpoint is down, slow or refusing for now (not a bad request).
RETRYABLE = (
    openai.APIConnectionError,
    openai.APITimeoutError,
    openai.RateLimitError,
    openai.InternalServerError,
)


def make_client(settings: Settings) -> openai.AsyncOpenAI:
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "not-needed"
    return openai.AsyncOpenAI(
        base_url=settings.openai_base_url,
        api_key=key,
        timeout=settings.openai_timeout_seconds,
        max_retries=0,  # callers own retries (tenacity), with jittered backoff
    )


def retry_wait(settings: Settings) -> wait_base:
    """The wait between tries of a model call: exponential with jitter, from
    ENGRAM_OPENAI_BACKOFF_SECONDS (default 0.2 s doubling up to 10 s, jitter up to 1 s)."""
    first = settings.openai_backoff_seconds
    return wait_exponential_jitter(initial=first, max=10, jitter=5 * first)
