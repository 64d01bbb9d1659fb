"""The largest users' own indexes (app/search/user_indexes.py): built by the worker's sweep for users
past ENGRAM_SEARCH_USER_INDEX_MIN_ROWS, used by their searches once built, naming nobody, dropped
when nobody large is left in their bucket, rebuilt when a build was cut short."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
import pytest
from sqlalchemy import TextClause, text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.crypto import fields
from app.crypto.envelope import Keyring, new_key
from app.db.embedded import EmbeddedPostgres
from app.search import service
from app.search import sql as q
from app.search.schemas import SearchRequest
from app.search.user_indexes import LOCK_KEY, ROW_BUCKET, index_name, maintain
from tests.support.app import make_settings
from tests.support.db import create_database, engine_for

TENANT = "tenant-x"
SIZES = {"ada-lovelace@example.com": 300, "bob": 160, "cy": 20}  # MIN_ROWS below
MIN_ROWS = 100
TOPICS = ["pottery", "sailing", "violin", "chess", "gardening", "climbing"]


@pytest.fixture(scope="module")
async def url(pg: EmbeddedPostgres) -> str:
    return await create_database(pg)


@pytest.fixture
async def engine(url: str) -> AsyncIterator[AsyncEngine]:
    engine = engine_for(url)
    async with engine.begin() as conn:
        await conn.execute(text("DELETE FROM tenants WHERE tenant_id = :t"), {"t": TENANT})
        await conn.execute(text("INSERT INTO tenants (tenant_id) VALUES (:t)"), {"t": TENANT})
        rng = np.random.default_rng(3)
        for user, n in SIZES.items():
            await conn.execute(
                text("INSERT INTO users (tenant_id, user_id) VALUES (:t, :u)"), {"t": TENANT, "u": user}
            )
            await conn.execute(
                text(
                    "INSERT INTO sessions (tenant_id, session_id, user_id, last_seq) VALUES (:t, :s, :u, :n)"
                ),
                {"t": TENANT, "s": f"s-{user}", "u": user, "n": n},
            )
            vecs = rng.normal(size=(n, 384)).astype(np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            await conn.execute(
                text(
                    "INSERT INTO messages (message_id, tenant_id, session_id, user_id, seq, role, "
                    "content, token_count, embedding, embed_status) "
                    "SELECT gen_random_uuid(), :t, :s, :u, o, 'user', c, 5, CAST(v AS vector), 'done' "
                    "FROM unnest(CAST(:vecs AS text[]), CAST(:texts AS text[])) "
                    "WITH ORDINALITY AS x(v, c, o)"
                ),
                {
                    "t": TENANT,
                    "s": f"s-{user}",
                    "u": user,
                    "vecs": ["[" + ",".join(f"{x:.6f}" for x in v) + "]" for v in vecs],
                    "texts": [f"note {i} about {TOPICS[i % len(TOPICS)]}" for i in range(n)],
                },
            )
    await maintain(engine, min_rows=MIN_ROWS, most=0)  # none left from another test
    yield engine
    await engine.dispose()


async def bucket_of(engine: AsyncEngine, user: str) -> int:
    async with engine.connect() as conn:
        return int(
            (
                await conn.execute(
                    text("SELECT hashtext(CAST(:t AS text) || '/' || CAST(:u AS text)) & 1023"),
                    {"t": TENANT, "u": user},
                )
            ).scalar_one()
        )


async def bucket_indexes(engine: AsyncEngine) -> dict[str, tuple[bool, str]]:
    async with engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT c.relname, i.indisvalid, pg_get_expr(i.indpred, i.indrelid) FROM pg_index i "
                "JOIN pg_class c ON c.oid = i.indexrelid "
                "WHERE c.relname LIKE 'ix_messages_bucket_%'"
            )
        )
        return {r[0]: (bool(r[1]), str(r[2])) for r in rows}


async def searched(
    engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch, user: str, **settings: Any
) -> tuple[list[str], list[tuple[TextClause, dict[str, Any]]]]:
    """A hybrid search of `user` through the service, and the statements it sent through `q.fetch`."""
    from app.ai.local_embedder import LocalEmbedder

    sent: list[tuple[TextClause, dict[str, Any]]] = []
    real = q.fetch

    async def spy(conn: Any, stmt: TextClause, params: dict[str, Any]) -> list[dict[str, Any]]:
        sent.append((stmt, params))
        return await real(conn, stmt, params)

    monkeypatch.setattr(q, "fetch", spy)
    s = make_settings("postgresql://unused", **settings)
    req = SearchRequest.model_validate({"query": "a note about pottery", "user_id": user, "limit": 10})
    async with engine.begin() as conn:
        res = await service.search(conn, tenant_id=TENANT, req=req, embedder=LocalEmbedder(s), settings=s)
    monkeypatch.undo()
    return [str(h.id) for h in res.results], sent


async def indexes_used(engine: AsyncEngine, stmt: TextClause, params: dict[str, Any]) -> set[str]:
    """The indexes a plan of `stmt` reads with the table's other indexes gone (dropped inside the
    transaction, then rolled back) and sorts and plain scans priced out: the bucket's indexes
    appear only where PostgreSQL can prove they apply (at this table size it would rather read
    the user's b-tree and sort)."""
    async with engine.connect() as conn, conn.begin() as tx:
        others = await conn.execute(
            text(
                "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                "WHERE i.indrelid = CAST('messages' AS regclass) "
                "AND c.relname NOT LIKE 'ix_messages_bucket_%' "
                "AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)"
            )
        )
        for (name,) in others.all():
            await conn.execute(text(f'DROP INDEX "{name}"'))
        for setting in (
            "plan_cache_mode = force_custom_plan",
            "enable_sort = off",
            "enable_seqscan = off",
        ):
            await conn.execute(text(f"SET LOCAL {setting}"))
        plan = (await conn.execute(text("EXPLAIN (FORMAT JSON) " + stmt.text), params)).scalar_one()
        await tx.rollback()
    return set(_names(plan if isinstance(plan, list) else json.loads(plan)))


def _names(node: Any) -> list[str]:
    if isinstance(node, list):
        return [n for x in node for n in _names(x)]
    if isinstance(node, dict):
        own = [node["Index Name"]] if "Index Name" in node else []
        return own + [n for v in node.values() for n in _names(v)]
    return []


async def test_large_users_get_their_own_indexes_and_their_searches_use_them(
    engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = await maintain(engine, min_rows=MIN_ROWS, most=4)
    buckets = {await bucket_of(engine, u) for u in ("ada-lovelace@example.com", "bob")}
    found = await bucket_indexes(engine)
    assert set(found) == {index_name(b, k) for b in buckets for k in ("hnsw", "tsv")}
    assert result.built == len(found) and all(valid for valid, _ in found.values())
    # the catalog names no tenant and no user: only a bucket number
    for _, predicate in found.values():
        assert "ada" not in predicate and "bob" not in predicate and TENANT not in predicate
        assert predicate.startswith("((hashtext(((tenant_id || '/'::text) || user_id)) & 1023) =")

    user = "ada-lovelace@example.com"
    own = {index_name(await bucket_of(engine, user), k) for k in ("hnsw", "tsv")}
    ann, sent = await searched(engine, monkeypatch, user, search_user_index_min_rows=MIN_ROWS)
    (stmt, params), *_ = sent
    assert ROW_BUCKET in stmt.text  # its indexes are built: the search names the bucket
    assert own <= await indexes_used(engine, stmt, params)
    # and finds what the exact scan finds (an HNSW graph of 300 rows misses none at this ef_search)
    exact, sent = await searched(engine, monkeypatch, user, search_user_index_min_rows=10_000)
    assert ROW_BUCKET not in sent[0][0].text  # under the size for indexes of its own: exact
    assert ann == exact and len(ann) == 10
    # with the indexes off, the bucket is not named: the search scans exactly, as below the limit
    _, sent = await searched(
        engine, monkeypatch, user, search_user_index_min_rows=MIN_ROWS, search_user_indexes=0
    )
    assert ROW_BUCKET not in sent[0][0].text


async def test_the_planner_knows_a_users_rows_lie_in_one_bucket(engine: AsyncEngine) -> None:
    """Migration 0016's statistics: without them the bucket's filter counts as independent of the
    user's, the estimate falls to a fraction of a percent, and sorting the user's rows looks cheaper
    than the bucket's HNSW index (at 1M messages, 640 ms against 2 ms)."""
    async with engine.begin() as conn:
        await conn.execute(text("ANALYZE messages"))
        plan = (
            await conn.execute(
                text(
                    "EXPLAIN (FORMAT JSON) SELECT 1 FROM messages WHERE tenant_id = :t AND user_id = :u "
                    f"AND {ROW_BUCKET} = (hashtext(CAST(:t AS text) || '/' || CAST(:u AS text)) & 1023)"
                ),
                {"t": TENANT, "u": "ada-lovelace@example.com"},
            )
        ).scalar_one()
    rows = (plan if isinstance(plan, list) else json.loads(plan))[0]["Plan"]["Plan Rows"]
    assert rows >= SIZES["ada-lovelace@example.com"] / 2, rows


async def test_a_user_whose_indexes_are_not_built_yet_is_searched_exactly(
    engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = "ada-lovelace@example.com"
    _, sent = await searched(engine, monkeypatch, user, search_user_index_min_rows=MIN_ROWS)
    assert ROW_BUCKET not in sent[0][0].text and "scoped AS MATERIALIZED" in sent[0][0].text
    # past the exact limit with no index of its own: the table's HNSW index, the bucket named anyway
    _, sent = await searched(
        engine, monkeypatch, user, search_user_index_min_rows=MIN_ROWS, search_exact_max_rows=MIN_ROWS
    )
    assert ROW_BUCKET in sent[0][0].text and "scoped AS MATERIALIZED" not in sent[0][0].text


async def test_only_the_largest_get_indexes_and_a_purged_user_leaves_none(engine: AsyncEngine) -> None:
    await maintain(engine, min_rows=MIN_ROWS, most=1)
    biggest = await bucket_of(engine, "ada-lovelace@example.com")
    assert set(await bucket_indexes(engine)) == {index_name(biggest, k) for k in ("hnsw", "tsv")}
    async with engine.begin() as conn:
        await conn.execute(
            text("DELETE FROM users WHERE tenant_id = :t AND user_id = :u"),
            {"t": TENANT, "u": "ada-lovelace@example.com"},
        )
    result = await maintain(engine, min_rows=MIN_ROWS, most=1)
    # bob (160) is next; ada's bucket, with nobody of 50 messages left in it, is dropped
    bob = await bucket_of(engine, "bob")
    assert set(await bucket_indexes(engine)) == {index_name(bob, k) for k in ("hnsw", "tsv")}
    assert result.dropped == (2 if bob != biggest else 0)


async def test_a_build_cut_short_is_built_again(engine: AsyncEngine) -> None:
    await maintain(engine, min_rows=MIN_ROWS, most=4)
    name = index_name(await bucket_of(engine, "bob"), "hnsw")
    async with engine.begin() as conn:  # what a killed CREATE INDEX CONCURRENTLY leaves behind
        await conn.execute(
            text("UPDATE pg_index SET indisvalid = false WHERE indexrelid = CAST(:n AS regclass)"),
            {"n": name},
        )
    assert (await bucket_indexes(engine))[name][0] is False
    result = await maintain(engine, min_rows=MIN_ROWS, most=4)
    assert result.dropped == 1 and result.built == 1
    assert (await bucket_indexes(engine))[name][0] is True


async def test_a_failed_build_is_left_for_the_next_sweep(
    engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.search import user_indexes

    real = user_indexes.create_sql

    def broken(bucket: int, kind: str) -> str:
        sql = real(bucket, kind)
        return sql.replace("vector_cosine_ops", "no_such_ops") if kind == "hnsw" else sql

    monkeypatch.setattr(user_indexes, "create_sql", broken)
    result = await maintain(engine, min_rows=MIN_ROWS, most=1)  # no exception: the sweep succeeds
    assert (result.built, result.failed) == (1, 1)
    monkeypatch.undo()
    result = await maintain(engine, min_rows=MIN_ROWS, most=1)
    assert (result.built, result.failed) == (1, 0)
    async with engine.connect() as conn:  # the pooled connection kept none of the build's settings
        assert (await conn.execute(text("SHOW maintenance_work_mem"))).scalar() != "512MB"


async def test_a_second_worker_skips_while_one_maintains(engine: AsyncEngine) -> None:
    async with engine.connect() as conn:
        await conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": LOCK_KEY})
        try:
            result = await maintain(engine, min_rows=MIN_ROWS, most=4)
        finally:
            await conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": LOCK_KEY})
    assert result.skipped and result.built == 0
    assert await bucket_indexes(engine) == {}


async def kept_counts(engine: AsyncEngine) -> dict[tuple[str, str], tuple[int, dict[str, int]]]:
    """(tenant, user): (messages counted, {lexeme: document frequency}) for every user with counts."""
    async with engine.connect() as conn:
        docs = {
            (r[0], r[1]): int(r[2])
            for r in await conn.execute(text("SELECT tenant_id, user_id, docs FROM user_term_counts"))
        }
        terms: dict[tuple[str, str], dict[str, int]] = {k: {} for k in docs}
        for t, u, lexeme, df in await conn.execute(
            text("SELECT tenant_id, user_id, lexeme, df FROM user_terms")
        ):
            terms.setdefault((t, u), {})[lexeme] = int(df)
    return {k: (docs.get(k, -1), v) for k, v in terms.items()}


async def test_large_users_keyword_frequencies_are_kept_used_and_go_with_them(
    engine: AsyncEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """app/search/user_terms.py: the sweep counts the large users' document frequencies; their
    searches read them (same ranking as counting them over a scope this small); another tenant's
    user of the same id reads none; a purge takes them."""
    ada, other = "ada-lovelace@example.com", "tenant-y"
    before, sent = await searched(engine, monkeypatch, ada, search_user_index_min_rows=MIN_ROWS)
    assert "sample AS MATERIALIZED" in sent[0][0].text and "user_terms" not in sent[0][0].text
    result = await maintain(engine, min_rows=MIN_ROWS, most=4)
    assert result.terms.refreshed == 2
    kept = await kept_counts(engine)
    assert set(kept) == {(TENANT, ada), (TENANT, "bob")}  # not cy (20 messages)
    docs, terms = kept[(TENANT, ada)]
    assert docs == SIZES[ada] and terms["potteri"] == SIZES[ada] // len(TOPICS)
    async with engine.connect() as conn:  # the same count as the sample's `content_tsv @@ lexeme`
        n = await conn.scalar(
            text(
                "SELECT count(*) FROM messages WHERE tenant_id = :t AND user_id = :u "
                "AND content_tsv @@ CAST('note' AS tsquery)"
            ),
            {"t": TENANT, "u": ada},
        )
    assert terms["note"] == n == SIZES[ada]
    after, sent = await searched(engine, monkeypatch, ada, search_user_index_min_rows=MIN_ROWS)
    (stmt, params), *_ = sent
    assert "user_terms" in stmt.text and "sample AS MATERIALIZED" not in stmt.text
    assert params["docs"] == SIZES[ada]
    assert after == before  # the whole scope counted either way: the same weights, the same ranking
    # a second sweep with nothing appended counts nobody again
    assert (await maintain(engine, min_rows=MIN_ROWS, most=4)).terms.refreshed == 0

    # another tenant's user of the same id has no counts and reads none
    async with engine.begin() as conn:
        await conn.execute(text("DELETE FROM tenants WHERE tenant_id = :t"), {"t": other})
        await conn.execute(text("INSERT INTO tenants (tenant_id) VALUES (:t)"), {"t": other})
        await conn.execute(
            text("INSERT INTO users (tenant_id, user_id) VALUES (:t, :u)"), {"t": other, "u": ada}
        )
    from app.ai.local_embedder import LocalEmbedder

    sent.clear()
    real = q.fetch

    async def spy(conn: Any, stmt: TextClause, params: dict[str, Any]) -> list[dict[str, Any]]:
        sent.append((stmt, params))
        return await real(conn, stmt, params)

    monkeypatch.setattr(q, "fetch", spy)
    s = make_settings("postgresql://unused", search_user_index_min_rows=MIN_ROWS)
    req = SearchRequest.model_validate({"query": "pottery", "user_id": ada, "limit": 10})
    async with engine.begin() as conn:
        await service.search(conn, tenant_id=other, req=req, embedder=LocalEmbedder(s), settings=s)
    monkeypatch.undo()
    assert "user_terms" not in sent[0][0].text

    # a purge of the user takes their counts (cascade); a tenant's deletion, everyone's
    async with engine.begin() as conn:
        await conn.execute(
            text("DELETE FROM users WHERE tenant_id = :t AND user_id = :u"), {"t": TENANT, "u": ada}
        )
    assert set(await kept_counts(engine)) == {(TENANT, "bob")}
    async with engine.begin() as conn:
        await conn.execute(text("DELETE FROM tenants WHERE tenant_id = :t"), {"t": TENANT})
        await conn.execute(text("DELETE FROM tenants WHERE tenant_id = :t"), {"t": other})
        assert await conn.scalar(text("SELECT count(*) FROM user_terms")) == 0


async def test_no_frequencies_kept_where_sealed_words_are_not_indexed(engine: AsyncEngine) -> None:
    """With encryption on and ENGRAM_ENCRYPTION_KEYWORD_INDEX=drop the keyword index keeps no word
    of a sealed text: no lexeme is kept beside it either (and those kept before go)."""
    await maintain(engine, min_rows=MIN_ROWS, most=4)
    assert await kept_counts(engine)
    token = fields.use(Keyring(f"k1:{new_key()}"))
    try:
        result = await maintain(engine, min_rows=MIN_ROWS, most=4)
    finally:
        fields.done(token)
    assert result.terms.forgotten == 2 and await kept_counts(engine) == {}
    token = fields.use(Keyring(f"k1:{new_key()}", keep_keywords=True))
    try:  # `keep`: the words are in the keyword index anyway
        assert (await maintain(engine, min_rows=MIN_ROWS, most=4)).terms.refreshed == 2
    finally:
        fields.done(token)
    # with the users' own indexes off, none either
    assert (await maintain(engine, min_rows=MIN_ROWS, most=0)).terms.forgotten == 2
