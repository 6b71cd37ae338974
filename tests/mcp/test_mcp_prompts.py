"""The specs' task prompts: short, naming only served tools, through mcp's own client."""

from __future__ import annotations

import json
import re

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from toolspecs.core import ConfigurationError, list_specs, load_spec
from toolspecs.core.prompts import MAX_PROMPT_TOKENS, PromptArgument, TaskPrompt
from toolspecs.server import build_server, sandbox_spec
from toolspecs.server.server import TOOL_LIST_TTL_MS


@pytest.fixture(params=["legacy", "auto"])
def mode(request) -> str:
    return request.param


@pytest.mark.parametrize("name", list_specs())
def test_every_prompt_is_short_and_uses_only_its_specs_tools(name):
    spec = load_spec(name) if name != "wolfram_alpha" else load_spec(name, app_id="x")
    assert type(spec).prompts, f"{name} offers no prompt"
    known = {*spec.all_functions, spec.reader_name}
    for prompt in type(spec).prompts:
        assert prompt.tokens() <= MAX_PROMPT_TOKENS, prompt.name
        assert set(prompt.uses) <= known, prompt.name
        assert re.fullmatch(r"[a-z_]+", prompt.name)


def served():
    gmail = sandbox_spec("gmail").to_tool_list(prefix="gmail_")
    calendar = sandbox_spec("google_calendar")  # its default tools: no find_free_time
    return build_server(gmail, calendar, sandbox_spec("arxiv"), sandbox_spec("wolfram_alpha"))


@pytest.mark.dates
async def test_prompts_are_listed_when_their_tools_are_served(mode):
    async with Client(served(), mode=mode) as client:
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
    assert sorted(prompts) == [
        "compute",
        "gmail_draft_a_reply",
        "gmail_summarise_unread_mail",
        "my_agenda",
        "new_papers_on",
        "read_this_paper",
    ]  # find_a_meeting_time needs find_free_time, not in Calendar's default tools
    paper = prompts["read_this_paper"]
    assert paper.title == "Read this paper"
    assert [(a.name, a.required) for a in paper.arguments] == [("paper", True)]
    assert [(a.name, a.required) for a in prompts["new_papers_on"].arguments] == [
        ("topic", True),
        ("count", False),
    ]


@pytest.mark.dates
async def test_a_prompt_names_the_tools_as_served_with_the_persons_words(mode):
    async with Client(served(), mode=mode) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        got = await client.get_prompt("gmail_draft_a_reply", {"about": "lunch with Ada"})
        defaults = await client.get_prompt("gmail_summarise_unread_mail", {})
    (message,) = got.messages
    assert message.role == "user" and message.content.type == "text"
    text = message.content.text
    assert "about lunch with Ada" in text and "saying: a short answer" in text
    named = set(re.findall(r"\b(?:gmail_)?[a-z]+_[a-z_]+\b", text)) & {
        n for n in tools if n.startswith("gmail_")
    }
    assert named == {"gmail_search_messages", "gmail_get_message", "gmail_create_draft"}
    assert "max_results 10" in defaults.messages[0].content.text


@pytest.mark.dates
async def test_a_prompt_offered_with_all_tools_and_for_calendar_meetings(mode):
    calendar = sandbox_spec("google_calendar")
    tools = calendar.to_tool_list(spec_functions=calendar.all_functions)
    async with Client(build_server(tools), mode=mode) as client:
        got = await client.get_prompt(
            "find_a_meeting_time", {"people": "ada@example.com", "minutes": "45"}
        )
    text = got.messages[0].content.text
    assert text.startswith("Find 45 free minutes this week for a meeting with ada@example.com.")
    assert "find_free_time" in text and "get_date" in text


@pytest.mark.dates
async def test_wrong_prompt_requests_are_protocol_errors_that_say_what_to_send(mode):
    async with Client(served(), mode=mode) as client:
        with pytest.raises(MCPError, match=r"needs paper\. Fill it in: An arXiv id"):
            await client.get_prompt("read_this_paper", {})
        with pytest.raises(MCPError, match="has no argument colour"):
            await client.get_prompt("compute", {"question": "2+2", "colour": "red"})
        with pytest.raises(MCPError, match="Unknown prompt 'find_a_meeting_time'"):
            await client.get_prompt("find_a_meeting_time", {"people": "ada@example.com"})


async def test_behind_an_authorization_server_a_token_sees_the_prompts_it_may_use():
    spec = sandbox_spec("arxiv")
    scoped = build_server(spec, scopes={"arxiv_query": "papers"})  # no token: no tool
    async with Client(scoped, mode="auto") as client:
        listed = await client.list_prompts()
        with pytest.raises(MCPError, match="Unknown prompt"):
            await client.get_prompt("new_papers_on", {"topic": "rag"})
    assert listed.prompts == []
    assert (listed.ttl_ms, listed.cache_scope) == (TOOL_LIST_TTL_MS, "private")


def test_a_prompt_is_checked_when_declared():
    with pytest.raises(ConfigurationError, match="the template names"):
        TaskPrompt("x", "X", "x.", "Use {search} for {topic}.", uses=("search",))
    arg = PromptArgument("topic", "e.g. 'rag'.")
    assert (
        TaskPrompt("x", "X", "x.", "{search} {topic}", ("search",), (arg,)).render(
            {"search": "s"}, {"topic": "  rag \n models "}
        )
        == "s rag models"
    )  # whitespace folded: one line, the person's words


@pytest.mark.serving
def test_the_typescript_sdk_lists_and_gets_the_prompts_of_toolspecs_serve(
    monkeypatch, typescript_client
):
    wanted = [{"name": "new_papers_on", "arguments": {"topic": "protein folding"}}]
    monkeypatch.setenv("MCP_GET_PROMPTS", json.dumps(wanted))
    got = typescript_client.serve([], "--sandbox", "arxiv", "wolfram_alpha")
    assert sorted(p["name"] for p in got["prompts"]) == [
        "compute",
        "new_papers_on",
        "read_this_paper",
    ]
    (answer,) = got["gotPrompts"]
    text = answer["messages"][0]["content"]["text"]
    assert answer["messages"][0]["role"] == "user"
    assert text.startswith("What are the newest arXiv papers on protein folding? Search with")
    assert "arxiv_query" in text and "max_results 5" in text
