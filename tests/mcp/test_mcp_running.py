"""Calls running at once, counted across replicas in a real Redis (toolspecs.server.running).

Each :class:`RunningCalls` with its own :class:`SharedSlots` (its own Redis client) stands
for one replica; they share the session's redis-server (tests/conftest.py), or one this
module starts and stops. Waits are real and short (leases of under a second); the
Redis server keeps the real clock.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import threading

import anyio
import pytest

from toolspecs.server import running
from toolspecs.server.running import RunningCalls, SharedSlots

pytestmark = pytest.mark.serving

redis = pytest.importorskip("redis")

ADA = "user https://login.example.com ada"
BOB = "user https://login.example.com bob"


def replica(url: str, cap: int = 2, lease: float = running.LEASE_SECONDS) -> RunningCalls:
    return RunningCalls(cap, SharedSlots(redis.Redis.from_url(url), lease=lease))


def wait(seconds: float) -> None:
    threading.Event().wait(seconds)  # time.sleep records its waits here (conftest)


async def test_two_replicas_sharing_redis_hold_one_cap_together(redis_url):
    first, second = replica(redis_url), replica(redis_url)
    async with contextlib.AsyncExitStack() as held:
        assert await held.enter_async_context(first.slot(ADA, ADA)) is True
        assert await held.enter_async_context(second.slot(ADA, ADA)) is True
        # Each replica runs one of Ada's calls: a third is refused on either.
        async with first.slot(ADA, ADA) as free:
            assert free is False
        async with second.slot(ADA, ADA) as free:
            assert free is False
        async with second.slot(BOB, BOB) as free:  # another user has slots of his own
            assert free is True
        # A session (no caller key) counts in its own process only, as before.
        async with first.slot("a session") as free:
            assert free is True
    # Both finished: their slots are back in Redis, and nothing is left in this process.
    assert first.running(ADA) == second.running(ADA) == 0
    assert redis.Redis.from_url(redis_url).keys("toolspecs:calls:*") == []
    async with first.slot(ADA, ADA) as one, second.slot(ADA, ADA) as two:
        assert (one, two) == (True, True)


async def test_a_call_that_fails_or_is_cancelled_gives_its_slot_back(redis_url):
    only = replica(redis_url, cap=1)
    with pytest.raises(KeyError):
        async with only.slot(ADA, ADA) as free:
            assert free is True
            raise KeyError("the call's own failure passes through unchanged")
    with anyio.move_on_after(0.05):
        async with only.slot(ADA, ADA):
            await anyio.sleep(5)
    async with replica(redis_url, cap=1).slot(ADA, ADA) as free:
        assert free is True


def test_keys_name_no_user_and_a_running_call_keeps_its_lease(redis_url):
    slots = SharedSlots(redis.Redis.from_url(redis_url), lease=1.5)  # renewed every 0.5 s
    call = slots.take(ADA, 1)
    assert call is not None
    (key,) = redis.Redis.from_url(redis_url).keys("toolspecs:calls:*")
    assert b"ada" not in key and key == slots.key(ADA).encode()
    wait(3.5)  # past two leases: renewed by this process while the call runs
    assert slots.take(ADA, 1) is None
    slots.give(call)
    assert slots.take(ADA, 1) is not None


def test_a_replica_that_dies_holding_slots_frees_them_after_the_lease(redis_url):
    # The lease is long enough that a loaded machine reaches the first check within it
    # (2 s was not: CI with other work beside it took longer between the take and the check).
    dying = SharedSlots(redis.Redis.from_url(redis_url), lease=8.0)
    assert dying.take(ADA, 2) is not None and dying.take(ADA, 2) is not None
    del dying  # gone without giving its slots back, as a killed process
    gc.collect()
    other = SharedSlots(redis.Redis.from_url(redis_url), lease=8.0)
    assert other.take(ADA, 2) is None  # the dead replica's slots still count...
    wait(8.5)
    assert other.take(ADA, 2) is not None  # ...until their lease ends


async def test_redis_stopped_falls_back_to_each_replicas_own_cap_and_says_so_once(
    own_redis, caplog, monkeypatch
):
    monkeypatch.setattr(running, "RETRY_SECONDS", 0.0)  # ask Redis again on every call
    url, stop = own_redis
    first, second = replica(url), replica(url)
    async with first.slot(ADA, ADA) as free:
        assert free is True
    stop()
    with caplog.at_level(logging.WARNING, logger="toolspecs.server.running"):
        async with contextlib.AsyncExitStack() as held:
            # Each replica lets two of Ada's calls run: its own cap, never none.
            for counter in (first, first, second, second):
                assert await held.enter_async_context(counter.slot(ADA, ADA)) is True
            for counter in (first, second):
                async with counter.slot(ADA, ADA) as free:
                    assert free is False
    said = [r.getMessage() for r in caplog.records if r.name == "toolspecs.server.running"]
    # One line per replica for the whole outage, naming what happens, never refusing.
    assert len(said) == 2
    assert all("counting each replica's own until it answers" in line for line in said)
