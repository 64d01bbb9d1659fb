"""Facts that are right (issue 12), end to end through the API and the worker with the local
extractor: negations end what they negate, corrections are retroactive, opposite preferences are
never both current, and a second named speaker's facts are theirs, not the user's."""

from __future__ import annotations

from typing import Any

import httpx


async def _facts(api: httpx.AsyncClient, user: str, **params: str) -> list[dict[str, Any]]:
    r = await api.get(f"/v1/users/{user}/facts", params=params)
    assert r.status_code == 200, r.text
    items: list[dict[str, Any]] = r.json()["items"]
    return items


async def _say(api: httpx.AsyncClient, session: str, *lines: tuple[str, str], role: str = "user") -> None:
    msgs = [{"role": role, "content": c, "created_at": at} for c, at in lines]
    r = await api.post(f"/v1/sessions/{session}/messages", json={"messages": msgs})
    assert r.status_code == 201, r.text
    r = await api.post(f"/v1/sessions/{session}/extract", params={"wait_seconds": 30})
    assert r.status_code == 202 and r.json()["done"], r.text


async def _session(api: httpx.AsyncClient, user: str) -> str:
    r = await api.post("/v1/sessions", json={"user_id": user})
    assert r.status_code == 201, r.text
    session: str = r.json()["session_id"]
    return session


async def test_no_longer_and_anymore_end_what_they_negate(api: httpx.AsyncClient) -> None:
    s = await _session(api, "neg")
    await _say(
        api,
        s,
        ("I love fish.", "2026-01-10T10:00:00Z"),
        ("I like hiking in the mountains.", "2026-01-10T10:01:00Z"),
        ("I love jazz.", "2026-01-10T10:02:00Z"),
    )
    before = {f["content"] for f in await _facts(api, "neg")}
    assert {"Likes fish.", "Likes hiking in the mountains.", "Likes jazz."} <= before, before
    await _say(
        api,
        s,
        ("I no longer eat fish.", "2026-02-01T10:00:00Z"),
        ("I don't like hiking anymore.", "2026-02-01T10:01:00Z"),
    )
    now = {f["content"] for f in await _facts(api, "neg")}
    assert "Likes jazz." in now and not any("fish" in c or "hiking" in c for c in now), now
    ended = {f["content"]: f for f in await _facts(api, "neg", include_invalid="true") if f["invalid_at"]}
    assert ended["Likes fish."]["invalid_at"] == "2026-02-01T10:00:00Z"
    assert ended["Likes hiking in the mountains."]["invalid_at"] == "2026-02-01T10:01:00Z"


async def test_opposite_preferences_are_never_both_current(api: httpx.AsyncClient) -> None:
    s = await _session(api, "opp")
    await _say(api, s, ("I like hiking in the mountains.", "2026-01-10T10:00:00Z"))
    await _say(api, s, ("I dislike the mountains.", "2026-03-10T10:00:00Z"))
    now = [f["content"] for f in await _facts(api, "opp")]
    assert now == ["Dislikes the mountains."], now
    old = next(f for f in await _facts(api, "opp", include_invalid="true") if f["invalid_at"])
    history = (await api.get(f"/v1/facts/{old['fact_id']}/history")).json()["items"]
    assert [e["reason"] for e in history] == ["extracted", "contradicted"]


async def test_a_correction_is_retroactive_and_a_move_is_not(api: httpx.AsyncClient) -> None:
    s = await _session(api, "fix")
    await _say(api, s, ("I live in Berlin.", "2026-01-10T10:00:00Z"))
    await _say(api, s, ("Actually I moved to Paris, not Berlin.", "2026-01-12T10:00:00Z"))
    everything = {f["content"]: f for f in await _facts(api, "fix", include_invalid="true")}
    berlin, paris = everything["Lives in Berlin."], everything["Lives in Paris."]
    # Berlin never held; Paris holds from when Berlin was said.
    assert berlin["invalid_at"] == berlin["valid_from"] == "2026-01-10T10:00:00Z"
    assert berlin["superseded_by"] == paris["fact_id"] and paris["valid_from"] == "2026-01-10T10:00:00Z"
    for at in ("2026-01-10T10:00:00Z", "2026-01-11T00:00:00Z", "2026-01-13T00:00:00Z"):
        homes = [f["content"] for f in await _facts(api, "fix", as_of=at, kind="location")]
        assert homes == ["Lives in Paris."], (at, homes)
    history = (await api.get(f"/v1/facts/{berlin['fact_id']}/history")).json()["items"]
    assert [e["reason"] for e in history] == ["extracted", "corrected"]

    # A later real move ends Paris at the move.
    await _say(api, s, ("I moved to Lyon.", "2026-06-01T10:00:00Z"))
    paris = next(
        f for f in await _facts(api, "fix", include_invalid="true") if f["fact_id"] == paris["fact_id"]
    )
    assert paris["invalid_at"] == "2026-06-01T10:00:00Z"


async def test_i_meant_corrects_the_previous_statement_read_in_an_earlier_step(
    api: httpx.AsyncClient,
) -> None:
    s = await _session(api, "meant")
    await _say(api, s, ("I just moved to Berlin!", "2026-01-10T10:00:00Z"))
    await _say(api, s, ("Sorry, I meant Paris.", "2026-01-10T10:02:00Z"))
    assert [f["content"] for f in await _facts(api, "meant")] == ["Lives in Paris."]
    homes = [f["content"] for f in await _facts(api, "meant", as_of="2026-01-10T10:01:00Z")]
    assert homes == ["Lives in Paris."], homes


async def test_facts_about_every_named_speaker_are_kept_apart(api: httpx.AsyncClient) -> None:
    s = await _session(api, "pair")
    msgs = [
        {"role": "user", "name": "Sam", "content": "I live in Lisbon and I'm a nurse."},
        {"role": "assistant", "name": "Priya", "content": "Nice! I moved to Porto last year."},
        {"role": "assistant", "content": "I live in the cloud."},  # a model: no source
    ]
    r = await api.post(f"/v1/sessions/{s}/messages", json={"messages": msgs})
    assert r.status_code == 201, r.text
    assert (await api.post(f"/v1/sessions/{s}/extract", params={"wait_seconds": 30})).json()["done"]
    facts = {(f["speaker"], f["content"]) for f in await _facts(api, "pair")}
    assert facts == {(None, "Lives in Lisbon."), (None, "Works as a nurse."), ("Priya", "Lives in Porto.")}
    # Priya's home does not end the user's: each speaker's slots are their own.
    priya = await _facts(api, "pair", speaker="Priya")
    assert [f["content"] for f in priya] == ["Lives in Porto."]
    mine = await _facts(api, "pair", speaker="")
    assert {f["content"] for f in mine} == {"Lives in Lisbon.", "Works as a nurse."}
    # The memory context says whose fact it is.
    memory = (await api.get(f"/v1/sessions/{s}/memory", params={"max_tokens": 2000})).json()
    assert "Priya: Lives in Porto." in {f["content"] for f in memory["facts"]}


async def test_extract_does_not_answer_done_while_a_job_is_pending(api: httpx.AsyncClient) -> None:
    s = await _session(api, "pend")
    r = await api.post(
        f"/v1/sessions/{s}/messages", json={"messages": [{"role": "user", "content": "I love tea."}]}
    )
    assert r.status_code == 201
    r = await api.post(f"/v1/sessions/{s}/extract")
    body = r.json()
    assert r.status_code == 202 and body["done"] is False and body["job"] is not None, body
