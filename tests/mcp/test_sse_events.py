"""The stores of SSE events (toolspecs.server.sse_events): bounded, per session, followed.

In memory with a clock of the test's own; in Redis against the session's redis-server
(tests/conftest.py). Each store is given small bounds and filled past them: a stream
keeps its newest events (its answer among them), the bytes stay under the bound, old
events go, and a session's replay never reads another's. Resuming over HTTP, as a client
does: tests/mcp/test_mcp_resume.py.
"""

from __future__ import annotations

import anyio
import pytest
from mcp.server.streamable_http import EventMessage
from mcp_types import JSONRPCNotification, JSONRPCResponse, jsonrpc_message_adapter

from toolspecs.server.resumption import SessionEvents, replay
from toolspecs.server.sse_events import (
    MemoryEvents,
    RedisEvents,
    event_id,
    parse_event_id,
    stream_key,
)


def progress(n: int) -> JSONRPCNotification:
    return JSONRPCNotification(
        jsonrpc="2.0", method="notifications/progress", params={"progressToken": 1, "progress": n}
    )


ANSWER = JSONRPCResponse(jsonrpc="2.0", id=1, result={"content": [], "isError": False})


async def replayed(store: SessionEvents, last: str, follow: float = 0.0) -> tuple[str | None, list]:
    """What a replay after ``last`` sends (the messages) and returns (the stream's id)."""
    sent: list = []

    async def send(event_id: str, data: str) -> None:
        sent.append(jsonrpc_message_adapter.validate_json(data))

    stream = await replay(store.events, store.session, last, send, follow=follow)
    return stream, sent


async def a_long_call(store: SessionEvents, notes: int) -> list[str]:
    """A call's stream: its priming event, ``notes`` progress notifications, its answer."""
    ids = [await store.store_event("1", None)]
    ids += [await store.store_event("1", progress(n)) for n in range(notes)]
    ids.append(await store.store_event("1", ANSWER))
    return ids


def test_event_ids_name_the_stream_and_a_number_nothing_else():
    key = stream_key("session-a", "1")
    assert key != stream_key("session-b", "1")  # one session's event ids name nothing in another
    assert parse_event_id(event_id(key, 42)) == (key, 42)
    for wrong in ("", "42", f"{key}.", f"{key}.x", "../etc", f"{key}.1\nid: 2"):
        assert parse_event_id(wrong) is None


def test_a_stream_past_its_bound_drops_its_oldest_events_and_keeps_its_answer():
    async def run():
        events = MemoryEvents(per_stream=3)
        store = SessionEvents(events, "session-a", "alice")
        priming, *_ = await a_long_call(store, notes=9)
        assert len(events) == 3  # of the 11 events of the stream
        # Resumed from the priming event (itself dropped): the newest kept, answer last.
        assert await replayed(store, priming) == (None, [progress(7), progress(8), ANSWER])

    anyio.run(run)


def test_the_bytes_of_all_sessions_stay_under_the_bound_the_oldest_going_first():
    async def run():
        events = MemoryEvents(max_bytes=20_000)
        text = "x" * 1000
        first = None
        for n in range(200):  # 200 calls of 20 sessions, ~1 kB each
            note = progress(n).model_copy(update={"params": {"progressToken": 1, "t": text}})
            store = SessionEvents(events, f"session-{n % 20}", "alice")
            last = await store.store_event(str(n), note)
            first = first or (store, last)
            assert events.held <= 20_000
        assert 15 <= len(events) <= 20  # ~1.1 kB each: the newest that fit
        assert await replayed(*first) == (None, [])  # the first call's events are gone

    anyio.run(run)


def test_events_older_than_the_age_are_not_replayed_and_go():
    async def run():
        now = [1000.0]
        events = MemoryEvents(max_age=300, clock=lambda: now[0])
        store = SessionEvents(events, "session-a", "alice")
        priming, *_ = await a_long_call(store, notes=1)
        now[0] += 301
        assert await replayed(store, priming) == (None, [])
        await store.store_event("2", None)
        assert len(events) == 1  # the old call's three are dropped

    anyio.run(run)


def test_a_replay_follows_a_running_call_to_its_answer():
    async def run():
        store = SessionEvents(MemoryEvents(), "session-a", "alice")
        priming = await store.store_event("1", None)
        found: list = []
        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:

                async def resumer() -> None:
                    found.append(await replayed(store, priming, follow=30))

                group.start_soon(resumer)
                await anyio.sleep(0.05)  # the resumer waits: the call has not answered
                assert not found
                await store.store_event("1", progress(1))
                await store.store_event("1", ANSWER)
        assert found == [(None, [progress(1), ANSWER])]

    anyio.run(run)


def test_a_session_replays_its_own_events_only():
    async def run():
        events = MemoryEvents()
        mine, theirs = (SessionEvents(events, s, "alice") for s in ("session-a", "session-b"))
        priming = (await a_long_call(theirs, notes=1))[0]
        # Their request id is mine too ("1"): my replay of their event id finds nothing.
        await a_long_call(mine, notes=2)
        assert await replayed(mine, priming) == (None, [])
        assert await replayed(theirs, priming) == (None, [progress(0), ANSWER])
        # The same through mcp's EventStore interface, as its transport replays.
        sent: list[EventMessage] = []

        async def send(event: EventMessage) -> None:
            sent.append(event)

        assert await mine.replay_events_after(priming, send) is None and not sent
        assert await theirs.replay_events_after(priming, send) is None  # ended: no live tail
        assert [e.message for e in sent] == [progress(0), ANSWER]
        assert all(parse_event_id(e.event_id or "") for e in sent)

    anyio.run(run)


@pytest.mark.serving
def test_redis_keeps_the_same_bounds_per_session_with_a_ttl_and_its_owner(redis_url):
    import redis

    client = redis.Redis.from_url(redis_url)

    async def run():
        events = RedisEvents(client, per_stream=3, max_bytes=8_000, max_events=50, max_age=60)
        alice = SessionEvents(events, "session-a", "alice-digest")
        bob = SessionEvents(events, "session-b", "bob-digest")
        priming, *_ = await a_long_call(alice, notes=9)
        assert await replayed(alice, priming) == (None, [progress(7), progress(8), ANSWER])
        assert await replayed(bob, priming) == (None, [])  # bob's session: none of hers
        assert await events.owner("session-a") == "alice-digest"
        assert await events.owner("session-c") is None
        # Bytes per session: 40 calls of ~1 kB in her session keep under 8 kB.
        note = progress(0).model_copy(update={"params": {"t": "x" * 1000}})
        for n in range(40):
            await alice.store_event(str(n + 2), note)
        base = events.base("session-a")
        assert int(client.get(f"{base}:bytes")) <= 8_000
        assert 5 <= client.hlen(f"{base}:ev") <= 7  # ~1.1 kB each: the newest that fit
        assert await replayed(alice, priming) == (None, [])  # the first call's are gone
        keys = client.keys(f"{base}:*")
        assert keys and all(0 < client.pttl(k) <= 60_000 for k in keys)

    try:
        anyio.run(run)
    finally:
        client.close()


@pytest.mark.serving
def test_redis_replay_follows_an_answer_another_replica_stores(redis_url):
    # Two processes' stores on one Redis: the resumer's replica holds nothing of the call,
    # which the other stores; the replay polls Redis until the answer is there.
    async def run():
        here, there = RedisEvents(redis_url), RedisEvents(redis_url)
        resumer = SessionEvents(here, "session-a", "alice")
        caller = SessionEvents(there, "session-a", "alice")
        priming = await caller.store_event("1", None)
        found: list = []
        async with anyio.create_task_group() as group:

            async def resuming() -> None:
                found.append(await replayed(resumer, priming, follow=30))

            group.start_soon(resuming)
            await anyio.sleep(0.3)
            await caller.store_event("1", ANSWER)
        assert found == [(None, [ANSWER])]

    anyio.run(run)
