"""Sessions and calls at once, per person (issue 38, findings 6 and 7), played over HTTP.

``--stateless``: every request stands alone, whatever ``Mcp-Session-Id`` it carries; its
calls count against its user's cap (in Redis too, across replicas). With sessions, one
user opens at most ``--max-sessions-per-user`` of them, so one account cannot take every
session of the server from the others. The servers are the real command line
(``toolspecs serve`` in a subprocess) or, with Google sign-in, the app ``serve_http``
serves, under uvicorn on 127.0.0.1, signed into by mcp's own OAuth client.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Iterator

import anyio
import httpx2
import pytest
from serving import toolspecs_serve

pytestmark = pytest.mark.serving

TOKEN = "test-token-" + "s" * 32
CALL = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "wolfram_alpha_query", "arguments": {"query": "3 * 14.50"}},
}
HEADERS = {
    "Authorization": f"Bearer {TOKEN}",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}
BUSY = "You already have 4 tool calls running."


def answer_of(body: str) -> dict:
    """The JSON-RPC answer of a POST, sent as JSON or as the SSE event carrying it."""
    if body.lstrip().startswith("{"):
        return json.loads(body)
    (data,) = [line[5:] for line in body.splitlines() if line.startswith("data:") and line[5:]]
    return json.loads(data)


async def calls_with_made_up_sessions(urls: list[str], each: int) -> list[str]:
    """``each`` slow calls at once to every URL, each call with a session id of its own."""
    texts: list[str] = []

    async def one(url: str) -> None:
        headers = {**HEADERS, "Mcp-Session-Id": secrets.token_hex(16)}
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(60)) as http:
            answered = await http.post(url, json=CALL, headers=headers)
        assert answered.status_code == 200, answered.text
        texts.append(answer_of(answered.text)["result"]["content"][0]["text"])

    with anyio.fail_after(120):
        async with anyio.create_task_group() as group:
            for url in urls:
                for _ in range(each):
                    group.start_soon(one, url)
    return texts


@contextlib.contextmanager
def stateless_servers(count: int, *extra: str) -> Iterator[list[str]]:
    """``count`` of ``toolspecs serve --stateless`` (each call held 3 s by the fake)."""
    env = {**os.environ, "TOOLSPECS_SERVE_TOKEN": TOKEN}
    with contextlib.ExitStack() as stack:
        urls = []
        for _ in range(count):
            args = ("wolfram_alpha", "--stateless", "--sandbox-latency", "3s", *extra)
            url, _ = stack.enter_context(toolspecs_serve(*args, env=env))
            urls.append(url)
        yield urls


@pytest.mark.parametrize("replicas", ["one", "two sharing redis"])
def test_made_up_session_ids_are_ignored_under_stateless(replicas, request):
    # The attack: eight calls at once, each naming a session id of its own, as if each
    # were a session with a cap of four. Under --stateless there are no sessions: the
    # eight are the token holder's, four run and four are told to wait, on one replica
    # or spread over two that count in one Redis.
    if replicas == "one":
        servers = stateless_servers(1)
    else:
        redis_url = request.getfixturevalue("redis_url")
        servers = stateless_servers(2, "--store", redis_url)
    with servers as urls:
        texts = anyio.run(calls_with_made_up_sessions, urls, 8 // len(urls))
    assert sum("43.5" in t for t in texts) == 4, texts
    assert sum(t.startswith(BUSY) for t in texts) == 4, texts
