"""Facts over the API: list (now, as of a time, or all), add, get, patch, delete, history.

Every change writes its event in the same transaction. Facts written here get their embedding
from the worker (`embedding` NULL until then), so no model call sits on the request path.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.crypto import fields
from app.db.index_text import plain_tsv_sql
from app.errors import NotFound, ValidationFailed
from app.facts import events
from app.facts.forgetting import decayed_importance
from app.facts.reconcile import Invalidate, normalize
from app.facts.schemas import FactEventOut, FactIn, FactOut, FactPatch
from app.facts.tasks import REEMBED_IF_CHANGED, REINDEX_IF_CHANGED, invalidate, invalidated, lock_user_facts
from app.jsonutil import dumps
from app.merge_patch import merge_patch
from app.pagination import INT, TIMESTAMP, UUID, Keyset, Page, PageRequest
from app.users.service import ensure_user

_FACTS = Keyset("facts", (TIMESTAMP, UUID), ("valid_from", "fact_id"), descending=True)
_HISTORY = Keyset("fact-events", (INT,), ("id",))  # oldest event first

_FIELDS = (
    "fact_id, user_id, speaker, content, kind, subject, exclusive, topics, importance, metadata, actor, "
    "source_message_ids, session_id, valid_from, invalid_at, superseded_by, mention_count, "
    "last_mentioned_at, last_used_at, created_at, updated_at"
)
_EVENT_FIELDS = (
    "id, fact_id, event, old_content, new_content, actor, reason, related_fact_id, source_message_ids, "
    "created_at"
)


def _cols(half_life_days: float) -> str:
    return f"{_FIELDS}, {decayed_importance(half_life_days)} AS current_importance"


async def _user_exists(conn: AsyncConnection, *, tenant_id: str, user_id: str) -> None:
    found = (
        await conn.execute(
            text("SELECT 1 FROM users WHERE tenant_id = :t AND user_id = :u"), {"t": tenant_id, "u": user_id}
        )
    ).first()
    if found is None:
        raise NotFound(f"No user {user_id}.")


async def list_facts(
    conn: AsyncConnection,
    *,
    tenant_id: str,
    user_id: str,
    as_of: datetime | None,
    include_invalid: bool,
    kinds: list[str] | None,
    page: PageRequest,
    half_life_days: float,
    speaker: str | None = None,
) -> Page[FactOut]:
    """Newest `valid_from` first. Valid now by default; `as_of`: valid at that time;
    `include_invalid`: every fact, with its validity dates. `speaker`: only the facts about that
    person ("" for the user's own); all of them by default."""
    if as_of is not None and include_invalid:
        raise ValidationFailed(
            "as_of and include_invalid=true cannot be combined: as_of already says which facts held then.",
            errors=[{"loc": ["query", "as_of"], "msg": "not with include_invalid", "type": "conflict"}],
        )
    await _user_exists(conn, tenant_id=tenant_id, user_id=user_id)
    where = ["tenant_id = :t", "user_id = :u"]
    params: dict[str, Any] = {"t": tenant_id, "u": user_id}
    if as_of is not None:
        where.append("valid_from <= :at AND (invalid_at IS NULL OR invalid_at > :at)")
        params["at"] = as_of
    elif not include_invalid:
        where.append("invalid_at IS NULL")
    if kinds:
        where.append("kind = ANY(CAST(:kinds AS text[]))")
        params["kinds"] = kinds
    if speaker is not None:
        where.append("speaker IS NULL" if speaker == "" else "speaker = :speaker")
        params["speaker"] = speaker
    seek = _FACTS.seek(page)
    rows = (
        (
            await conn.execute(
                text(f"SELECT {_cols(half_life_days)} FROM facts WHERE {seek.where(*where)} {seek.tail}"),
                {**params, **seek.params},
            )
        )
        .mappings()
        .all()
    )
    return seek.page(
        [FactOut(**fields.open_row(dict(r), tenant_id)) for r in rows],
        lambda f: (f.valid_from, f.fact_id),
    )


async def get_fact(
    conn: AsyncConnection, *, tenant_id: str, fact_id: uuid.UUID, half_life_days: float, lock: bool = False
) -> FactOut:
    row = (
        (
            await conn.execute(
                text(
                    f"SELECT {_cols(half_life_days)} FROM facts WHERE tenant_id = :t AND fact_id = :f"
                    + (" FOR UPDATE" if lock else "")
                ),
                {"t": tenant_id, "f": fact_id},
            )
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFound(f"No fact {fact_id}.")
    return FactOut(**fields.open_row(dict(row), tenant_id))


async def add_fact(
    conn: AsyncConnection, *, tenant_id: str, user_id: str, body: FactIn, half_life_days: float
) -> tuple[FactOut, bool]:
    """Store a fact by hand. Returns (fact, created): the same statement already valid for the
    user is returned as it is instead of a second copy. An exclusive fact ends the user's current
    fact with its subject."""
    await ensure_user(conn, tenant_id=tenant_id, user_id=user_id)
    # Serialises with extraction for this user, which reconciles under the same lock.
    await lock_user_facts(conn, tenant_id=tenant_id, user_id=user_id)
    current = (
        await conn.execute(
            text(
                "SELECT fact_id, content, subject, valid_from FROM facts "
                "WHERE tenant_id = :t AND user_id = :u AND invalid_at IS NULL "
                "AND speaker IS NOT DISTINCT FROM :speaker"
            ),
            {"t": tenant_id, "u": user_id, "speaker": body.speaker},
        )
    ).all()
    # Compared (normalised) as text: opened first.
    current = fields.open_contents(current, tenant=tenant_id, table="facts", id_col="fact_id")
    wanted = normalize(body.content)  # once, not once per fact: linear in what is compared
    same = next((c for c in current if normalize(c.content) == wanted), None)
    if same is not None:
        return await get_fact(
            conn, tenant_id=tenant_id, fact_id=same.fact_id, half_life_days=half_life_days
        ), False
    fact_id = uuid.uuid4()
    valid_from = (
        await conn.execute(
            text(
                "INSERT INTO facts (fact_id, tenant_id, user_id, speaker, content, kind, subject, exclusive, "
                "topics, importance, metadata, actor, valid_from, last_mentioned_at, plain_tsv) "
                "VALUES (:f, :t, :u, :speaker, :content, :kind, :subject, :exclusive, :topics, :importance, "
                f"CAST(:md AS jsonb), 'api', coalesce(:vf, now()), now(), {plain_tsv_sql('kw')}) "
                "RETURNING valid_from"
            ),
            {
                "f": fact_id,
                "t": tenant_id,
                "u": user_id,
                "speaker": body.speaker,
                "content": fields.seal_text(
                    body.content.strip(), tenant=tenant_id, table="facts", field="content", row=fact_id
                ),
                "kind": body.kind.value,
                "subject": body.subject,
                "exclusive": body.exclusive,
                "topics": body.topics,
                "importance": body.importance,
                "md": dumps(
                    fields.seal_meta(body.metadata, tenant=tenant_id, table="facts", row=fact_id)
                ).decode(),
                "vf": body.valid_from,
                "kw": fields.keyword_text(body.content.strip()),
            },
        )
    ).scalar_one()
    log = [
        events.Event(
            fact_id=fact_id, event="ADD", old_content=None, new_content=body.content.strip(), actor="api"
        )
    ]
    if body.exclusive and body.subject is not None:
        for c in current:
            if c.subject == body.subject and c.valid_from <= valid_from:
                op = Invalidate(
                    fact_id=c.fact_id,
                    content=c.content,
                    at=valid_from,
                    reason="superseded",
                    superseded_by=fact_id,
                    source_message_ids=(),
                )
                await invalidate(conn, tenant_id=tenant_id, op=op)
                log.append(invalidated(op, actor="api"))
    await events.record(conn, tenant_id=tenant_id, user_id=user_id, events=log)
    return await get_fact(conn, tenant_id=tenant_id, fact_id=fact_id, half_life_days=half_life_days), True


async def patch_fact(
    conn: AsyncConnection, *, tenant_id: str, fact_id: uuid.UUID, body: FactPatch, half_life_days: float
) -> FactOut:
    """Edit a fact in place (an UPDATE event with the old and new text); `invalid_at` ends it (an
    INVALIDATE event). A new text is embedded again by the worker."""
    old = await get_fact(conn, tenant_id=tenant_id, fact_id=fact_id, half_life_days=half_life_days, lock=True)
    content = body.content.strip() if body.content is not None else old.content
    if body.invalid_at is not None and body.invalid_at < old.valid_from:
        raise ValidationFailed(
            "invalid_at is before the fact's valid_from.",
            errors=[{"loc": ["body", "invalid_at"], "msg": "before valid_from", "type": "value_error"}],
        )
    await conn.execute(
        text(
            "UPDATE facts SET content = CASE WHEN CAST(:changed AS boolean) THEN :content ELSE content END, "
            "kind = :kind, subject = :subject, topics = :topics, "
            "importance = :importance, metadata = CAST(:md AS jsonb), updated_at = now(), "
            "invalid_at = coalesce(:invalid_at, invalid_at), "
            f"{REINDEX_IF_CHANGED}{REEMBED_IF_CHANGED}"
            "WHERE tenant_id = :t AND fact_id = :f"
        ),
        {
            "t": tenant_id,
            "f": fact_id,
            "content": fields.seal_text(
                content, tenant=tenant_id, table="facts", field="content", row=fact_id
            ),
            "kind": (body.kind or old.kind).value,
            "subject": body.subject if "subject" in body.model_fields_set else old.subject,
            "topics": body.topics if body.topics is not None else old.topics,
            "importance": body.importance if body.importance is not None else old.importance,
            "md": dumps(
                fields.seal_meta(
                    old.metadata if body.metadata is None else merge_patch(old.metadata, body.metadata),
                    tenant=tenant_id,
                    table="facts",
                    row=fact_id,
                )
            ).decode(),
            "invalid_at": body.invalid_at,
            "changed": content != old.content,
            "kw": fields.keyword_text(content),
        },
    )
    log: list[events.Event] = []
    edited = body.model_fields_set - {"invalid_at"}
    if edited:
        log.append(
            events.Event(
                fact_id=fact_id,
                event="UPDATE",
                old_content=old.content,
                new_content=content,
                actor="api",
                reason="edited: " + ", ".join(sorted(edited)),
            )
        )
    if body.invalid_at is not None:
        log.append(
            events.Event(
                fact_id=fact_id,
                event="INVALIDATE",
                old_content=content,
                new_content=None,
                actor="api",
                reason="ended",
            )
        )
    await events.record(conn, tenant_id=tenant_id, user_id=old.user_id, events=log)
    return await get_fact(conn, tenant_id=tenant_id, fact_id=fact_id, half_life_days=half_life_days)


async def delete_fact(conn: AsyncConnection, *, tenant_id: str, fact_id: uuid.UUID, redact: bool) -> None:
    """Remove the fact. Its history stays (a DELETE event ends it) unless `redact`, which also
    blanks the text in every event of the fact."""
    row = (
        await conn.execute(
            text("DELETE FROM facts WHERE tenant_id = :t AND fact_id = :f RETURNING user_id, content"),
            {"t": tenant_id, "f": fact_id},
        )
    ).first()
    if row is None:
        raise NotFound(f"No fact {fact_id}.")
    # Facts it had superseded point at nothing now.
    await conn.execute(
        text("UPDATE facts SET superseded_by = NULL WHERE tenant_id = :t AND superseded_by = :f"),
        {"t": tenant_id, "f": fact_id},
    )
    event = events.Event(
        fact_id=fact_id,
        event="DELETE",
        old_content=None
        if redact
        else fields.open_text(row.content, tenant=tenant_id, table="facts", field="content", row=fact_id),
        new_content=None,
        actor="api",
        reason="deleted and redacted" if redact else "deleted",
    )
    await events.record(conn, tenant_id=tenant_id, user_id=row.user_id, events=[event])
    if redact:
        await events.redact(conn, tenant_id=tenant_id, fact_id=fact_id)


async def history(
    conn: AsyncConnection, *, tenant_id: str, fact_id: uuid.UUID, page: PageRequest
) -> Page[FactEventOut]:
    """Oldest first: every change to the fact, also after it was deleted."""
    seek = _HISTORY.seek(page)
    rows = (
        (
            await conn.execute(
                text(
                    f"SELECT {_EVENT_FIELDS} FROM fact_events "
                    f"WHERE {seek.where('tenant_id = :t', 'fact_id = :f')} {seek.tail}"
                ),
                {"t": tenant_id, "f": fact_id, **seek.params},
            )
        )
        .mappings()
        .all()
    )
    if not rows and not page.cursor:
        raise NotFound(f"No fact {fact_id}.")
    return seek.page([FactEventOut(**events.open_event(dict(r), tenant_id)) for r in rows], lambda e: (e.id,))
