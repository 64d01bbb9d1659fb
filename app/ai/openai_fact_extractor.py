"""Candidate facts from any OpenAI-compatible chat completions endpoint (OpenAI, vLLM, Ollama,
llama.cpp).

The prompt is a versioned file (prompts/facts_v1.md). The answer is asked for as strict JSON-schema
output; a server that refuses `json_schema` is asked for plain JSON mode from then on (the prompt
spells out the shape either way). A top-level answer of the wrong shape is asked for again, like an
unavailable endpoint, within `openai_max_attempts`; single facts that fail validation are dropped
and the rest kept, so one bad line does not cost the whole answer.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import openai
import structlog
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.chat.completion_create_params import ResponseFormat
from pydantic import BaseModel, ValidationError, field_validator
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

from app.ai.chat_prompt import load_prompt, render_turns, strip_fences
from app.ai.fact_extractor import (
    ExtractorOutputInvalid,
    ExtractorUnavailable,
    FactCandidate,
    FactKind,
    TurnRef,
    speaker_of,
)
from app.ai.openai_client import RETRYABLE, make_client, retry_wait
from app.ai.tokenizer import Tokenizer
from app.config import Settings

PROMPT = "facts_v1"
MAX_FACTS = 50  # per call; more is a model that lost the plot
MAX_CONTENT_CHARS = 500
MAX_SUBJECT_CHARS = 100  # longer is not a slot key; the fact is kept without a slot
MAX_TOPICS = 8
MAX_TOPIC_CHARS = 50
MAX_KNOWN_SUBJECTS = 300  # keeps the prompt bounded for users with very many facts
DEFAULT_IMPORTANCE = 0.5
MIN_YEAR = 1900  # an earlier stated date is a placeholder, not a fact's start
# The completion budget grows with what was said (~70 tokens of JSON per fact), capped so that a
# weak model stuck in a loop fails within the timeout instead of generating for minutes.
COMPLETION_TOKENS_BASE = 512
COMPLETION_TOKENS_FACTOR = 4
COMPLETION_TOKENS_MAX = 4096

_log = structlog.get_logger("engram.facts")
_KINDS = frozenset(k.value for k in FactKind)


class _Fact(BaseModel):
    """One fact as the model writes it: the source of the JSON schema sent, and read back leniently
    (a missing flag or a stray type is defaulted, not a reason to lose the fact)."""

    content: str
    kind: FactKind
    subject: str | None = None
    exclusive: bool = False
    negated: bool = False
    importance: float = DEFAULT_IMPORTANCE
    topics: list[str] = []
    valid_from: str | None = None  # YYYY-MM-DD when the user said when it started
    source_seqs: list[int]

    @field_validator("kind", mode="before")
    @classmethod
    def _unknown_kind_is_other(cls, v: object) -> object:
        # Plain JSON mode has no enum to hold the model to; "hobby" is still a fact about the user.
        text = v.strip().lower() if isinstance(v, str) else ""
        return text if text in _KINDS else FactKind.other

    @field_validator("subject", "valid_from", mode="before")
    @classmethod
    def _text_or_none(cls, v: object) -> object:
        return v if isinstance(v, str) else None

    @field_validator("exclusive", "negated", mode="before")
    @classmethod
    def _null_is_false(cls, v: object) -> object:
        return False if v is None else v

    @field_validator("importance", mode="before")
    @classmethod
    def _null_is_default(cls, v: object) -> object:
        return DEFAULT_IMPORTANCE if v is None else v

    @field_validator("topics", mode="before")
    @classmethod
    def _topic_list(cls, v: object) -> object:
        if isinstance(v, str):
            return [v]
        return [t for t in v if isinstance(t, str)] if isinstance(v, list) else []

    @field_validator("source_seqs", mode="before")
    @classmethod
    def _seq_list(cls, v: object) -> object:
        items = v if isinstance(v, list) else [v]
        # The prompt numbers messages "#3"; some models cite them that way.
        return [s.strip().lstrip("#") if isinstance(s, str) else s for s in items]


class _Answer(BaseModel):
    facts: list[_Fact]


class _Invalid(Exception):
    """An answer that fails validation: retried like an unavailable endpoint."""


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """`model`'s JSON schema in the form strict structured outputs accept: references inlined
    (llama.cpp's grammar converter and others handle few), every property required, no others
    allowed, no defaults, titles or descriptions (the prompt explains the fields)."""
    schema = model.model_json_schema()
    defs: dict[str, Any] = schema.pop("$defs", {})

    def fix(node: Any) -> Any:
        if isinstance(node, list):
            return [fix(v) for v in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return fix(defs[node["$ref"].rsplit("/", 1)[-1]])
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "properties":  # names of properties, not keywords: keep them all
                out[key] = {name: fix(sub) for name, sub in value.items()}
            elif key not in ("title", "description", "default"):
                out[key] = fix(value)
        if out.get("type") == "object":
            out["required"] = list(out.get("properties", {}))
            out["additionalProperties"] = False
        return out

    fixed: dict[str, Any] = fix(schema)
    return fixed


SCHEMA_FORMAT: ResponseFormat = {
    "type": "json_schema",
    "json_schema": {"name": "facts", "strict": True, "schema": strict_schema(_Answer)},
}
JSON_FORMAT: ResponseFormat = {"type": "json_object"}


def parse_answer(content: str | None) -> list[Any]:
    """The raw fact items of a model's answer; raises _Invalid when it is not {"facts": [...]}."""
    # Some servers wrap JSON in a Markdown fence even in JSON mode.
    text = strip_fences(content)
    try:
        data = json.loads(text)
    except ValueError:
        # A weak model in plain JSON mode may still put a sentence before or after the object.
        start, end = text.find("{"), text.rfind("}")
        try:
            data = json.loads(text[start : end + 1]) if 0 <= start < end else None
        except ValueError:
            data = None
    if not isinstance(data, dict) or not isinstance(data.get("facts"), list):
        raise _Invalid(f"not a JSON object with a list of facts: {text[:200]!r}")
    facts: list[Any] = data["facts"]
    return facts


def _sentence(text: str) -> str:
    """A fact's content as one capitalised sentence ending with a period, or "" if nothing is left."""
    text = " ".join(text.split())
    text = re.sub(r"^the user\s+", "", text, flags=re.IGNORECASE)  # the subject is implied
    text = text.rstrip(" ,;:!?")
    if len(text) >= MAX_CONTENT_CHARS:
        cut = text[: MAX_CONTENT_CHARS - 1]
        text = (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:!?.")
    if not any(ch.isalnum() for ch in text):
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith(".") else f"{text}."


def _subject(value: str | None) -> str | None:
    if value is None:
        return None
    key = re.sub(r"\s*:\s*", ":", " ".join(value.split()).lower())
    return key if 0 < len(key) <= MAX_SUBJECT_CHARS else None


def _topics(values: Sequence[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for value in values:
        topic = " ".join(value.split()).lower()
        if topic and len(topic) <= MAX_TOPIC_CHARS:
            seen.setdefault(topic)
    return tuple(seen)[:MAX_TOPICS]


def _importance(value: float) -> float:
    return DEFAULT_IMPORTANCE if math.isnan(value) else min(1.0, max(0.0, value))


def _stated_start(value: str | None, said_at: datetime) -> datetime | None:
    """The model's `valid_from`, if it is a real date before the message that stated it."""
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if when.tzinfo is None:  # a date: midnight where the message was written
        when = when.replace(tzinfo=said_at.tzinfo)
    elif said_at.tzinfo is not None:
        when = when.astimezone(said_at.tzinfo)
    else:
        when = when.replace(tzinfo=None)
    if when.year < MIN_YEAR or when > said_at:
        return None  # a plan's date is in its content; it holds from when it was said
    # The day of the message itself: its time is the more precise start, and keeps two changes of
    # the same slot on one day in the order they were said.
    return None if when.date() == said_at.date() else when


def to_candidates(items: Sequence[Any], user_turns: Mapping[int, TurnRef]) -> list[FactCandidate]:
    """Valid items as candidates, in the model's order; the invalid ones are dropped and counted."""
    out: list[FactCandidate] = []
    seen: set[tuple[str, bool, str | None]] = set()
    dropped = 0
    for item in items:
        try:
            fact = _Fact.model_validate(item)
        except ValidationError:
            dropped += 1
            continue
        # Only what a person said is a source (the user, or a named speaker: `speaker_of`); a cited
        # number that is no such message of this call is ignored, and a fact left with no source
        # at all is nobody's. A fact is about one person: the speaker of its first cited source.
        cited = [s for s in fact.source_seqs if s in user_turns]
        speaker = speaker_of(user_turns[cited[0]]) if cited else None
        sources = sorted({s for s in cited if speaker_of(user_turns[s]) == speaker})
        content = _sentence(fact.content)
        if not sources or not content:
            dropped += 1
            continue
        subject = _subject(fact.subject)
        key = (content.casefold(), fact.negated, subject)
        if key in seen:
            continue
        seen.add(key)
        said_at = max(user_turns[s].created_at for s in sources)
        out.append(
            FactCandidate(
                content=content,
                kind=fact.kind,
                subject=subject,
                # Without a slot there is no older value for this one to replace.
                exclusive=fact.exclusive and subject is not None,
                negated=fact.negated,
                importance=_importance(fact.importance),
                topics=_topics(fact.topics),
                valid_from=_stated_start(fact.valid_from, said_at) or said_at,
                source_message_ids=tuple(user_turns[s].message_id for s in sources),
                speaker=speaker,
            )
        )
        if len(out) == MAX_FACTS:
            break
    if dropped:
        _log.info("fact extractor dropped invalid facts", dropped=dropped, kept=len(out))
    return out


def render_known_subjects(subjects: Sequence[str]) -> str:
    keys = dict.fromkeys(k for k in (_subject(s) for s in subjects) if k)
    if not keys:
        return "(none yet)"
    return "\n".join(f"- {k}" for k in list(keys)[:MAX_KNOWN_SUBJECTS])


class OpenAIFactExtractor:
    def __init__(self, settings: Settings, *, tokenizer: Tokenizer) -> None:
        self._client = make_client(settings)
        self._model = settings.openai_chat_model
        self._attempts = settings.openai_max_attempts
        self._wait = retry_wait(settings)
        self._tokenizer = tokenizer
        self._response_format = SCHEMA_FORMAT  # until the server refuses it
        self.name = f"openai/{self._model}"

    async def extract(
        self, *, turns: Sequence[TurnRef], known_subjects: Sequence[str]
    ) -> list[FactCandidate]:
        user_turns = {t.seq: t for t in turns if speaker_of(t) != "" and not t.context and t.content.strip()}
        if not user_turns:  # nothing a person said: no call
            return []
        said = sorted((t for t in turns if t.content.strip()), key=lambda t: t.seq)
        prompt = load_prompt(PROMPT).substitute(
            known_subjects=render_known_subjects(known_subjects),
            turns=render_turns(said, numbered=True),
        )
        user_tokens = sum(self._tokenizer.count(t.content) for t in user_turns.values())
        max_tokens = min(
            COMPLETION_TOKENS_MAX, COMPLETION_TOKENS_BASE + COMPLETION_TOKENS_FACTOR * user_tokens
        )
        try:
            items = await self._complete(prompt, max_tokens)
        except _Invalid as exc:
            raise ExtractorOutputInvalid(f"after {self._attempts} attempt(s): {exc}") from exc
        except openai.APIError as exc:  # the retryable ones after the last try, any other at once
            raise ExtractorUnavailable(f"{type(exc).__name__}: {exc}") from exc
        return to_candidates(items, user_turns)

    async def _complete(self, prompt: str, max_tokens: int) -> list[Any]:
        messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": prompt}]
        async for attempt in AsyncRetrying(
            retry=retry_if_exception_type((*RETRYABLE, _Invalid)),
            stop=stop_after_attempt(self._attempts),
            wait=self._wait,
            reraise=True,
        ):
            with attempt:
                resp = await self._create(messages, max_tokens)
                if not resp.choices:
                    raise _Invalid("no choices in the answer")
                return parse_answer(resp.choices[0].message.content)
        raise AssertionError("unreachable")

    async def _create(self, messages: list[ChatCompletionMessageParam], max_tokens: int) -> ChatCompletion:
        if self._response_format is not SCHEMA_FORMAT:
            return await self._request(messages, max_tokens, JSON_FORMAT)
        try:
            return await self._request(messages, max_tokens, SCHEMA_FORMAT)
        except (openai.BadRequestError, openai.UnprocessableEntityError) as refused:
            # Older vLLM, llama.cpp and Ollama refuse `json_schema`, each in its own words. Asking
            # again in JSON mode tells for sure: it is the only difference between the two requests.
            resp = await self._request(messages, max_tokens, JSON_FORMAT)
            if self._response_format is SCHEMA_FORMAT:
                self._response_format = JSON_FORMAT
                _log.warning(
                    "chat endpoint refuses json_schema output; using json_object from now on",
                    model=self._model,
                    error=str(refused)[:300],
                )
            return resp

    async def _request(
        self, messages: list[ChatCompletionMessageParam], max_tokens: int, response_format: ResponseFormat
    ) -> ChatCompletion:
        try:
            return await self._client.chat.completions.create(
                model=self._model,
                messages=messages,
                response_format=response_format,
                temperature=0,
                max_tokens=max_tokens,
            )
        except json.JSONDecodeError as exc:  # a 200 whose body is no JSON at all: a broken server
            raise _Invalid(f"the answer is not a chat completion: {exc}") from exc

    async def aclose(self) -> None:
        await self._client.close()
