"""`toolspecs serve --http`: streamable HTTP behind a bearer token, on the address it binds.

The server runs as a subprocess (the real command line); mcp's own client connects to
the URL it announces, sending the token as a client configuration does. Every wait is
bounded and the process is always stopped.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
from contextlib import AbstractContextManager as ContextManager

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from serving import TOOLSPECS, announced_url, read_lines, toolspecs_serve
from toolsets import offered

pytestmark = pytest.mark.serving

TOKEN = "test-token-" + "x" * 32  # what a person puts in $TOOLSPECS_SERVE_TOKEN
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
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def served(*args: str, env: dict[str, str] | None = None) -> ContextManager[tuple[str, list[str]]]:
    """``toolspecs serve --sandbox --http --port 0 ARGS``: its URL and what it printed."""
    environment = {**os.environ, "TOOLSPECS_SERVE_TOKEN": TOKEN, **(env or {})}
    return toolspecs_serve(*args, env={k: v for k, v in environment.items() if v is not None})


def refused(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A ``toolspecs serve --http`` that must not start (bounded)."""
    environment = {**os.environ, "TOOLSPECS_SERVE_TOKEN": TOKEN, **(env or {})}
    return subprocess.run(
        [str(TOOLSPECS), "serve", "--sandbox", "--http", "--port", "0", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
        check=False,
    )


async def call_with_token(url: str, token: str, calls: list[tuple[str, dict]]) -> list:
    """List the tools and make ``calls`` as a configured client does (the token in a header)."""
    headers = {"Authorization": f"Bearer {token}"}
    with anyio.fail_after(60):
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30)) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport) as client:
                names = [t.name for t in (await client.list_tools()).tools]
                return [names] + [await client.call_tool(n, a) for n, a in calls]


def test_streamable_http_on_loopback_answers_only_with_the_token():
    with served("arxiv", "wolfram_alpha") as (url, said):
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        calls = [
            ("arxiv_query", {"query": "language models", "max_results": "2"}),
            ("wolfram_alpha_query", {"query": ""}),
        ]
        names, done, wrong = anyio.run(call_with_token, url, TOKEN, calls)
        assert names == offered("arxiv", "wolfram_alpha")  # each default set, in order
        assert done.is_error is False and done.content[0].text.count("arXiv id:") == 2
        assert wrong.is_error is True and "query" in wrong.content[0].text

        # Another local user with curl and no token: 401, and how to authenticate.
        for headers in ({}, {"Authorization": "Bearer guessed"}, {"Authorization": TOKEN}):
            anonymous = httpx.post(
                url, json=INITIALIZE, headers={**MCP_HEADERS, **headers}, timeout=30
            )
            assert anonymous.status_code == 401, headers
            assert anonymous.headers["www-authenticate"].startswith("Bearer")
        # A page of another site that the browser sends here (DNS rebinding): 421.
        forged = httpx.post(
            url,
            json=INITIALIZE,
            headers={**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}", "Host": "evil.example"},
            timeout=30,
        )
        assert forged.status_code == 421
        # Where the token is, never the token.
        assert any("$TOOLSPECS_SERVE_TOKEN" in line for line in said)
        assert not any(TOKEN in line for line in said)


def test_loopback_written_another_way_keeps_the_rebinding_check():
    with served("wolfram_alpha", "--host", "127.0.0.2") as (url, said):
        assert url.startswith("http://127.0.0.2:")
        authorized = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"}
        for host, status in (("rebind.attacker.example", 421), (url.split("/")[2], 200)):
            answer = httpx.post(
                url, json=INITIALIZE, headers={**authorized, "Host": host}, timeout=30
            )
            assert answer.status_code == status, host
        evil = {**authorized, "Origin": "http://rebind.attacker.example"}
        assert httpx.post(url, json=INITIALIZE, headers=evil, timeout=30).status_code == 403
        assert not any("other machines" in line for line in said)


def test_an_address_other_machines_reach_needs_allow_remote_and_host_names():
    done = refused("wolfram_alpha", "--host", "0.0.0.0")
    assert done.returncode != 0
    (line,) = done.stderr.strip().splitlines()
    assert "takes connections from other machines; add --allow-remote" in line
    done = refused("wolfram_alpha", "--host", "0.0.0.0", "--allow-remote")
    assert done.returncode != 0
    assert "--allowed-host NAME" in done.stderr.strip().splitlines()[-1]


def test_without_a_token_one_is_made_in_a_private_file_and_only_its_place_is_printed(tmp_path):
    state = tmp_path / "state"
    env = {"TOOLSPECS_SERVE_TOKEN": "", "XDG_STATE_HOME": str(state)}
    with served("wolfram_alpha", env=env) as (url, said):
        made = state / "toolspecs" / "serve-token"
        token = made.read_text(encoding="utf-8").strip()
        assert stat.S_IMODE(made.stat().st_mode) == 0o600
        assert stat.S_IMODE(made.parent.stat().st_mode) == 0o700
        assert len(token) >= 40
        assert any(str(made) in line for line in said)
        assert not any(token in line for line in said)
        (_, answer) = anyio.run(
            call_with_token, url, token, [("wolfram_alpha_query", {"query": "2+2"})]
        )
        assert answer.is_error is False


def test_sessions_are_capped():
    with served("wolfram_alpha", "--max-sessions", "2") as (url, _):
        headers = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"}
        answers = [
            httpx.post(url, json=INITIALIZE, headers=headers, timeout=30).status_code
            for _ in range(3)
        ]
        assert answers == [200, 200, 503]


@pytest.mark.parametrize(
    ("option", "value"),
    [("--max-sessions", "0"), ("--max-sessions-per-user", "none"), ("--session-idle", "soon")],
)
def test_bad_session_options_are_one_line(option, value):
    done = refused("wolfram_alpha", option, value)
    assert done.returncode == 2
    assert "is not a whole number from 1 to 1000000" in done.stderr


def test_the_server_answers_health_logs_json_and_stops_on_sigterm():
    process = subprocess.Popen(
        [
            str(TOOLSPECS),
            "serve",
            "--sandbox",
            "--http",
            "--port",
            "0",
            "--log-format=json",
            "wolfram_alpha",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TOOLSPECS_SERVE_TOKEN": TOKEN},
    )
    lines, reader = read_lines(process)
    said: list[str] = []
    try:
        url = announced_url(lines, seconds=120, said=said)
        base = url.removesuffix("/mcp")
        assert httpx.get(f"{base}/healthz", timeout=30).json() == {"status": "ok"}
        assert httpx.get(f"{base}/readyz", timeout=30).json() == {"status": "ready"}
        headers = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}", "X-Request-Id": "lb-42"}
        started = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
        assert started.status_code == 200 and started.headers["x-request-id"] == "lb-42"
        session = {"Mcp-Session-Id": started.headers["mcp-session-id"]}
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "wolfram_alpha_query", "arguments": {"query": "3 * 14.50"}},
        }
        versioned = {**headers, **session, "MCP-Protocol-Version": "2025-11-25"}
        httpx.post(
            url,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=versioned,
            timeout=30,
        )
        answer = httpx.post(url, json=call, headers=versioned, timeout=30)
        assert answer.status_code == 200 and "43.5" in answer.text
        anonymous = httpx.post(url, json=INITIALIZE, headers=MCP_HEADERS, timeout=30)
        assert anonymous.status_code == 401 and anonymous.headers["x-request-id"]

        process.send_signal(signal.SIGTERM)
        # uvicorn stops gracefully, then raises the signal it caught again: killed by it.
        assert process.wait(timeout=60) in (0, -signal.SIGTERM)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
        reader.join(timeout=30)
        if process.stderr is not None:
            process.stderr.close()
    while not lines.empty():
        said.append(lines.get())
    records = [json.loads(line) for line in said if line.startswith("{")]
    access = [r for r in records if r["logger"] == "toolspecs.access"]
    calls = [r for r in records if r["logger"] == "toolspecs.calls"]
    assert {r["status"] for r in access} >= {200, 401}
    assert all(r["request_id"] for r in access) and all("timestamp" in r for r in access)
    (tool_call,) = calls
    assert (tool_call["tool"], tool_call["outcome"], tool_call["request_id"]) == (
        "wolfram_alpha_query",
        "ok",
        "lb-42",
    )
    assert not any(TOKEN in line for line in said)


def test_stateless_requests_stand_alone_and_the_token_holder_runs_a_few_calls_at_once():
    # --stateless: no Mcp-Session-Id; each request of a handshake-era client stands alone.
    # The calls running at once count for the token's holder (one person), not per
    # request: with every call held 3 s by the fake, six at once run four and refuse two.
    with served("wolfram_alpha", "--stateless", "--sandbox-latency", "3s") as (url, _):
        headers = {**MCP_HEADERS, "Authorization": f"Bearer {TOKEN}"}
        started = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
        assert started.status_code == 200 and "mcp-session-id" not in started.headers

        async def one(results: list) -> None:
            with anyio.fail_after(60):
                async with httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(30)
                ) as http:
                    transport = streamable_http_client(url, http_client=http)
                    async with Client(transport, mode="legacy") as client:
                        query = {"query": "3 * 14.50"}
                        results.append(await client.call_tool("wolfram_alpha_query", query))

        async def six() -> list:
            results: list = []
            async with anyio.create_task_group() as group:
                for _ in range(6):
                    group.start_soon(one, results)
            return results

        texts = [r.content[0].text for r in anyio.run(six)]
        refused = [t for t in texts if t.startswith("You already have 4 tool calls running.")]
        assert len(refused) == 2
        assert sum("43.5" in t for t in texts) == 4


def test_a_path_cannot_forge_lines_of_the_text_access_log():
    # The attack: an unauthenticated request whose path carries %0D%0A and a whole made-up
    # record after it. The log writes the path as sent (percent-encoded), on its line.
    process = subprocess.Popen(
        [str(TOOLSPECS), "serve", "--sandbox", "--http", "--port=0", "--log-format=text", "arxiv"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TOOLSPECS_SERVE_TOKEN": TOKEN},
    )
    lines, reader = read_lines(process)
    said: list[str] = []
    forged = "2026-05-01%2012:00:00,000%20toolspecs.access%20POST%20/mcp%20200"
    try:
        base = announced_url(lines, seconds=120, said=said).removesuffix("/mcp")
        for path in (f"/mcp%0D%0A{forged}", f"/mcp%0A{forged}", "/mcp%00%1b[2J%E2%80%AE"):
            answer = httpx.post(f"{base}{path}", json=INITIALIZE, headers=MCP_HEADERS, timeout=30)
            assert answer.status_code in (401, 404)
    finally:
        process.terminate()
        process.wait(timeout=60)
        reader.join(timeout=30)
        if process.stderr is not None:
            process.stderr.close()
    while not lines.empty():
        said.append(lines.get())
    access = [line for line in said if " toolspecs.access " in line]
    assert len(access) == 3, said
    assert not any(line.startswith("2026-05-01 12:00:00,000") for line in said)
    assert f"toolspecs.access POST /mcp%0D%0A{forged} " in access[0]
    assert f"toolspecs.access POST /mcp%0A{forged} " in access[1]
    assert "toolspecs.access POST /mcp%00%1b[2J%E2%80%AE " in access[2]
