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
import socket
from collections.abc import Iterator

import anyio
import httpx2
import pytest
from google_signin_fakes import (
    CLIENT_ID,
    CLIENT_SECRET,
    SCOPES,
    on_uvicorn,
    refreshed_by_google,
    secret_of,
)
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from serving import toolspecs_serve
from test_mcp_google_signin import PEOPLE, SEARCH, Running, Storage, signed_in, text_of

from toolspecs.hosting.google.accounts import GoogleSignIn
from toolspecs.hosting.google.signin import GoogleSignInProvider
from toolspecs.loaders.google.testing import FakeGmail
from toolspecs.server import build_server
from toolspecs.server.auth import transport_security
from toolspecs.server.transports import http_app
from toolspecs.server.user_tools import UserTools
from toolspecs.specs.gmail import GmailToolSpec

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


# -- sessions per user, with Google sign-in ----------------------------------------------------

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "curl", "version": "1"},
    },
}


@contextlib.contextmanager
def signing_in(**options) -> Iterator[Running]:
    """The app ``serve_http`` serves with ``sign_in`` and ``options``, on 127.0.0.1."""
    running = Running()
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    running.url = f"http://127.0.0.1:{port}/mcp"

    def provider(url: str) -> GoogleSignInProvider:
        settings = GoogleSignIn(CLIENT_ID, CLIENT_SECRET, SCOPES)
        base = url.rsplit("/", 1)[0]
        made = GoogleSignInProvider(
            settings, running.vault, base, url, transport=running.transport()
        )
        running.provider = made
        return made

    listed = GmailToolSpec(transport=FakeGmail()).to_tool_list(prefix="gmail_")
    running.user_tools = UserTools(running.build, [t.metadata.get_name() for t in listed])
    server = build_server(listed, user_tools=running.user_tools)
    security = transport_security("127.0.0.1", port)
    app = http_app(server, running.url, security, sign_in=provider, **options)
    with refreshed_by_google(running.google), on_uvicorn(app, listening):
        yield running


def access_token(running: Running, email: str) -> str:
    """``email`` signs in (mcp's OAuth client, the fake Google's consent): their token."""
    storage = Storage()
    anyio.run(signed_in, running, email, [], storage)
    token: str = storage.tokens.access_token
    return token


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions in ``error``, a task group's or not."""
    inner = getattr(error, "exceptions", None)
    return [e for one in inner for e in leaves(one)] if inner else [error]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}


def open_session(url: str, token: str) -> httpx2.Response:
    """A handshake-era ``initialize``: it opens a session unless the server has none."""
    return httpx2.post(url, json=INITIALIZE, headers=bearer(token), timeout=30)


async def in_a_session(url: str, token: str, calls: list[tuple[str, dict]]) -> list:
    """mcp's client in a session of its own (the handshake), sending ``token``: calls."""
    with anyio.fail_after(60):
        async with (
            httpx2.AsyncClient(headers=bearer(token), timeout=httpx2.Timeout(30)) as http,
            Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
        ):
            return [await client.call_tool(name, args) for name, args in calls]


def test_one_signed_in_user_cannot_take_every_session_from_the_others():
    alice, bob = PEOPLE[:2]
    with signing_in(max_sessions=5, max_sessions_per_user=2) as running:
        tokens = {email: access_token(running, email) for email in (alice, bob)}
        # The attack: Alice opens session after session. Her third is refused, as hers
        # alone: 429 (the server has room), a JSON-RPC error saying what to do, Retry-After.
        opened = [open_session(running.url, tokens[alice]) for _ in range(3)]
        assert [r.status_code for r in opened] == [200, 200, 429]
        refused = opened[2]
        assert refused.headers["retry-after"] == "60" and "mcp-session-id" not in refused.headers
        error = refused.json()["error"]
        assert error["message"].startswith(
            "Too many open sessions: this account already has 2 sessions open"
        )
        assert "End one" in error["message"]
        # mcp's own client hands the refusal to its caller as the handshake's error.
        with pytest.raises(Exception) as caught:
            anyio.run(in_a_session, running.url, tokens[alice], [])
        (error,) = [e for e in leaves(caught.value) if isinstance(e, MCPError)]
        assert "this account already has 2 sessions open" in str(error)
        # Bob still opens sessions and works in them while Alice holds hers.
        for _ in range(2):
            (found,) = anyio.run(in_a_session, running.url, tokens[bob], [SEARCH])
            assert secret_of(bob) in text_of(found)
        assert open_session(running.url, tokens[bob]).status_code == 200
        # Alice ends one of hers: room for one more of hers again.
        first = {"Mcp-Session-Id": opened[0].headers["mcp-session-id"]}
        ended = httpx2.delete(running.url, headers={**bearer(tokens[alice]), **first})
        assert ended.status_code == 200
        assert open_session(running.url, tokens[alice]).status_code == 200
        # Bob's second makes four of five; Carol takes the fifth; the server is full for
        # everyone then (mcp's 503), Carol included.
        assert open_session(running.url, tokens[bob]).status_code == 200
        carol = access_token(running, PEOPLE[2])
        assert [open_session(running.url, carol).status_code for _ in range(2)] == [200, 503]


def test_stateless_is_honoured_with_google_sign_in():
    # --stateless --google-sign-in: no sessions at all, so neither bound applies; a
    # handshake-era client still works, each request standing alone.
    alice = PEOPLE[0]
    with signing_in(stateless=True, max_sessions=1, max_sessions_per_user=1) as running:
        token = access_token(running, alice)
        started = [open_session(running.url, token) for _ in range(3)]
        assert [r.status_code for r in started] == [200, 200, 200]
        assert not any("mcp-session-id" in r.headers for r in started)
        (found,) = anyio.run(in_a_session, running.url, token, [SEARCH])
        assert secret_of(alice) in text_of(found)
