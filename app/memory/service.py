"""A session's memory: the latest summary, the relevant facts and the newest messages that fit
a token budget, from the Redis window when it is current, else from PostgreSQL."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from app.ai.embedder import Embedder
from app.ai.remote_embedder import EmbedderDown
from app.ai.tokenizer import Tokenizer
from app.cache.answers import AnswerCache, Asked
from app.cache.document import (
    MESSAGE_COLUMNS,
    MESSAGE_JSON,
    SUMMARY_JSON,
    Count,
    Doc,
    counted,
    from_micros,
    line_tokens,
    message_from_row,
    micros,
    summary_from_row,
)
from app.cache.window import Version, Window, WindowCache
from app.db.request import RequestDb
from app.errors import NotFound
from app.facts.relevant import relevant_facts
from app.memory.context import fit

PAGE = 64  # messages per PostgreSQL read when the budget reaches past what is in hand

_SUMMARY = (
    f"SELECT {SUMMARY_JSON} FROM summaries "
    "WHERE tenant_id = :t AND session_id = :s ORDER BY to_seq DESC LIMIT 1"
)


# Whether the user has a valid fact: one index probe, so memory for users without facts pays
# nothing more for them.
def _has_facts(tenant: str) -> str:  # `tenant`: the statement's placeholder for the tenant id
    return (
        f"EXISTS (SELECT 1 FROM facts f WHERE f.tenant_id = {tenant} AND f.user_id = sessions.user_id "
        "AND f.invalid_at IS NULL) AS has_facts"
    )


# Sent on the lane (app/db/lane.py: asyncpg's statement cache, no SQLAlchemy execute, no pool
# checkout): this read runs on every request, and SQLAlchemy's layers cost more CPU than the query.
_VERSION = (
    f"SELECT user_id, last_seq, cache_gen, summarized_seq, {micros('created_at')} AS epoch, "
    f"{_has_facts('$1')} FROM sessions WHERE tenant_id = $1 AND session_id = $2"
)
# The session's version, newest messages and latest summary in one statement, so one snapshot:
# a window is stored under exactly the version it was read at.
_WINDOW = text(
    f"SELECT user_id, last_seq, cache_gen, summarized_seq, {micros('created_at')} AS epoch, "
    f"(SELECT json_agg({MESSAGE_JSON} ORDER BY seq) FROM (SELECT {MESSAGE_COLUMNS} FROM messages "
    "  WHERE tenant_id = :t AND session_id = :s ORDER BY seq DESC LIMIT :n) m) AS messages, "
    f"({_SUMMARY}) AS summary, {_has_facts(':t')} "
    "FROM sessions WHERE tenant_id = :t AND session_id = :s"
)
_OLDER = text(
    f"SELECT json_agg({MESSAGE_JSON} ORDER BY seq DESC) FROM (SELECT {MESSAGE_COLUMNS} FROM messages "
    "WHERE tenant_id = :t AND session_id = :s AND seq < :before ORDER BY seq DESC LIMIT :n) m"
)


def _json(value: Any) -> Any:
    return orjson.loads(value) if isinstance(value, str | bytes) else value


@dataclass
class _Head:
    user_id: str
    version: Version
    summarized_seq: int
    has_facts: bool


def _head(row: Any) -> _Head:  # a RowMapping or an asyncpg Record
    return _Head(
        user_id=row["user_id"],
        version=Version(last_seq=row["last_seq"], cache_gen=row["cache_gen"], epoch=row["epoch"]),
        summarized_seq=row["summarized_seq"],
        has_facts=row["has_facts"],
    )


async def _read_window(
    conn: AsyncConnection, *, tenant_id: str, session_id: str, size: int
) -> tuple[_Head, Window]:
    row = (await conn.execute(_WINDOW, {"t": tenant_id, "s": session_id, "n": size})).first()
    if row is None:
        raise NotFound(f"No session {session_id}.")
    head = _head(row._mapping)
    messages = [message_from_row(tenant_id, session_id, m) for m in _json(row.messages) or []]
    window = Window(
        version=head.version,
        messages=messages,
        summary=summary_from_row(tenant_id, _json(row.summary)),
        complete=len(messages) < size,
    )
    return head, window


def _wanted(doc: Doc, roles: set[str] | None) -> bool:
    return roles is None or doc["role"] in roles


def _newest_first(docs: Sequence[Doc]) -> Iterator[Doc]:
    """Walk a window from its newest message; cached windows parse each message only when reached."""
    for i in range(len(docs) - 1, -1, -1):
        yield docs[i]


def _walk(
    docs: Sequence[Doc], *, max_tokens: int, last_n: int | None, roles: set[str] | None, count: Count
) -> tuple[bool, list[Doc]]:
    """Whether the messages in hand already fill the budget (or last_n), usually after a few, and
    the wanted ones walked, newest first: all of them when they do not fill it, so the answer is
    fitted from this list (a cached window's messages parsed and counted once, not per pass)."""
    walked: list[Doc] = []
    tokens = 0
    for doc in _newest_first(docs):
        if not _wanted(doc, roles):
            continue
        walked.append(doc)
        tokens += line_tokens(doc, count)  # counted as the message entered the cache
        if tokens > max_tokens or (last_n is not None and len(walked) >= last_n):
            return True, walked
    return False, walked


async def _read_older(
    conn: AsyncConnection,
    *,
    tenant_id: str,
    session_id: str,
    before: int,
    max_tokens: int,
    tokenizer: Tokenizer,
) -> list[Doc]:
    """Messages older than `before`, newest first, a page at a time, until they alone cover the
    budget or the session's first message is read (the window in hand did not cover it)."""
    out: list[Doc] = []
    tokens = 0
    while tokens <= max_tokens and before > 1:
        rows = _json(
            (
                await conn.execute(_OLDER, {"t": tenant_id, "s": session_id, "before": before, "n": PAGE})
            ).scalar()
        )
        for r in rows or []:
            doc = message_from_row(tenant_id, session_id, r)
            out.append(doc)
            tokens += line_tokens(doc, tokenizer.count)
        if not rows or len(rows) < PAGE:
            break
        before = out[-1]["seq"]
    return out


def _left_out(
    window: Window,
    older: list[Doc],
    kept: list[Doc],
    *,
    boundary: int,
    roles: set[str] | None,
    head: _Head,
) -> int:
    """Messages neither shown nor covered by the summary shown: seq in (boundary, first shown).

    Counted in the messages in hand (by bisection, so a cached window is not parsed for it);
    past the oldest of them, by seq (an upper bound if some were deleted). With a role filter,
    only the messages in hand are counted (past them, seqs do not say which role they had).
    """
    first = kept[0]["seq"] if kept else head.version.last_seq + 1
    if roles is not None:
        return sum(
            1
            for d in itertools.chain(window.messages, older)
            if boundary < d["seq"] < first and _wanted(d, roles)
        )
    docs = window.messages

    def seq(d: Doc) -> int:
        return int(d["seq"])

    n, k = len(docs), len(kept)
    # The shown messages are usually the window's newest, already parsed: no bisection (whose
    # probes parse messages of a cached window that nothing else reads).
    hi = n - k if 0 < k <= n and docs[n - k]["seq"] == first else bisect.bisect_left(docs, first, key=seq)
    lo = 0 if not docs or docs[0]["seq"] > boundary else bisect.bisect_right(docs, boundary, hi=hi, key=seq)
    count = hi - lo
    count = max(count, 0) + sum(1 for d in older if boundary < d["seq"] < first)
    oldest = older[-1]["seq"] if older else (docs[0]["seq"] if docs else first)
    if not window.complete and oldest - 1 > boundary and not (older and len(older) < PAGE):
        count += oldest - 1 - boundary
    return count


def _shown(doc: Doc) -> Doc:
    """A message as the answer shows it: without its line's token count (the cache's own)."""
    out = doc.copy()  # a cached window's docs may be shared (app.cache.window's opened docs)
    out.pop("lt", None)
    return out


@dataclass
class Memory:
    json: bytes  # the answer's body, as sent
    source: str  # "cache", "database" (cache miss or no cache)
    fact_ids: list[str]  # the facts the context shows (their last use is recorded after the answer)
    # The query could not be embedded (shared endpoint down): facts ranked as without a query.
    query_unranked: bool = False


@dataclass(frozen=True)
class FactsPolicy:
    """How many of the user's facts a context may show, and how relevant they must be."""

    limit: int
    min_score: float
    half_life_days: float


async def _facts(
    db: RequestDb,
    *,
    embedder: Embedder,
    policy: FactsPolicy,
    tenant_id: str,
    session_id: str,
    head: _Head,
    query: str | None,
    docs: Sequence[Doc],
) -> tuple[list[Doc], bool]:
    """The facts, and whether `query` was left out because it could not be embedded."""
    if not head.has_facts or policy.limit == 0:
        return [], False
    vector = None
    unranked = False
    if query is not None:
        try:
            vector = (await embedder.embed([query]))[0]
        except EmbedderDown:  # a memory read still answers; only the facts' order is worse
            unranked = True
    anchor = None
    if vector is None:  # the newest user message in hand stands for what comes next
        anchor = next((int(d["seq"]) for d in _newest_first(docs) if d["role"] == "user"), None)
    found = await relevant_facts(
        await db.connection(),
        tenant_id=tenant_id,
        user_id=head.user_id,
        session_id=session_id,
        query_vector=None if vector is None else vector.tolist(),
        anchor_seq=anchor,
        limit=policy.limit,
        min_score=policy.min_score,
        half_life_days=policy.half_life_days,
    )
    return found, unranked


def _by_score(facts: list[Doc]) -> list[Doc]:
    """In the order of the score the answer shows (the query's cosine), best first; facts without
    a score (no vector yet) after those with one, in the order they came (by importance). The SQL
    picks the best with a little importance added, which may order them otherwise."""
    return sorted(facts, key=lambda f: (f["score"] is None, -(f["score"] or 0.0)))


def _fact_doc(row: Doc) -> Doc:
    return {
        "fact_id": row["fact_id"],
        "content": row["content"],
        "kind": row["kind"],
        "metadata": row["metadata"],
        "valid_from": from_micros(row["valid_us"]),
        "score": row["score"],
    }


async def get_memory(
    db: RequestDb,
    *,
    cache: WindowCache,
    tokenizer: Tokenizer,
    embedder: Embedder,
    facts_policy: FactsPolicy,
    tenant_id: str,
    session_id: str,
    max_tokens: int,
    query: str | None,
    last_n: int | None,
    roles: set[str] | None,
    summary_share: float = 1.0,
    facts_share: float = 1.0,
    answers: AnswerCache | None = None,
) -> Memory:
    """Raises BudgetTooSmall (422) when the newest message (of `roles`) alone exceeds `max_tokens`.

    `answers`: where finished answers are kept (app/cache/answers.py); a read asked again at the
    same version, by a user without facts, is answered from it after the version read alone."""
    window: Window | None = None
    head: _Head | None = None
    source = "database"

    def fill(docs: Sequence[Doc]) -> tuple[bool, list[Doc]]:
        return _walk(docs, max_tokens=max_tokens, last_n=last_n, roles=roles, count=tokenizer.count)

    walk: tuple[bool, list[Doc]] | None = None  # _walk of the window in hand, once done
    keeping = answers if answers is not None and answers.enabled else None
    asked = None
    if keeping is not None:
        asked = Asked(
            tenant_id=tenant_id,
            session_id=session_id,
            max_tokens=max_tokens,
            last_n=last_n,
            roles=frozenset(roles) if roles is not None else None,
            summary_share=summary_share,
            facts_share=facts_share,
        )
    if cache.healthy:
        row = await db.lane.fetchrow(_VERSION, tenant_id, session_id)
        if row is None:
            raise NotFound(f"No session {session_id}.")
        head = _head(row)
        if keeping is not None and asked is not None and not head.has_facts:
            kept = keeping.get(asked, head.version.key())
            if kept is not None:
                return Memory(json=kept, source="cache", fact_ids=[])
        # ~30 tokens a chat line: ask Redis for about what the budget can hold, not the window.
        # (With a role filter, the whole window: it may take many lines to find the role's.)
        tail = None if roles is not None else max(16, max_tokens // 24 + 8, last_n or 0)
        window = await cache.get(tenant_id, session_id, head.version, tail=tail)
        if window is not None and window.partial:
            walk = fill(window.messages)
            if not walk[0]:
                window = await cache.get(tenant_id, session_id, head.version)
                walk = None  # another window: not yet walked
        if window is not None:
            source = "cache"
    if window is None:
        # Without the cache, read about what the budget can hold (~30 tokens a line), not a window.
        size = cache.window if cache.healthy else min(max(PAGE, max_tokens // 24 + 8, last_n or 0), 1000)
        conn = await db.connection()
        head, window = await _read_window(conn, tenant_id=tenant_id, session_id=session_id, size=size)
        if cache.healthy:
            counted(window.messages, tokenizer.count)
            await cache.put(tenant_id, session_id, window)
    assert head is not None

    older: list[Doc] = []
    if not window.complete and window.messages:
        if walk is None:
            walk = fill(window.messages)
        if not walk[0]:  # the budget reaches past the window (rare)
            older = await _read_older(
                await db.connection(),
                tenant_id=tenant_id,
                session_id=session_id,
                before=window.messages[0]["seq"],
                max_tokens=max_tokens,
                tokenizer=tokenizer,
            )

    def candidates() -> Iterator[Doc]:
        if walk is not None:  # the budget ends within these, or they are all of the window's
            yield from walk[1]
            yield from (d for d in older if _wanted(d, roles))
            return
        for doc in itertools.chain(_newest_first(window.messages), older):
            if _wanted(doc, roles):
                yield doc

    facts, unranked = await _facts(
        db,
        embedder=embedder,
        policy=facts_policy,
        tenant_id=tenant_id,
        session_id=session_id,
        head=head,
        query=query,
        docs=window.messages,
    )
    fitted = fit(
        max_tokens=max_tokens,
        summary=window.summary,
        facts=[_fact_doc(f) for f in _by_score(facts)],
        newest_first=candidates(),
        count=tokenizer.count,
        last_n=last_n,
        summary_share=summary_share,
        facts_share=facts_share,
    )
    boundary = fitted.summary["to_seq"] if fitted.summary else 0
    left_out = _left_out(window, older, fitted.messages, boundary=boundary, roles=roles, head=head)
    body = {
        "session_id": session_id,
        "user_id": head.user_id,
        "last_seq": head.version.last_seq,
        "summary": fitted.summary,
        "facts": fitted.facts,
        "messages": [_shown(d) for d in fitted.messages],
        "context": fitted.context,
        "token_count": fitted.token_count,
        "max_tokens": max_tokens,
        "omitted": {
            "summary": fitted.omitted["summary"],
            "facts": fitted.omitted["facts"],
            "unsummarized_messages": left_out,
        },
    }
    json = orjson.dumps(body)
    # Kept only when the window (one snapshot at head.version) held every message shown: older
    # messages are read after the version, so an edit between the two could be in them.
    if keeping is not None and asked is not None and not head.has_facts and not older:
        keeping.put(asked, head.version.key(), json)
    return Memory(
        json=json, source=source, fact_ids=[f["fact_id"] for f in fitted.facts], query_unranked=unranked
    )
