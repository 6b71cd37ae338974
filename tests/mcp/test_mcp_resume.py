"""`toolspecs serve --http` (stateful): a client whose SSE stream drops mid-call resumes it.

As a client does, over raw HTTP (httpx): initialize (protocol 2025-11-25), start a call
the sandbox holds for a second (``--sandbox-latency``), read the POST stream's priming
event (an id, no data, a ``retry``), close the connection while the call runs, then
``GET`` with ``Last-Event-ID`` and read the call's answer. Events kept in the server's
memory (one server), and in Redis, resumed through another replica (two servers, the
session's redis-server, users of the test OAuth server: tests/mcp/oauth_server.py). An
event id of another session or user replays nothing of theirs. The stores' bounds are
checked on the stores (tests/mcp/test_sse_events.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import httpx
import pytest
from oauth_server import authorization_server, real_clock_env
from serving import toolspecs_serve

pytestmark = pytest.mark.serving

TOKEN = "test-token-" + "r" * 32
CALL = {"name": "arxiv_query", "arguments": {"query": "attention", "max_results": 1}}
ANSWER = "Title: "  # what an arXiv answer starts with
SLOW = ("--sandbox-latency", "1s")  # the fake arXiv answers after a second


def headers(token: str, session: str | None = None, **more: str) -> dict[str, str]:
    found = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    if session is not None:
        found |= {"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"}
    return found | {k.replace("_", "-"): v for k, v in more.items()}


def events(lines: Iterator[str]) -> Iterator[dict[str, str]]:
    """The SSE events of a stream's lines, each its fields (``data`` as one string)."""
    event: dict[str, str] = {}
    for line in lines:
        if not line:
            if event:
                yield event
            event = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            event[name] = event.get(name, "") + value.removeprefix(" ")


def open_session(http: httpx.Client, url: str, token: str) -> str:
    """Initialize (2025-11-25) and say so: the session's id."""
    hello = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "resumer", "version": "1"},
        },
    }
    answer = http.post(url, json=hello, headers=headers(token))
    assert answer.status_code == 200, answer.text
    session = answer.headers["mcp-session-id"]
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert http.post(url, json=done, headers=headers(token, session)).status_code == 202
    return session


def call_then_drop(http: httpx.Client, url: str, token: str, session: str) -> dict[str, str]:
    """Start the slow call, read the stream's first event, close the connection: that event."""
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": CALL}
    with http.stream("POST", url, json=call, headers=headers(token, session)) as stream:
        assert stream.status_code == 200
        first = next(events(stream.iter_lines()))
    return first  # the connection is closed here, the call still running


def resume(
    http: httpx.Client, url: str, token: str, session: str, last: str
) -> tuple[int, list[dict]]:
    """``GET`` with ``Last-Event-ID``: the status and the messages replayed (to the answer)."""
    asked = headers(token, session, Last_Event_ID=last, Accept="text/event-stream")
    with http.stream("GET", url, headers=asked) as stream:
        if stream.status_code != 200:
            stream.read()
            return stream.status_code, []
        messages = []
        for event in events(stream.iter_lines()):
            if event.get("data"):
                messages.append(json.loads(event["data"]))
                if messages[-1].get("id") == 1:
                    break  # the call's answer: a client closes the stream here
        return 200, messages


def answer_of(messages: list[dict]) -> str:
    (answer,) = [m for m in messages if m.get("id") == 1]
    return str(answer["result"]["content"][0]["text"])


def test_a_stream_dropped_mid_call_is_resumed_by_its_session_and_no_other():
    # One stateful server, its events in memory. A second session (the same token)
    # presenting my event id gets an empty stream; nothing of mine is taken by it.
    env = {**os.environ, "TOOLSPECS_SERVE_TOKEN": TOKEN}
    with toolspecs_serve("arxiv", *SLOW, env=env) as (url, _), httpx.Client(timeout=30) as http:
        mine = open_session(http, url, TOKEN)
        priming = call_then_drop(http, url, TOKEN, mine)
        # The priming event: an id to resume from, no data, and how long to wait.
        assert priming["id"] and priming["data"] == "" and priming["retry"] == "1000"
        other = open_session(http, url, TOKEN)
        assert resume(http, url, TOKEN, other, priming["id"]) == (200, [])
        assert resume(http, url, TOKEN, other, "not-an-id-of-ours") == (200, [])
        status, messages = resume(http, url, TOKEN, mine, priming["id"])
    assert status == 200
    assert answer_of(messages).startswith(ANSWER)


def test_a_call_started_on_one_replica_is_resumed_through_another_on_redis(redis_url):
    # Two stateful replicas behind one address (the audience tokens name), one Redis.
    # Alice's stream to the first drops mid-call; she resumes through the second, which
    # holds no session of hers and answers from Redis. Bob, another user, gets nothing of
    # hers through either: her session id is not his (404), and her event id in a
    # session of his own replays nothing.
    audience = "http://127.0.0.1:9/mcp"  # the load balancer's address
    with authorization_server() as provider:
        replica = ("arxiv", *SLOW, "--auth-issuer", provider.issuer, "--auth-audience", audience)
        env = real_clock_env({"TOOLSPECS_SERVE_TOKEN": ""})
        with (
            toolspecs_serve(*replica, "--store", redis_url, env=env) as (first, _),
            toolspecs_serve(*replica, "--store", redis_url, env=env) as (second, _),
            httpx.Client(timeout=30) as http,
        ):
            alice, bob = provider.token("alice", audience), provider.token("bob", audience)
            session = open_session(http, first, alice)
            last = call_then_drop(http, first, alice, session)["id"]
            assert resume(http, second, bob, session, last) == (404, [])
            bobs = open_session(http, second, bob)
            assert resume(http, second, bob, bobs, last) == (200, [])
            status, messages = resume(http, second, alice, session, last)
            assert status == 200 and answer_of(messages).startswith(ANSWER)
            # Where the session lives, the same answer is replayed from the same events.
            status, again = resume(http, first, alice, session, last)
    assert status == 200 and answer_of(again) == answer_of(messages)
