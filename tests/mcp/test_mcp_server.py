"""toolspecs.server.build_server through mcp's own in-memory client.

Each test connects ``mcp.Client`` to the server in-process, both ways mcp offers:
``legacy`` (the initialize handshake and JSON-RPC over memory streams, as stdio and
HTTP clients speak it) and ``auto`` (the 2026-07-28 protocol, dispatched directly).
"""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import ClassVar

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from toolspecs.core import ConfigurationError, ToolGuidance, ToolSpec, tool
from toolspecs.loaders.arxiv.testing import NEEDLE, FakeArxiv
from toolspecs.loaders.google.testing import FakeCalendar, sample_mailbox
from toolspecs.server import build_server, sandbox_spec, tool_definition
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec


@pytest.fixture(params=["legacy", "auto"])
def mode(request) -> str:
    return request.param


@pytest.fixture
def arxiv() -> FakeArxiv:
    return FakeArxiv()


@pytest.fixture
def arxiv_spec(arxiv) -> ArxivToolSpec:
    return ArxivToolSpec(transport=arxiv.transport())


def text_of(result) -> str:
    # A stored result also links its resource (test_mcp_resources.py): the text comes first.
    block, *links = result.content
    assert all(link.type == "resource_link" for link in links)
    assert block.type == "text"
    return block.text


async def test_every_tool_is_listed_with_our_schema_description_title_and_marks(mode):
    gmail = GmailToolSpec(transport=sample_mailbox()).to_tool_list(prefix="gmail_")
    calendar = GoogleCalendarToolSpec(transport=FakeCalendar(), allow_destructive=True)
    calendar.spec_functions = calendar.all_functions  # the server follows the instance
    ours = {t.metadata.name: t for t in [*gmail, *calendar.to_tool_list()]}
    server = build_server(gmail, calendar)

    async with Client(server, mode=mode) as client:
        listed = (await client.list_tools()).tools

    assert [t.name for t in listed] == list(ours)
    for shown in listed:
        mine = ours[shown.name]
        assert shown.input_schema == mine.metadata.fn_schema.model_json_schema()
        assert shown.description == mine.metadata.description
        marks = shown.annotations.model_dump(by_alias=True, exclude_none=True)
        assert marks == {"title": shown.title, **mine.marks.annotations()}
    by_name = {t.name: t for t in listed}
    send = by_name["gmail_send_draft"]
    assert send.title == "Gmail: Send a draft"
    assert (send.annotations.read_only_hint, send.annotations.destructive_hint) == (False, True)
    assert send.annotations.open_world_hint is True
    assert by_name["delete_event"].annotations.destructive_hint is True
    assert by_name["read_stored_events"].annotations.read_only_hint is True
    assert by_name["find_free_time"].title == (
        "Google Calendar: Find free time windows between two times"
    )
    # The typed schema the model receives: types, bounds, enums, descriptions.
    create = by_name["create_event"].input_schema["properties"]
    assert create["attendees"] == {
        "type": "array",
        "items": {"type": "string"},
        "description": "Emails to invite, e.g. ['ada@example.com'].",
    }
    assert create["all_day"]["type"] == "boolean" and create["all_day"]["default"] is False


async def test_the_schema_on_the_wire_is_our_schema(arxiv_spec):
    (query, *_) = arxiv_spec.to_tool_list()
    wire = tool_definition(query).model_dump(by_alias=True, mode="json", exclude_none=True)
    assert wire["inputSchema"] == query.metadata.to_openai_tool()["function"]["parameters"]
    limit = wire["inputSchema"]["properties"]["max_results"]
    assert (limit["type"], limit["minimum"], limit["maximum"]) == ("integer", 1, 50)
    assert wire["annotations"]["readOnlyHint"] is True


async def test_a_tolerant_call_is_read_by_our_model(mode, arxiv, arxiv_spec):
    async with Client(build_server(arxiv_spec), mode=mode) as client:
        result = await client.call_tool(
            "arxiv_query", {"query": "language models", "sort_by": "newest", "max_results": "5"}
        )

    assert result.is_error is False
    assert text_of(result).count("arXiv id:") == 5
    sent = arxiv.requests[-1].url
    assert "max_results=5" in sent and "sortBy=submittedDate" in sent


async def test_guidance_is_an_error_result_with_the_exact_text(mode, arxiv_spec):
    (query, *_) = arxiv_spec.to_tool_list()
    with pytest.raises(ToolGuidance) as expected:
        query.fn(query="attention", max_results=500, colour="blue")

    async with Client(build_server(arxiv_spec), mode=mode) as client:
        result = await client.call_tool(
            "arxiv_query", {"query": "attention", "max_results": 500, "colour": "blue"}
        )

    assert result.is_error is True
    assert text_of(result) == expected.value.text
    assert "500 is above the maximum of 50" in expected.value.text
    assert "colour" in expected.value.text


async def test_a_failing_service_is_guidance_too(mode, arxiv, arxiv_spec):
    arxiv.fail.append((429, {"Retry-After": "120"}))
    async with Client(build_server(arxiv_spec), mode=mode) as client:
        result = await client.call_tool("arxiv_query", {"query": "bert"})
    assert result.is_error is True
    assert "Wait 120 seconds" in text_of(result)


async def test_a_large_result_is_stored_and_read_back_in_the_same_server(mode, arxiv_spec):
    async with Client(build_server(arxiv_spec), mode=mode) as client:
        preview = await client.call_tool("arxiv_paper_text", {"paper_id": "1706.03762"})
        found = await client.call_tool("read_stored_papers", {"query": "quokka ablation"})

    assert preview.is_error is False
    assert "stored as result 1" in text_of(preview)
    assert "call read_stored_papers with a query" in text_of(preview)
    assert found.is_error is False
    assert NEEDLE in text_of(found)


async def test_a_prefixed_spec_reads_its_own_stored_result(mode):
    gmail = GmailToolSpec(transport=sample_mailbox(long_messages=3), max_results=12)
    server = build_server(gmail.to_tool_list(prefix="gmail_"))
    async with Client(server, mode=mode) as client:
        preview = await client.call_tool("gmail_load_data", {})
        found = await client.call_tool(
            "gmail_read_stored_emails", {"query": "engine ran 14 cycles"}
        )

    assert "call gmail_read_stored_emails with a query" in text_of(preview)
    assert "Report 2: the engine ran 14 cycles without a fault" in text_of(found)


async def test_progress_frames_a_call_when_the_client_asks(mode, arxiv_spec):
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        seen.append((value, total, message))

    async with Client(build_server(arxiv_spec), mode=mode) as client:
        result = await client.call_tool(
            "arxiv_paper_text", {"paper_id": "1706.03762"}, progress_callback=progress
        )
        quiet = await client.call_tool("arxiv_query", {"query": "bert"})  # no token: no progress

    assert result.is_error is False and quiet.is_error is False
    assert seen[0] == (0, None, "arxiv_paper_text started")
    last_value, last_total, last_message = seen[-1]
    assert last_value == last_total and last_message == "arxiv_paper_text finished"
    values = [value for value, _, _ in seen]
    assert values == sorted(set(values))  # progress only goes up


class SlowSpec(ToolSpec):
    """A tool that waits until the client has seen a heartbeat (or 10 s at most)."""

    spec_functions: ClassVar = ["wait_for_heartbeat"]
    service_name = "Slow"

    def __init__(self, heard: threading.Event) -> None:
        self.heard = heard

    @tool(read_only=True, open_world=False)
    def wait_for_heartbeat(self) -> str:
        """Wait for the client to hear that the call is still running."""
        return "heard" if self.heard.wait(timeout=10) else "not heard"


async def test_heartbeats_keep_a_long_call_alive(mode):
    heard = threading.Event()
    messages: list[str | None] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        messages.append(message)
        if message == "wait_for_heartbeat is still working":
            heard.set()

    server = build_server(SlowSpec(heard), heartbeat=0.01)
    async with Client(server, mode=mode) as client:
        result = await client.call_tool("wait_for_heartbeat", {}, progress_callback=progress)

    assert text_of(result) == "heard"
    assert messages[0] == "wait_for_heartbeat started"
    assert messages[-1] == "wait_for_heartbeat finished"


class GateSpec(ToolSpec):
    """A tool that holds its call until the test opens the gate (10 s at most)."""

    spec_functions: ClassVar = ["wait_at_gate"]
    service_name = "Gate"
    thread_safe = True

    def __init__(self, gate: threading.Event) -> None:
        self.gate = gate

    @tool(read_only=True, open_world=False)
    def wait_at_gate(self) -> str:
        """Wait until the gate opens."""
        return "through" if self.gate.wait(timeout=10) else "timed out"


async def test_one_session_runs_a_few_calls_at_once_and_is_told_to_wait_beyond():
    import anyio

    gate = threading.Event()
    server = build_server(GateSpec(gate), max_calls=2)
    results: list = []
    async with Client(server, mode="legacy") as client:

        async def call() -> None:
            results.append(await client.call_tool("wait_at_gate", {}))

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            group.start_soon(call)
            with anyio.fail_after(10):
                while not results:  # the third call is refused at once, the gate shut
                    group.start_soon(call)
                    await anyio.sleep(0.05)
            gate.set()
    texts = [text_of(result) for result in results]
    assert texts[0].startswith("This session already has 2 tool calls running. Wait")
    assert results[0].is_error is True
    assert texts.count("through") == 2


async def test_an_unknown_tool_is_a_protocol_error_naming_the_tools(mode, arxiv_spec):
    async with Client(build_server(arxiv_spec), mode=mode) as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("arxiv_search", {"query": "bert"})
    assert raised.value.code == -32602
    assert "Unknown tool 'arxiv_search'" in raised.value.message
    assert "arxiv_query" in raised.value.message


def test_two_tools_of_one_name_are_refused_with_the_prefix_to_use():
    calendar = GoogleCalendarToolSpec(transport=FakeCalendar())
    gmail = GmailToolSpec(transport=sample_mailbox())
    with pytest.raises(ConfigurationError, match=r"'load_data'.*prefix='gmail_'"):
        build_server(calendar, gmail)


def test_the_server_is_the_low_level_mcp_server(arxiv_spec):
    from mcp.server import Server

    server = build_server(arxiv_spec, name="papers")
    assert isinstance(server, Server)
    assert server.name == "papers"
    assert server.version  # toolspecs-core's version
    app = server.streamable_http_app()  # mountable in your own app (a Starlette app)
    assert [route.path for route in app.routes] == ["/mcp"]


@pytest.mark.dates
async def test_the_sandboxes_answer_through_the_server(mode):
    calendar = sandbox_spec("google_calendar")
    gmail = sandbox_spec("gmail", allow_send=False)
    server = build_server(
        calendar, gmail.to_tool_list(prefix="gmail_"), sandbox_spec("wolfram_alpha")
    )
    async with Client(server, mode=mode) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        events = await client.call_tool("load_data", {"number_of_results": "5"})
        mail = await client.call_tool("gmail_search_messages", {"query": "lunch"})
        sum_ = await client.call_tool("wolfram_alpha_query", {"query": "3 * 14.50"})

    assert "gmail_send_draft" not in names and "gmail_create_draft" in names
    assert "Team standup" in text_of(events)
    assert "Lunch on Tuesday?" in text_of(mail)
    assert "Result:\n43.5" in text_of(sum_)


def test_the_commands_that_only_call_tools_do_not_import_mcp():
    # toolspecs list / describe / call start without the server's SDK: it is imported by
    # toolspecs serve (toolspecs.server imports mcp plainly).
    code = (
        "import sys, toolspecs.cli, toolspecs.cli.assemble, toolspecs.cli.commands; "
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types')]; "
        "assert not loaded, loaded"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_all_lists_exactly_what_is_public():
    import types

    import toolspecs.server

    # dir(), not vars(): SANDBOXES is read from the installed metadata on first use
    # (PEP 562 __getattr__ and __dir__).
    public = {
        name
        for name in dir(toolspecs.server)
        if not name.startswith("_")
        and not isinstance(getattr(toolspecs.server, name), types.ModuleType)
    }
    assert set(toolspecs.server.__all__) == public
