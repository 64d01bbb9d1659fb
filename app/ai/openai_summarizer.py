"""Summaries from any OpenAI-compatible chat completions endpoint (OpenAI, vLLM, Ollama, llama.cpp).

The prompt is a versioned file (prompts/summary_v1.md), so a change to it is a reviewed change of
behaviour. The model answers JSON; an answer that fails validation is asked for again, like an
unavailable endpoint, within the same `openai_max_attempts`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, StringConstraints, ValidationError
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

from app.ai.chat_prompt import load_prompt, render_turns, strip_fences
from app.ai.openai_client import RETRYABLE, make_client, retry_wait
from app.ai.summarize.sentences import truncate_to_tokens
from app.ai.summarizer import SummarizerOutputInvalid, SummarizerUnavailable, Turn
from app.ai.tokenizer import Tokenizer
from app.config import Settings

PROMPT = "summary_v1"
# Room for the JSON around the summary, and for a model whose tokenizer counts more than ours.
COMPLETION_TOKENS_FACTOR = 2
COMPLETION_TOKENS_EXTRA = 64


class _Output(BaseModel):
    summary: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class _Invalid(Exception):
    """An answer that fails validation: retried like an unavailable endpoint."""


def parse_summary(content: str | None) -> str:
    """The summary from a model's answer; raises _Invalid when it is not {"summary": "<text>"}."""
    text = strip_fences(content)
    try:
        return _Output.model_validate_json(text).summary
    except ValidationError as exc:
        raise _Invalid(f"{exc.error_count()} validation error(s): {text[:200]!r}") from exc


class OpenAISummarizer:
    def __init__(self, settings: Settings, *, tokenizer: Tokenizer) -> None:
        self._client = make_client(settings)
        self._model = settings.openai_chat_model
        self._attempts = settings.openai_max_attempts
        self._wait = retry_wait(settings)
        self._tokenizer = tokenizer
        self.name = f"openai/{self._model}"

    async def summarize(self, *, previous: str | None, turns: Sequence[Turn], max_tokens: int) -> str:
        if not any(t.content.strip() for t in turns):  # nothing new: no call
            return truncate_to_tokens(previous or "", max_tokens, self._tokenizer)
        prompt = load_prompt(PROMPT).substitute(
            previous=(previous or "").strip() or "(none yet)",
            turns=render_turns(turns),
            max_words=max(1, max_tokens * 3 // 4),  # ~0.75 English words per token
        )
        try:
            summary = await self._complete(prompt, max_tokens)
        except RETRYABLE as exc:
            raise SummarizerUnavailable(f"{type(exc).__name__}: {exc}") from exc
        except _Invalid as exc:
            raise SummarizerOutputInvalid(f"after {self._attempts} attempt(s): {exc}") from exc
        # Models overshoot word limits; the budget is ours, so it is enforced here.
        return truncate_to_tokens(summary, max_tokens, self._tokenizer)

    async def _complete(self, prompt: str, max_tokens: int) -> str:
        async for attempt in AsyncRetrying(
            retry=retry_if_exception_type((*RETRYABLE, _Invalid)),
            stop=stop_after_attempt(self._attempts),
            wait=self._wait,
            reraise=True,
        ):
            with attempt:
                resp = await self._client.chat.completions.create(
                    model=self._model,
                    messages=[{"role": "user", "content": prompt}],
                    response_format={"type": "json_object"},
                    temperature=0,
                    max_tokens=max_tokens * COMPLETION_TOKENS_FACTOR + COMPLETION_TOKENS_EXTRA,
                )
                if not resp.choices:
                    raise _Invalid("no choices in the answer")
                return parse_summary(resp.choices[0].message.content)
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        await self._client.close()
