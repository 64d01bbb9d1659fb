"""Keyword document frequencies kept for the largest users, so their searches do not count them.

Hybrid and keyword search weigh each query word by its IDF over the user's messages
(app/search/sql.WEIGHTS_CTES). For a scope of up to 10,000 messages they are counted on every search;
a larger one was sampled (its first 10,000 messages read on every search): at 1M messages that read
took ~19 ms and the count ~11 ms a word, most of a large user's search (docs/benchmarks.md, search
at 1M, session 15). So the worker's sweep of the large users' own indexes (app/search/user_indexes.py)
also counts, for each user past ENGRAM_SEARCH_USER_INDEX_MIN_ROWS in a bucket with indexes, how many
of their messages hold each lexeme (`user_terms`) and how many messages that was (`user_term_counts`),
and their searches look up the query's few lexemes instead (`sql.KEPT_WEIGHTS`).

Stale by design: a user's counts are taken again when their sessions have had more than
REFRESH_GROWTH more messages appended since (sessions.last_seq summed), or after REFRESH_AGE, so
they miss at most about a tenth of the user's messages plus one sweep's worth; an IDF moves little
with that. A message whose words were never counted only weighs as a word no message holds.

The rows go with the user (foreign keys, cascade): a purge or a tenant's deletion leaves no lexeme
behind. With encryption on and sealed texts' words kept out of the keyword index
(ENGRAM_ENCRYPTION_KEYWORD_INDEX=drop), none are kept at all (the searches sample, as before).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

REFRESH_GROWTH = 0.1
REFRESH_AGE = "1 day"

KEPT = text(
    "SELECT tenant_id, user_id, appended, "
    f"refreshed_at < now() - CAST('{REFRESH_AGE}' AS interval) AS old FROM user_term_counts"
)
FORGET = text("DELETE FROM user_term_counts WHERE tenant_id = :t AND user_id = :u")  # cascades
COUNT_DOCS = text(
    "INSERT INTO user_term_counts (tenant_id, user_id, docs, appended) "
    "SELECT :t, :u, count(*), :appended FROM messages WHERE tenant_id = :t AND user_id = :u"
)
# A lexeme's document frequency: a tsvector holds each lexeme once, so its rows per lexeme count
# the messages holding it, as `content_tsv @@ lexeme` does.
COUNT_TERMS = text(
    "INSERT INTO user_terms (tenant_id, user_id, lexeme, df) "
    "SELECT :t, :u, x.lexeme, count(*) FROM messages m CROSS JOIN LATERAL unnest(m.content_tsv) x "
    "WHERE m.tenant_id = :t AND m.user_id = :u GROUP BY x.lexeme"
)


@dataclass
class Result:
    refreshed: int = 0
    forgotten: int = 0


def due(appended: int, counted_at: int | None, old: bool) -> bool:
    """Whether a user's counts are to be taken (again)."""
    return counted_at is None or old or appended > counted_at * (1 + REFRESH_GROWTH)


async def refresh(
    engine: AsyncEngine, conn: AsyncConnection, users: list[tuple[str, str, int]], *, keep: bool
) -> Result:
    """Count the terms of `users` ((tenant, user, messages appended): the large users of the buckets
    with indexes) that are due, and forget those of everyone else (`keep` False: of everyone).
    `conn` is the sweep's (autocommit, holding its lock); each user's counts are replaced in a
    transaction of their own, so a search reads either the old or the new."""
    result = Result()
    if not keep:
        users = []
    kept = {(r.tenant_id, r.user_id): (int(r.appended), bool(r.old)) for r in await conn.execute(KEPT)}
    wanted = {(t, u) for t, u, _ in users}
    for t, u in kept.keys() - wanted:
        await conn.execute(FORGET, {"t": t, "u": u})
        result.forgotten += 1
    for t, u, appended in users:
        counted_at, old = kept.get((t, u), (None, False))
        if not due(appended, counted_at, old):
            continue
        params = {"t": t, "u": u, "appended": appended}
        async with engine.begin() as tx:
            await tx.execute(FORGET, params)
            await tx.execute(COUNT_DOCS, params)
            await tx.execute(COUNT_TERMS, params)
        result.refreshed += 1
    return result
