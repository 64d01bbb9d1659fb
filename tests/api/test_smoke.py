from __future__ import annotations

import httpx


async def test_round_trip(api: httpx.AsyncClient) -> None:
    r = await api.post("/v1/sessions", json={"user_id": "u1", "session_id": "s1", "metadata": {"a": 1}})
    assert r.status_code == 201, r.text
    r = await api.post(
        "/v1/sessions/s1/messages",
        json={
            "messages": [{"role": "user", "content": "hello world"}, {"role": "assistant", "content": "hi"}]
        },
    )
    assert r.status_code == 201, r.text
    msgs = r.json()["messages"]
    assert [m["seq"] for m in msgs] == [1, 2]
    assert msgs[0]["token_count"] == 2
    r = await api.get("/v1/sessions/s1/messages")
    assert r.status_code == 200
    assert [m["content"] for m in r.json()["items"]] == ["hello world", "hi"]
