"""Which buckets the worker gives indexes of their own (app/search/user_indexes.plan)."""

from __future__ import annotations

from app.search.user_indexes import create_sql, index_name, plan
from app.search.user_terms import due


def both(bucket: int) -> dict[str, bool]:
    return {index_name(bucket, "hnsw"): True, index_name(bucket, "tsv"): True}


def test_a_user_past_the_exact_limit_gets_both_indexes() -> None:
    p = plan([(7, 120), (9, 80)], {}, min_rows=100, most=4)
    assert p.build == [(7, "hnsw"), (7, "tsv")]  # 80 is under the limit: still scanned exactly
    assert p.drop == []


def test_only_the_largest_get_indexes() -> None:
    p = plan([(1, 900), (2, 500), (3, 300)], {}, min_rows=100, most=2)
    assert [b for b, _ in p.build] == [1, 1, 2, 2]


def test_a_bucket_keeps_its_indexes_down_to_half_the_limit() -> None:
    # `large` lists users of at least half the limit: 60 keeps bucket 5's indexes, no rebuild
    p = plan([(5, 60)], both(5), min_rows=100, most=4)
    assert p.build == [] and p.drop == []
    # nobody of half the limit left in bucket 5 (purged, or shrunk by retention): both go
    p = plan([], both(5), min_rows=100, most=4)
    assert sorted(p.drop) == sorted(both(5))


def test_an_invalid_index_is_dropped_and_built_again() -> None:
    existing = {index_name(5, "hnsw"): False, index_name(5, "tsv"): True}
    p = plan([(5, 500)], existing, min_rows=100, most=4)
    assert p.drop == [index_name(5, "hnsw")]
    assert p.build == [(5, "hnsw")]


def test_none_wanted_drops_every_one() -> None:
    p = plan([(5, 500)], both(5) | {"ix_messages_content_tsv": True}, min_rows=100, most=0)
    assert sorted(p.drop) == sorted(both(5))  # never an index that is not a bucket's


def test_the_ddl_names_no_user_and_takes_only_a_number() -> None:
    sql = create_sql(17, "hnsw")
    assert "ix_messages_bucket_0017_hnsw" in sql
    assert sql.endswith("WHERE (hashtext(tenant_id || '/' || user_id) & 1023) = 17")
    assert "USING gin (content_tsv)" in create_sql(17, "tsv")


def test_a_users_term_counts_are_taken_again_past_a_tenth_more_or_a_day() -> None:
    assert due(1000, None, old=False)  # never counted
    assert not due(1100, 1000, old=False)
    assert due(1101, 1000, old=False)
    assert due(1000, 1000, old=True)
