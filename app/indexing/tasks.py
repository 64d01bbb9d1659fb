"""The embedding step: claim pending messages, embed them in one model call, store the vectors.

Run by app.jobs.runner (one transaction holding the rows' locks, the shared model lock around the
call, bisection on error, backoff). The queue is the message rows themselves (`embed_status`,
`embed_after`, `embed_attempts`, `embed_error`), written by the append at no extra cost. Claims are
fair: a batch is shared across tenants, then users, in rotation, so one tenant's backlog does not
hold up another's new message.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.ai.embedder import Embedder
from app.crypto import fields
from app.crypto.envelope import UNREADABLE, DecryptError
from app.db.index_text import message_sentences, message_text
from app.db.vectors import Vec, as_db_vector, pack_vectors
from app.jobs.fair import TENANTS_PER_CLAIM, USERS_PER_TENANT, Rotation
from app.jobs.retry import RetryPolicy, next_try
from app.webhooks import outbox

KIND = "embed"

_DUE = "embed_status = 'pending' AND embed_after <= now()"
# How long the oldest due pending message has waited: since it was written (appended, edited or
# imported) or its retry came due. Not its age: an imported message from last year waits seconds.
LAG = f"coalesce(extract(epoch FROM now() - min(embed_after) FILTER (WHERE {_DUE})), 0)"


def _rotation(name: str, col: str, scope: str, after: str, limit: str) -> str:
    """CTEs ending in `{name}` (n, v, lap): up to `limit` distinct values of `col` among the due
    messages matching `scope`, in rotation order: ascending after `after`, then from the start
    up to it. Each step is one probe of ix_messages_embed_fair (a loose index scan), so the cost
    is the number of values returned, whatever the backlog behind them."""
    probe = f"SELECT m.{col} FROM messages m WHERE {scope} AND m.{_DUE.replace(' embed_', ' m.embed_')}"
    return (
        f"{name}_0 (n, v) AS ("
        f"SELECT 1, ({probe} AND m.{col} > {after} ORDER BY m.{col} LIMIT 1) "
        f"UNION ALL SELECT r.n + 1, ({probe} AND m.{col} > r.v ORDER BY m.{col} LIMIT 1) "
        f"FROM {name}_0 r WHERE r.v IS NOT NULL AND r.n < {limit}), "
        f"{name}_1 (n, v) AS ("
        f"SELECT 1, ({probe} ORDER BY m.{col} LIMIT 1) "
        f"UNION ALL SELECT r.n + 1, ({probe} AND m.{col} > r.v ORDER BY m.{col} LIMIT 1) "
        f"FROM {name}_1 r WHERE r.v IS NOT NULL AND r.v < {after} AND r.n < {limit}), "
        f"{name} (n, v, lap) AS ("
        f"SELECT n, v, 0 FROM {name}_0 WHERE v IS NOT NULL "
        f"UNION ALL SELECT n, v, 1 FROM {name}_1 WHERE v IS NOT NULL AND v <= {after} "
        f"ORDER BY 3, 1 LIMIT {limit})"
    )


# Who has due work, in rotation order: tenants after the last one served, and in each, users
# after the last one served there.
_OWNERS = text(
    "WITH RECURSIVE "
    + _rotation("tenants", "tenant_id", "true", ":after_tenant", ":tenants")
    + " SELECT t.v AS tenant_id, u.v AS user_id FROM tenants t "
    "LEFT JOIN unnest(CAST(:cursor_tenants AS text[]), CAST(:cursor_users AS text[])) AS c(t, u) "
    "ON c.t = t.v "
    "CROSS JOIN LATERAL (WITH RECURSIVE "
    + _rotation("users", "user_id", "m.tenant_id = t.v", "coalesce(c.u, '')", ":users")
    + " SELECT n, v, lap FROM users) u ORDER BY t.lap, t.n, u.lap, u.n"
)
# Each owner's share, oldest first; then, if shares were left unused, the oldest of the rest.
_CLAIM_SHARES = text(
    "SELECT m.message_id, m.tenant_id, m.name, m.content, m.trace_parent FROM "
    "unnest(CAST(:tenant_ids AS text[]), CAST(:user_ids AS text[]), CAST(:shares AS int[])) AS o(t, u, q) "
    "CROSS JOIN LATERAL (SELECT message_id, tenant_id, name, content, trace_parent FROM messages "
    f"WHERE tenant_id = o.t AND user_id = o.u AND {_DUE} "
    "ORDER BY embed_after LIMIT o.q FOR UPDATE SKIP LOCKED) m"
)
_CLAIM_REST = text(
    f"SELECT message_id, tenant_id, name, content, trace_parent FROM messages WHERE {_DUE} "
    "AND NOT (message_id = ANY(CAST(:taken AS uuid[]))) "
    "ORDER BY embed_after LIMIT :n FOR UPDATE SKIP LOCKED"
)
_STORE = text(
    "UPDATE messages m SET embedding = v.e, sentence_vecs = v.s, embed_status = 'done', "
    "embed_attempts = m.embed_attempts + 1, embed_error = NULL, embedded_at = clock_timestamp() "
    "FROM unnest(CAST(:ids AS uuid[]), CAST(:vecs AS vector[]), CAST(:sents AS bytea[])) AS v(id, e, s) "
    "WHERE m.message_id = v.id"
)
_FAIL = text(
    "UPDATE messages m SET embed_attempts = m.embed_attempts + 1, embed_error = :err, "
    "embed_status = CASE WHEN m.embed_attempts + 1 >= :max THEN 'failed' ELSE 'pending' END, "
    # A failed row is not retried by itself: its `embed_after` records when it failed
    # (`failed_at` over the API) rather than a next try that will not come.
    "embed_after = CASE WHEN m.embed_attempts + 1 >= :max THEN now() "
    f"ELSE {next_try('m.embed_attempts')} END "
    "WHERE m.message_id = ANY(CAST(:ids AS uuid[])) "
    "RETURNING m.tenant_id, m.user_id, m.session_id, m.message_id, m.embed_status"
)


_UNREADABLE = text(
    "UPDATE messages SET embed_status = 'failed', embed_attempts = embed_attempts + 1, "
    "embed_error = :err, embed_after = now() WHERE message_id = ANY(CAST(:ids AS uuid[]))"
)


@dataclass(frozen=True)
class Pending:
    message_id: uuid.UUID
    content: str
    trace_parent: str | None = None  # the append's trace (tracing on): the step joins it
    sentences: tuple[str, ...] = ()  # each sentence's text, for a message of several


@dataclass(frozen=True)
class Embedded:
    vector: Vec
    sentences: bytes | None  # pack_vectors of the sentences' vectors; None for one sentence


class EmbedMessages:
    kind = KIND

    def __init__(self, *, embedder: Embedder, batch_size: int, sentences: bool = True) -> None:
        self.embedder = embedder
        self.limit = batch_size
        self.sentences = sentences  # ENGRAM_INDEX_SENTENCES
        self.rotation = Rotation()

    async def claim(self, conn: AsyncConnection) -> list[Pending]:
        """A fair batch: the slots are shared across the tenants with due work, then across each
        one's users, in rotation (app.jobs.fair); slots a share leaves unused go to the oldest."""
        owners = (
            await conn.execute(
                _OWNERS,
                {
                    "after_tenant": self.rotation.tenant,
                    "tenants": min(self.limit, TENANTS_PER_CLAIM),
                    "users": USERS_PER_TENANT,
                    "cursor_tenants": list(self.rotation.users),
                    "cursor_users": list(self.rotation.users.values()),
                },
            )
        ).all()
        if not owners:
            return []
        shares = self.rotation.shares([(o.tenant_id, o.user_id) for o in owners], self.limit)
        served = [(o, q) for o, q in zip(owners, shares, strict=True) if q]
        rows = (
            await conn.execute(
                _CLAIM_SHARES,
                {
                    "tenant_ids": [o.tenant_id for o, _ in served],
                    "user_ids": [o.user_id for o, _ in served],
                    "shares": [q for _, q in served],
                },
            )
        ).all()
        rows = list(rows)
        if len(rows) < self.limit:
            taken = [r.message_id for r in rows]
            rows.extend(
                (await conn.execute(_CLAIM_REST, {"taken": taken, "n": self.limit - len(rows)})).all()
            )
        # What is embedded is the text a reader sees (speaker and content), not the content alone.
        pending, unreadable = [], []
        for r in rows:
            try:
                content = fields.open_text(
                    r.content, tenant=r.tenant_id, table="messages", field="content", row=r.message_id
                )
            except DecryptError:  # failed at once: it must not hold up the batch, nor every batch after
                unreadable.append(r.message_id)
                continue
            sentences = tuple(message_sentences(name=r.name, content=content)) if self.sentences else ()
            pending.append(
                Pending(r.message_id, message_text(name=r.name, content=content), r.trace_parent, sentences)
            )
        if unreadable:
            await conn.execute(_UNREADABLE, {"ids": unreadable, "err": UNREADABLE})
        return pending

    async def call(self, items: Sequence[Pending]) -> list[Embedded]:
        """The messages' texts and their sentences' in one model call."""
        texts = [i.content for i in items] + [s for i in items for s in i.sentences]
        vecs = await self.embedder.embed(texts)
        out, at = [], len(items)
        for n, item in enumerate(items):
            k = len(item.sentences)
            out.append(Embedded(as_db_vector(vecs[n]), pack_vectors(vecs[at : at + k]) if k else None))
            at += k
        return out

    async def store(self, conn: AsyncConnection, done: Sequence[tuple[Pending, Embedded]]) -> None:
        await conn.execute(
            _STORE,
            {
                "ids": [i.message_id for i, _ in done],
                "vecs": [e.vector for _, e in done],
                "sents": [e.sentences for _, e in done],
            },
        )

    async def fail(
        self, conn: AsyncConnection, failed: Sequence[Pending], error: str, retry: RetryPolicy
    ) -> None:
        rows = (
            await conn.execute(_FAIL, {"ids": [i.message_id for i in failed], "err": error, **retry.params()})
        ).all()
        # Given up on: one `indexing.failed` webhook event per user, in this transaction.
        by_user: dict[tuple[str, str], list[Any]] = {}
        for r in rows:
            if r.embed_status == "failed":
                by_user.setdefault((r.tenant_id, r.user_id), []).append(r)
        for (tenant_id, user_id), gone in by_user.items():
            data = {
                "user_id": user_id,
                "messages": [{"session_id": r.session_id, "message_id": str(r.message_id)} for r in gone],
                "error": error,
            }
            await outbox.emit(conn, tenant_id=tenant_id, user_id=user_id, type_="indexing.failed", data=data)
