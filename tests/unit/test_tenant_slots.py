"""A tenant's requests over its cap wait in order for a slot, for a bounded time, in a bounded
queue; other tenants are not affected; no slot is lost to a timeout or a cancellation."""

from __future__ import annotations

import asyncio

import pytest

from app.ratelimit.slots import SlotsFull, TenantSlots


async def test_over_the_cap_waits_in_order_and_gets_the_released_slot() -> None:
    slots = TenantSlots(2, queue=8, wait=5)
    await slots.acquire("a")
    await slots.acquire("a")
    order: list[int] = []

    async def queued(i: int) -> None:
        await slots.acquire("a")
        order.append(i)

    waiting = [asyncio.create_task(queued(i)) for i in range(3)]
    await asyncio.sleep(0.01)
    assert order == []
    await slots.acquire("b")  # another tenant is not held up
    # A newcomer does not overtake the queue between a release and the waiter's wake-up.
    slots.release("a")
    late = asyncio.create_task(queued(99))
    await asyncio.sleep(0.01)
    assert order == [0]
    slots.release("a")
    slots.release("a")
    await asyncio.sleep(0.01)
    assert order == [0, 1, 2]
    assert slots.in_flight("a") == 2
    slots.release("a")
    await asyncio.wait_for(late, 1)
    assert order == [0, 1, 2, 99]
    await asyncio.gather(*waiting)


async def test_a_wait_that_ends_is_refused_and_leaves_no_trace() -> None:
    slots = TenantSlots(1, queue=8, wait=0.05)
    await slots.acquire("a")
    with pytest.raises(SlotsFull):
        await slots.acquire("a")
    slots.release("a")
    assert slots.in_flight("a") == 0
    await slots.acquire("a")  # the slot the timed-out waiter did not take is free
    assert slots.in_flight("a") == 1


async def test_a_full_queue_or_no_wait_refuses_at_once() -> None:
    slots = TenantSlots(1, queue=1, wait=5)
    await slots.acquire("a")
    first = asyncio.create_task(slots.acquire("a"))
    await asyncio.sleep(0.01)
    with pytest.raises(SlotsFull):
        await asyncio.wait_for(slots.acquire("a"), 0.5)
    slots.release("a")
    await asyncio.wait_for(first, 1)
    no_wait = TenantSlots(1, queue=8, wait=0)
    await no_wait.acquire("a")
    with pytest.raises(SlotsFull):
        await no_wait.acquire("a")


async def test_a_cancelled_waiter_does_not_swallow_a_slot() -> None:
    slots = TenantSlots(1, queue=8, wait=5)
    await slots.acquire("a")
    waiter = asyncio.create_task(slots.acquire("a"))
    await asyncio.sleep(0.01)
    # The slot is handed over and the waiter cancelled in the same turn of the loop (a client
    # that disconnects just then): it must come back, not stay held by nobody.
    slots.release("a")
    waiter.cancel()
    try:
        await waiter
    except asyncio.CancelledError:
        pass
    else:
        # asyncio.wait_for may let the result win over the cancellation: then the caller holds
        # the slot (the gate releases it when its request ends), which is the same as no loss.
        assert slots.in_flight("a") == 1
        slots.release("a")
    assert slots.in_flight("a") == 0
    await asyncio.wait_for(slots.acquire("a"), 0.5)


async def test_no_cap_means_no_bookkeeping() -> None:
    slots = TenantSlots(0, queue=0, wait=0)
    for _ in range(100):
        await slots.acquire("a")
    slots.release("a")
    assert slots.in_flight("a") == 0
