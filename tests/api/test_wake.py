"""The wake-up listener (app/jobs/wake.py) on a real Redis: whether it says work is announced."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis

from app.jobs.wake import Listening, listen
from tests.support.app import REDIS_URL


async def _state_after_start(redis: Redis) -> tuple[bool, bool]:
    listening, woken, stop = Listening(), asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(listen(redis, woken, stop, listening))
    try:
        await asyncio.wait_for(woken.wait(), 1.0)  # set on subscribing: nothing missed is lost
    except TimeoutError:
        pass
    finally:
        stop.set()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await redis.aclose()
    return listening.up, woken.is_set()


async def test_the_listener_says_it_is_subscribed_and_wakes_once_on_subscribing() -> None:
    assert await _state_after_start(Redis.from_url(REDIS_URL)) == (True, True)


async def test_a_redis_that_is_down_announces_nothing() -> None:
    down = Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.2)
    assert await _state_after_start(down) == (False, False)
