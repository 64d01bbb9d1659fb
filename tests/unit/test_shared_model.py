"""app.jobs.shared_model: `turns` calls at once (one by default); new messages' embeddings ahead of
the rest."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from app.ai.embedder import Vectors
from app.jobs.shared_model import SharedModel


class Recording:
    """An embedder whose calls take a while and are recorded in order, overlapping or not."""

    name, dim = "recording", 2

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.running = 0
        self.most = 0

    async def start(self) -> None:
        pass

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.running += 1
        self.most = max(self.most, self.running)
        self.calls.append(list(texts))
        await asyncio.sleep(0.01)
        self.running -= 1
        return np.array([[float(t.split()[-1]), 0.0] for t in texts], dtype=np.float32)

    async def aclose(self) -> None:
        pass


async def test_an_urgent_call_waits_for_one_piece_of_a_long_call_not_all_of_it() -> None:
    inner = Recording()
    model = SharedModel(inner, piece=4)
    summary = asyncio.create_task(model.embed([f"sentence {i:02d}" for i in range(20)]))
    await asyncio.sleep(0.005)  # the first piece is in the model
    message = await model.urgent.embed(["message 99"])
    assert message.tolist() == [[99.0, 0.0]]
    assert inner.calls[1] == ["message 99"]  # right after the piece that was running
    vectors = await summary
    assert vectors[:, 0].tolist() == [float(i) for i in range(20)]  # whole and in order
    assert [len(c) for c in inner.calls] == [4, 1, 4, 4, 4, 4]
    assert inner.most == 1  # the model never runs two calls at once


async def test_urgent_calls_go_before_waiting_ones_and_each_in_its_order() -> None:
    inner = Recording()
    model = SharedModel(inner, piece=4)
    first = asyncio.create_task(model.embed(["a 1"]))
    await asyncio.sleep(0)
    later = [asyncio.create_task(model.embed(["b 2"])), asyncio.create_task(model.urgent.embed(["c 3"]))]
    later.append(asyncio.create_task(model.urgent.embed(["d 4"])))
    await asyncio.gather(first, *later)
    assert [c[0] for c in inner.calls] == ["a 1", "c 3", "d 4", "b 2"]
    assert inner.most == 1


async def test_a_cancelled_waiter_does_not_lose_the_turn() -> None:
    inner = Recording()
    model = SharedModel(inner)
    running = asyncio.create_task(model.embed(["a 1"]))
    await asyncio.sleep(0)
    gone = asyncio.create_task(model.urgent.embed(["b 2"]))
    await asyncio.sleep(0)
    gone.cancel()
    await running
    assert (await model.embed(["c 3"])).tolist() == [[3.0, 0.0]]
    assert [c[0] for c in inner.calls] == ["a 1", "c 3"]


async def test_a_long_call_is_cut_into_pieces_of_similar_lengths_and_answered_in_order() -> None:
    inner = Recording()
    model = SharedModel(inner, piece=4)
    rng = np.random.default_rng(5)
    texts = [f"{'word ' * int(rng.integers(1, 40))}{i}" for i in range(30)]
    vectors = await model.embed(texts)
    assert vectors[:, 0].tolist() == [float(i) for i in range(30)]  # each text's own vector, in order
    lengths = [len(t) for call in inner.calls for t in call]
    assert lengths == sorted(lengths)  # shortest first: each piece pads little
    assert [len(c) for c in inner.calls] == [4] * 7 + [2]


async def test_two_turns_run_two_calls_at_once_and_the_third_waits_urgent_first() -> None:
    inner = Recording()
    model = SharedModel(inner, piece=4, turns=2)
    running = [asyncio.create_task(model.embed([f"a {i}"])) for i in (1, 2)]
    await asyncio.sleep(0)
    waiting = [asyncio.create_task(model.embed(["b 3"])), asyncio.create_task(model.urgent.embed(["c 4"]))]
    await asyncio.gather(*running, *waiting)
    assert inner.most == 2  # never more than its turns
    assert [c[0] for c in inner.calls] == ["a 1", "a 2", "c 4", "b 3"]
