"""The export format, version 1: JSON Lines (`application/x-ndjson`), one record per line, each
with a `type` that says which of the models below it is.

An export is `header`, `user`, then each session with its messages and summaries, then the
user's facts and their history, then `end`. Import reads the same lines: the header first and
`end` (with the number of records between them) last, so a file cut short in transit is refused
rather than half-imported; the records in between may come in any order.

Every user-visible field is carried; embeddings are not (the worker computes them again), and
neither are internal counters (summary and cache bookkeeping follow from the rows).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from app.ai.fact_extractor import FactKind
from app.errors import AppError, ValidationFailed
from app.limits import Limits
from app.messages.schemas import Role
from app.timestamps import as_utc

FORMAT = "engram.export"
VERSION = 1
NDJSON = "application/x-ndjson"
# Appends add to last_seq in a bigint: a seq near 2^63 would overflow on the next append. 2^53 - 1
# also stays exact in JSON readers that hold numbers as doubles (the TypeScript client).
_SEQ_MAX = 2**53 - 1
_INT_MAX = 2**31 - 1
# A fact cites the messages it was read from; more than this is no longer a citation.
MAX_SOURCES = 10_000


def _utc(value: datetime) -> datetime:
    out = as_utc(value)
    assert out is not None
    return out


Time = Annotated[datetime, AfterValidator(_utc)]
Seq = Annotated[int, Field(ge=0, le=_SEQ_MAX)]
Count = Annotated[int, Field(ge=0, le=_INT_MAX)]
Actor = Literal["system", "api"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def check_limits(self, limits: Limits) -> None:
        """Setting-dependent limits (sizes, ids), as the API's own inputs have them."""


class Header(_Record):
    type: Literal["engram.export"]
    version: int = Field(description="The format's version; this server reads version 1.")
    exported_at: Time
    user_id: str = Field(description="The user exported (import writes to the user in its path).")


class UserRecord(_Record):
    type: Literal["user"]
    user_id: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: Time | None = None
    updated_at: Time | None = None

    def check_limits(self, limits: Limits) -> None:
        limits.check_id(self.user_id, ["user_id"])
        limits.check_metadata(self.metadata, ["metadata"])


class SessionRecord(_Record):
    type: Literal["session"]
    session_id: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    last_seq: Seq = Field(0, description="The highest seq handed out (deleted messages leave gaps).")
    extracted_seq: Seq = Field(0, description="Fact extraction has read the messages up to here.")
    created_at: Time | None = None
    updated_at: Time | None = None
    ended_at: Time | None = None

    def check_limits(self, limits: Limits) -> None:
        limits.check_id(self.session_id, ["session_id"])
        limits.check_metadata(self.metadata, ["metadata"])


class MessageRecord(_Record):
    type: Literal["message"]
    message_id: uuid.UUID
    session_id: str
    seq: Annotated[int, Field(ge=1, le=_SEQ_MAX)]
    role: Role
    name: str | None = None
    content: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    token_count: Count | None = Field(None, description="Informational: import counts tokens again.")
    created_at: Time
    updated_at: Time | None = None

    def check_limits(self, limits: Limits) -> None:
        limits.check_id(self.session_id, ["session_id"])
        limits.check_content(self.content, ["content"])
        limits.check_name(self.name, ["name"])
        limits.check_metadata(self.metadata, ["metadata"])


class SummaryRecord(_Record):
    type: Literal["summary"]
    summary_id: uuid.UUID
    session_id: str
    from_seq: Annotated[int, Field(ge=1, le=_SEQ_MAX)]
    to_seq: Annotated[int, Field(ge=1, le=_SEQ_MAX)]
    message_count: Count
    content: str
    token_count: Count | None = Field(None, description="Informational: import counts tokens again.")
    provider: str = Field(max_length=200)
    created_at: Time

    @model_validator(mode="after")
    def _range(self) -> SummaryRecord:
        if self.from_seq > self.to_seq:
            raise ValueError("from_seq is after to_seq")
        return self

    def check_limits(self, limits: Limits) -> None:
        limits.check_id(self.session_id, ["session_id"])
        limits.check_content(self.content, ["content"])
        limits.check_text(self.provider, ["provider"])


class FactRecord(_Record):
    type: Literal["fact"]
    fact_id: uuid.UUID
    content: str
    kind: FactKind
    subject: str | None = Field(None, max_length=200)
    exclusive: bool = False
    topics: list[Annotated[str, Field(max_length=100)]] = Field(default_factory=list, max_length=20)
    importance: float = Field(ge=0, le=1)
    metadata: dict[str, Any] = Field(default_factory=dict)
    actor: Actor
    source_message_ids: list[uuid.UUID] = Field(default_factory=list, max_length=MAX_SOURCES)
    session_id: str | None = None
    valid_from: Time
    invalid_at: Time | None = None
    superseded_by: uuid.UUID | None = None
    mention_count: Count = 1
    last_mentioned_at: Time | None = None
    last_used_at: Time | None = None
    created_at: Time | None = None
    updated_at: Time | None = None
    # Whom the fact is about when not the session's user: a named speaker (absent in older files).
    speaker: str | None = Field(None, min_length=1, max_length=200)

    @model_validator(mode="after")
    def _validity(self) -> FactRecord:
        if self.invalid_at is not None and self.invalid_at < self.valid_from:
            raise ValueError("invalid_at is before valid_from")
        return self

    def check_limits(self, limits: Limits) -> None:
        limits.check_fact(self.content, ["content"])
        if self.subject is not None:
            limits.check_text(self.subject, ["subject"])
        for i, topic in enumerate(self.topics):
            limits.check_text(topic, ["topics", i])
        limits.check_metadata(self.metadata, ["metadata"])
        if self.session_id is not None:
            limits.check_id(self.session_id, ["session_id"])
        if self.speaker is not None:
            limits.check_text(self.speaker, ["speaker"])


class FactEventRecord(_Record):
    type: Literal["fact_event"]
    fact_id: uuid.UUID
    event: Literal["ADD", "UPDATE", "INVALIDATE", "DELETE"]
    old_content: str | None = None
    new_content: str | None = None
    actor: Actor
    reason: str | None = Field(None, max_length=1000)
    related_fact_id: uuid.UUID | None = None
    source_message_ids: list[uuid.UUID] = Field(default_factory=list, max_length=MAX_SOURCES)
    created_at: Time

    def check_limits(self, limits: Limits) -> None:
        for field in ("old_content", "new_content", "reason"):
            value = getattr(self, field)
            if value is not None:
                limits.check_text(value, [field])


class End(_Record):
    type: Literal["end"]
    records: Count = Field(description="How many records the file holds between the header and this line.")


Record = Annotated[
    Header | UserRecord | SessionRecord | MessageRecord | SummaryRecord | FactRecord | FactEventRecord | End,
    Field(discriminator="type"),
]
_RECORD: TypeAdapter[Record] = TypeAdapter(Record)
TYPES = ("engram.export", "user", "session", "message", "summary", "fact", "fact_event", "end")


def line_error(line: int, msg: str, kind: str, loc: list[str | int] | None = None) -> ValidationFailed:
    where = [*(loc or [])]
    field = ".".join(str(p) for p in where)
    return ValidationFailed(
        f"line {line}: {field}: {msg}" if field else f"line {line}: {msg}",
        errors=[{"loc": ["line", line, *where], "msg": msg, "type": kind}],
        line=line,
    )


def parse_record(raw: bytes, *, line: int, limits: Limits | None) -> Record:
    """One line into its record, or a 422 (413 for a size limit) naming the line and the field.
    `limits` None: the line passed them already (the import's second read of its own spool)."""
    try:
        record = _RECORD.validate_json(raw)
    except ValidationError as exc:
        raise _from_pydantic(exc, line) from None
    if limits is None:
        return record
    try:
        record.check_limits(limits)
    except AppError as exc:
        raise _at_line(exc, line) from None
    return record


def _from_pydantic(exc: ValidationError, line: int) -> ValidationFailed:
    first = exc.errors(include_url=False, include_input=False)[0]
    kind = first["type"]
    if kind == "json_invalid":
        return line_error(line, f"is not valid JSON ({first['msg'].removeprefix('Invalid JSON: ')})", kind)
    if kind in ("union_tag_invalid", "union_tag_not_found") or not first["loc"]:
        given = f"{first['ctx']['tag']!r} is not a record type; " if kind == "union_tag_invalid" else ""
        msg = f"{given}a line is a JSON object whose type is one of {', '.join(TYPES)}"
        return line_error(line, msg, kind, ["type"])
    # The first element of a discriminated union's loc is the record type: say it, then the field.
    loc = [str(p) if not isinstance(p, int) else p for p in first["loc"][1:]]
    return line_error(line, f"{first['msg']} (in a {first['loc'][0]} record)", kind, loc)


def _at_line(exc: AppError, line: int) -> AppError:
    errors = [{**e, "loc": ["line", line, *e.get("loc", [])]} for e in exc.errors or []]
    out = type(exc)(f"line {line}: {exc.detail}", errors=errors, line=line, **exc.extra)
    return out
