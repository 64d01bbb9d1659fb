"""Seeded memory for the inspector's browser tests (tests/system/test_ui.py), over the public API only.

`python -m tests.support.ui_seed URL KEY` seeds a running server by hand, to look at the UI."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta

import httpx

# Ada's first session spans months, so her facts have a history: a home that changes (a
# supersession), a job she leaves (an invalidation), and enough turns for summaries.
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
TRIP: list[tuple[int, str, str]] = [
    (0, "user", "Hi! I live in Lisbon and I work at Acme as a data engineer."),
    (0, "assistant", "Nice to meet you. How can I help?"),
    (1, "user", "I'm allergic to peanuts, so keep that in mind for restaurant tips."),
    (1, "assistant", "Noted: no peanuts."),
    (2, "user", "My sister Maria lives in Madrid."),
    (2, "assistant", "Madrid is lovely in spring."),
    (3, "user", "I love hiking in the mountains on weekends."),
    (3, "assistant", "The Serra da Estrela has good trails."),
    (5, "user", "Can you suggest a quiet beach near Lisbon?"),
    (5, "assistant", "Try Praia da Ursa, it is wild and quiet."),
    (8, "user", "I prefer trains to planes when I travel."),
    (8, "assistant", "The train from Lisbon to Porto takes about three hours."),
    (12, "user", "What should I pack for a week in the Alps?"),
    (12, "assistant", "Layers, a rain jacket and good boots."),
    (20, "user", "The hike in the Alps was wonderful."),
    (20, "assistant", "Glad to hear it!"),
    (40, "user", "I don't work at Acme any more."),
    (40, "assistant", "Sorry to hear that. What's next?"),
    (60, "user", "I moved to Porto last month."),
    (60, "assistant", "Porto is a great city. Enjoy the river walks."),
    (61, "user", "Any bakery recommendations in Porto?"),
    (61, "assistant", "Try a pastel de nata near Ribeira."),
    (75, "user", "I work at Globex now as a platform engineer."),
    (75, "assistant", "Congratulations on the new job!"),
    (90, "user", "Plan a weekend trip to Madrid to see my sister."),
    (90, "assistant", "Take the night train and visit the Prado on Saturday."),
]
# Turns after the explicit summary of trip-planning: fewer than the summary policy's trigger, so
# they stay unsummarised, and more than a small memory budget holds, so a memory context of the
# session leaves some of them out, neither shown nor covered (the case tests/system/test_ui.py shows).
TRIP_LATER: list[tuple[int, str, str]] = [
    (95, "user", "Back from Madrid: the night train was comfortable and Maria loved the Prado."),
    (95, "assistant", "Wonderful. Would you like ideas for her visit to Porto in return?"),
    (96, "user", "Yes, she arrives in June and she likes museums, old bookshops and long lunches."),
    (96, "assistant", "Livraria Lello, the Serralves museum, and a long lunch by the Douro in Gaia."),
    (97, "user", "She is also afraid of heights, so nothing like the Dom Luis bridge top deck."),
    (97, "assistant", "Then take the lower deck of the bridge and the riverside tram instead."),
]
COOKING: list[tuple[int, str, str]] = [
    (100, "user", "I'm vegetarian these days."),
    (100, "assistant", "Great, I will suggest vegetarian recipes."),
    (101, "user", "Give me a quick dinner idea without peanuts."),
    (101, "assistant", "A chickpea curry with rice takes twenty minutes."),
]
BOB: list[tuple[int, str, str]] = [
    (10, "user", "I live in Berlin."),
    (10, "assistant", "Hallo Bob!"),
]


def _append(c: httpx.Client, session: str, turns: list[tuple[int, str, str]]) -> None:
    messages = [
        {"role": role, "content": text, "created_at": (START + timedelta(days=day, minutes=i)).isoformat()}
        for i, (day, role, text) in enumerate(turns)
    ]
    r = c.post(f"/v1/sessions/{session}/messages", json={"messages": messages})
    r.raise_for_status()


def seed(url: str, key: str) -> None:
    """Ada (two sessions, summarised and extracted; trip-planning goes on past its summary) and
    Bob (one short session)."""
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=120) as c:
        c.put("/v1/users/ada", json={"metadata": {"name": "Ada"}}).raise_for_status()
        sessions = (("trip-planning", "ada", TRIP), ("cooking", "ada", COOKING), ("bob-1", "bob", BOB))
        for sid, user, turns in sessions:
            c.post("/v1/sessions", json={"session_id": sid, "user_id": user}).raise_for_status()
            _append(c, sid, turns)
        for sid in ("trip-planning", "cooking", "bob-1"):
            c.post(f"/v1/sessions/{sid}/extract", params={"wait_seconds": 60}).raise_for_status()
            c.post(f"/v1/sessions/{sid}/summarize", params={"wait_seconds": 60}).raise_for_status()
        # A summary of a whole session (explicit, or now at its end or when idle) covers every
        # message, so nothing is left unsummarised until the conversation goes on after it.
        _append(c, "trip-planning", TRIP_LATER)


def seed_big(url: str, key: str, *, messages: int = 10_000, batch: int = 1000) -> None:
    """One user with one session of `messages` turns (the large-user case)."""
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=300) as c:
        c.post("/v1/sessions", json={"session_id": "big-session", "user_id": "big-user"}).raise_for_status()
        for start in range(0, messages, batch):
            chunk = [
                {
                    "role": "user" if i % 2 == 0 else "assistant",
                    "content": f"Turn {i + 1}: a note about project {i % 97}, the weather on day {i // 40}.",
                    "created_at": (START + timedelta(minutes=i)).isoformat(),
                }
                for i in range(start, min(start + batch, messages))
            ]
            c.post("/v1/sessions/big-session/messages", json={"messages": chunk}).raise_for_status()


if __name__ == "__main__":
    seed(sys.argv[1], sys.argv[2])
