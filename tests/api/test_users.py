"""Users: upsert (201 then 200), get, list with a cursor (also while users are being added), delete."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import httpx

from tests.support.problems import assert_problem

# Everything JSON can hold, to prove metadata comes back exactly as sent.
RICH_METADATA: dict[str, Any] = {
    "name": "Ada Lovelace",
    "unicode": "naïve café ☕ 日本語 🙂",
    "int": 42,
    "negative": -7,
    "big": 2**53 + 1,
    "float": 3.25,
    "tiny": 1e-300,
    "bool": True,
    "null": None,
    "empty": {},
    "list": [1, "two", {"three": [3]}, None, False],
    "nested": {"a": {"b": {"c": "deep"}}},
    "": "empty key",
    'quote"and\\slash': "ok",
}


async def list_all_users(api: httpx.AsyncClient, limit: int = 100) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": limit}
        if cursor:
            params["cursor"] = cursor
        r = await api.get("/v1/users", params=params)
        assert r.status_code == 200, r.text
        page = r.json()
        items += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            return items


async def test_upsert_creates_then_replaces(api: httpx.AsyncClient) -> None:
    r = await api.put("/v1/users/ada", json={"metadata": {"plan": "free", "team": "x"}})
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["user_id"] == "ada"
    assert created["metadata"] == {"plan": "free", "team": "x"}
    assert created["created_at"] == created["updated_at"]

    r = await api.put("/v1/users/ada", json={"metadata": {"plan": "pro"}})
    assert r.status_code == 200, r.text
    updated = r.json()
    # PUT replaces the metadata (no merge), keeps the creation time, advances the update time.
    assert updated["metadata"] == {"plan": "pro"}
    assert updated["created_at"] == created["created_at"]
    assert datetime.fromisoformat(updated["updated_at"]) > datetime.fromisoformat(created["updated_at"])

    r = await api.get("/v1/users/ada")
    assert r.status_code == 200
    assert r.json() == updated


async def test_upsert_without_body_fields_means_empty_metadata(api: httpx.AsyncClient) -> None:
    r = await api.put("/v1/users/bare", json={})
    assert r.status_code == 201, r.text
    assert r.json()["metadata"] == {}


async def test_metadata_round_trips_unchanged_on_every_read(api: httpx.AsyncClient) -> None:
    r = await api.put("/v1/users/rich", json={"metadata": RICH_METADATA})
    assert r.status_code == 201, r.text
    assert r.json()["metadata"] == RICH_METADATA
    assert (await api.get("/v1/users/rich")).json()["metadata"] == RICH_METADATA
    (listed,) = [u for u in await list_all_users(api) if u["user_id"] == "rich"]
    assert listed["metadata"] == RICH_METADATA


async def test_get_unknown_user_is_404(api: httpx.AsyncClient) -> None:
    body = assert_problem(await api.get("/v1/users/nobody"), 404, "not-found")
    assert body["instance"] == "/v1/users/nobody"


async def test_list_pages_with_cursor_in_id_order(api: httpx.AsyncClient) -> None:
    ids = [f"user-{i:02d}" for i in range(23)]
    for uid in reversed(ids):  # insertion order must not matter: the list is by id
        assert (await api.put(f"/v1/users/{uid}", json={"metadata": {"uid": uid}})).status_code == 201

    pages: list[list[str]] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 5} | ({"cursor": cursor} if cursor else {})
        page = (await api.get("/v1/users", params=params)).json()
        pages.append([u["user_id"] for u in page["items"]])
        assert all(u["metadata"] == {"uid": u["user_id"]} for u in page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert [len(p) for p in pages] == [5, 5, 5, 5, 3]
    assert [uid for p in pages for uid in p] == ids


async def test_list_is_empty_for_a_new_tenant(api: httpx.AsyncClient) -> None:
    r = await api.get("/v1/users")
    assert r.status_code == 200
    assert r.json() == {"items": [], "next_cursor": None, "prev_cursor": None}


async def test_list_pages_while_users_are_inserted_concurrently(api: httpx.AsyncClient) -> None:
    """Keyset pages: every user present at the start is seen exactly once, whatever is added meanwhile."""
    present = [f"m-{i:03d}" for i in range(0, 80, 2)]
    rs = await asyncio.gather(*(api.put(f"/v1/users/{u}", json={}) for u in present))
    assert [r.status_code for r in rs] == [201] * len(present)

    added = 0

    async def add_users(n: int) -> None:
        # New ids land before, between and after the ones already listed; existing ones are updated.
        nonlocal added
        batch = [f"a-{added + i:03d}" for i in range(n)]
        batch += [f"m-{2 * (added + i) + 1:03d}" for i in range(n)]
        batch += [f"z-{added + i:03d}" for i in range(n)]
        added += n
        rs = await asyncio.gather(
            *(api.put(f"/v1/users/{u}", json={"metadata": {"late": True}}) for u in batch),
            *(api.put(f"/v1/users/{u}", json={"metadata": {"touched": True}}) for u in present[::7]),
        )
        assert all(r.status_code in (200, 201) for r in rs)

    seen: list[str] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 7} | ({"cursor": cursor} if cursor else {})
        r, _ = await asyncio.gather(api.get("/v1/users", params=params), add_users(2))
        assert r.status_code == 200, r.text
        page = r.json()
        seen += [u["user_id"] for u in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
        await add_users(1)  # and between pages, for certain

    assert added > 0
    assert len(seen) == len(set(seen)), "an item was repeated"
    assert seen == sorted(seen)
    missing = set(present) - set(seen)
    assert not missing, f"skipped: {sorted(missing)}"


async def test_delete_user(api: httpx.AsyncClient) -> None:
    assert (await api.put("/v1/users/gone", json={"metadata": {"x": 1}})).status_code == 201
    assert (await api.put("/v1/users/stays", json={})).status_code == 201

    r = await api.delete("/v1/users/gone")
    assert r.status_code == 204
    assert r.content == b""
    assert_problem(await api.get("/v1/users/gone"), 404, "not-found")
    assert_problem(await api.delete("/v1/users/gone"), 404, "not-found")
    assert [u["user_id"] for u in await list_all_users(api)] == ["stays"]

    # The id is free again, as a brand-new user.
    r = await api.put("/v1/users/gone", json={})
    assert r.status_code == 201
    assert r.json()["metadata"] == {}


async def test_delete_unknown_user_is_404(api: httpx.AsyncClient) -> None:
    assert_problem(await api.delete("/v1/users/never-was"), 404, "not-found")


async def test_concurrent_upserts_of_one_user_create_it_once(api: httpx.AsyncClient) -> None:
    rs = await asyncio.gather(*(api.put("/v1/users/racer", json={"metadata": {"n": i}}) for i in range(12)))
    assert sorted(r.status_code for r in rs) == [200] * 11 + [201]
    final = (await api.get("/v1/users/racer")).json()
    assert final["metadata"] in [{"n": i} for i in range(12)]
    assert [u["user_id"] for u in await list_all_users(api)] == ["racer"]
