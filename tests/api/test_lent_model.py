"""An app given a loaded model (`create_app(model=...)`, as the tests' apps are) embeds with it
and leaves it open at shutdown: the model is its lender's, shared by the other apps of the process."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from asgi_lifespan import LifespanManager

from app.ai.embedder import Vectors
from app.ai.local_embedder import LocalEmbedder
from app.main import create_app
from tests.support.app import STARTUP, client_for, make_settings


class _Lent:
    """The session's model, noting what the app asks of it."""

    def __init__(self, inner: LocalEmbedder) -> None:
        self._inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.texts: list[str] = []
        self.closed = False

    async def start(self) -> None:
        await self._inner.start()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts.extend(texts)
        return await self._inner.embed(texts)

    async def aclose(self) -> None:
        self.closed = True


async def test_an_app_embeds_with_a_lent_model_and_leaves_it_open(
    database_url: str, embedder: LocalEmbedder
) -> None:
    lent = _Lent(embedder)
    query = f"where does Ada live now? {uuid.uuid4().hex}"
    app = create_app(make_settings(database_url, auth="off", run_worker=False), model=lent)
    async with (
        LifespanManager(app, startup_timeout=STARTUP, shutdown_timeout=STARTUP) as m,
        client_for(m.app) as c,
    ):
        r = await c.post("/v1/search", json={"query": query, "user_id": f"u-{uuid.uuid4().hex}"})
        assert r.status_code == 200, r.text
    assert query in lent.texts  # the app's query embedding came from the lent model
    assert not lent.closed
    assert embedder.encode(["still open"]).shape == (1, 384)
