"""Messages for the worker's tests to embed: appended through an in-process app that runs no
worker, so whatever embeds them (a worker of the test's, a process) finds them pending."""

from __future__ import annotations

import numpy as np
from asgi_lifespan import LifespanManager

from tests.support.app import STARTUP, client_for, make_app, make_settings

WORDS = [
    "coffee",
    "lisbon",
    "marathon",
    "sister",
    "dentist",
    "guitar",
    "python",
    "garden",
    "invoice",
    "birthday",
    "train",
    "museum",
    "recipe",
    "mortgage",
    "violin",
    "hiking",
    "kitten",
    "airport",
    "novel",
    "tennis",
]


def texts(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    return [f"message {i}: " + " ".join(rng.choice(WORDS, size=int(rng.integers(5, 40)))) for i in range(n)]


async def seed(url: str, n: int, *, session: str = "s1", seed: int = 0) -> list[str]:
    """Append n messages through the API of an app that runs no worker."""
    app = make_app(make_settings(url, auth="off", run_worker=False, redis_url=None))
    said = texts(n, seed)
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,
    ):  # type: ignore[arg-type]
        r = await c.post("/v1/sessions", json={"user_id": "u1", "session_id": session})
        assert r.status_code in (201, 409), r.text
        for start in range(0, n, 500):
            batch = [{"role": "user", "content": t} for t in said[start : start + 500]]
            r = await c.post(f"/v1/sessions/{session}/messages", json={"messages": batch})
            assert r.status_code == 201, r.text
    return said
