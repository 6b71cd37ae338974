"""Our tools in LangChain: through ``langchain.agents.create_agent``, driven by a scripted model."""

from __future__ import annotations

import importlib
import sys
from urllib.parse import parse_qs, urlsplit

import pytest
from host_fakes import calls, scripted_chat_model
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool
from langgraph.checkpoint.memory import InMemorySaver

from toolspecs.adapters.langchain import to_langchain_tools
from toolspecs.core import ConfigurationError, ToolGuidance
from toolspecs.loaders.arxiv.testing.pdf import NEEDLE
from toolspecs.loaders.google.testing import FakeCalendar, sample_mailbox
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec


@pytest.fixture
def google() -> FakeCalendar:
    return FakeCalendar()


@pytest.fixture
def calendar(google, server_in_utc) -> GoogleCalendarToolSpec:
    spec = GoogleCalendarToolSpec(transport=google, allow_destructive=True)
    spec.spec_functions = spec.all_functions  # every tool, in every host
    return spec


def guidance_of(tool, **kwargs) -> str:
    """The guidance text our own tool gives for a call."""
    with pytest.raises(ToolGuidance) as caught:
        tool.fn(**kwargs)
    return caught.value.text


def tool_messages(state) -> list[ToolMessage]:
    return [m for m in state["messages"] if isinstance(m, ToolMessage)]


def ask(agent, text: str):
    return agent.invoke({"messages": [("user", text)]})


async def aask(agent, text: str):
    return await agent.ainvoke({"messages": [("user", text)]})


def test_the_model_is_sent_our_typed_schema_and_description(spec, calendar):
    ours = [*spec.to_tool_list(), *calendar.to_tool_list()]
    tools = to_langchain_tools([spec, calendar])
    assert all(isinstance(t, StructuredTool) for t in tools)
    assert [t.args_schema for t in tools] == [t.metadata.fn_schema for t in ours]
    model = scripted_chat_model(["Nothing to do."])
    ask(create_agent(model, tools), "Hello")
    # What create_agent bound, as a provider formats it: exactly our OpenAI tools.
    assert model.offered[0] == [t.metadata.to_openai_tool() for t in ours]
    query = model.offered[0][0]["function"]["parameters"]["properties"]
    assert query["max_results"] == {
        "type": "integer",
        "maximum": 50,
        "minimum": 1,
        "description": "Default 3.",
    }
    assert query["sort_by"]["enum"] == ["relevance", "recent", "updated"]


def test_a_tolerant_call_is_honoured(spec, arxiv):
    tools = to_langchain_tools(spec)
    # The model sends an alias and a string for an integer; LangChain does not refuse them.
    model = scripted_chat_model(
        [calls(("arxiv_query", {"q": "retrieval", "max_results": "5"})), "Found them."]
    )
    state = ask(create_agent(model, tools), "Papers on retrieval?")
    (message,) = tool_messages(state)
    assert message.status == "success"
    assert parse_qs(urlsplit(arxiv.requests[-1].url).query)["max_results"] == ["5"]
    expected = spec.to_tool_list()[0].fn(query="retrieval", max_results=5)
    assert message.content == expected and message.content.count("Title: ") == 4
    assert model.received[1][-1] == message  # and the model read it


def test_guidance_reaches_the_model_as_an_error_tool_message(spec, calendar):
    arxiv_query = spec.to_tool_list()[0]
    get_date = next(t for t in calendar.to_tool_list() if t.metadata.name == "get_date")
    assert get_date.metadata.name == "get_date"
    model = scripted_chat_model(
        [
            calls(("arxiv_query", {"query": "bert", "max_results": 500})),
            # A tool without arguments: LangChain would drop what it does not take.
            calls(("get_date", {"zone": "Europe/Paris"}), turn=2),
            "I could not do it.",
        ]
    )
    state = ask(create_agent(model, to_langchain_tools([spec, calendar])), "bert?")
    bounds, unknown = tool_messages(state)
    assert bounds.status == unknown.status == "error"
    assert bounds.content == guidance_of(arxiv_query, query="bert", max_results=500)
    assert bounds.content.startswith("arxiv_query was called wrongly: max_results: 500 is above")
    assert unknown.content == guidance_of(get_date, zone="Europe/Paris")
    assert "unknown argument 'zone'" in unknown.content
    assert model.received[1][-1] == bounds and model.received[2][-1] == unknown


def test_a_failing_service_is_retry_guidance(arxiv):
    arxiv.fail += [503] * 10
    spec = ArxivToolSpec(transport=arxiv.transport())
    expected = guidance_of(spec.to_tool_list()[0], query="bert")
    arxiv.fail += [503] * 10
    model = scripted_chat_model([calls(("arxiv_query", {"query": "bert"})), "Later."])
    (message,) = tool_messages(ask(create_agent(model, to_langchain_tools(spec)), "bert?"))
    assert (message.status, message.content) == ("error", expected)
    assert "arXiv" in expected and "try the same call again" in expected


async def test_a_large_result_is_stored_and_read_back_in_the_same_agent(spec):
    model = scripted_chat_model(
        [
            calls(("arxiv_paper_text", {"paper_id": "1706.03762"})),
            calls(("read_stored_papers", {"query": "quokka ablation", "result_id": 1}), turn=2),
            "The quokka ablation lowered perplexity.",
        ]
    )
    state = await aask(create_agent(model, to_langchain_tools(spec)), "Read the Transformer")
    stored, found = tool_messages(state)
    assert stored.status == found.status == "success"
    assert "stored as result 1" in stored.content
    assert "call read_stored_papers" in stored.content
    assert NEEDLE in found.content


async def test_sync_and_async_calls_in_one_turn_come_back_in_order(spec):
    turn = calls(
        ("arxiv_query", {"query": "bert", "max_results": 1}),
        ("arxiv_query", {"query": "bert", "max_results": "nine hundred"}),
    )
    results = []
    for run in ("sync", "async"):
        model = scripted_chat_model([turn, "Done."])
        agent = create_agent(model, to_langchain_tools(spec))
        state = ask(agent, "bert") if run == "sync" else await aask(agent, "bert")
        results.append([(m.tool_call_id, m.status, m.content) for m in tool_messages(state)])
    assert results[0] == results[1]
    (first_id, ok, paper), (second_id, error, guidance) = results[0]
    assert (first_id, ok, second_id, error) == ("call_1_0", "success", "call_1_1", "error")
    assert "arXiv id: 1810.04805v2" in paper and "max_results: 'nine hundred'" in guidance


def test_the_marks_are_in_metadata_and_a_host_can_confirm_by_them(calendar, google):
    tools = {t.name: t for t in to_langchain_tools(calendar)}
    for ours in calendar.to_tool_list():
        assert tools[ours.metadata.name].metadata == ours.marks.annotations()
    assert tools["delete_event"].metadata["destructiveHint"] is True
    assert tools["load_data"].metadata["readOnlyHint"] is True
    confirm = {name: True for name, t in tools.items() if not t.metadata["readOnlyHint"]}
    # The writing tools, read from their marks (each spec's tests pin its tools' marks).
    writes = [t.metadata.name for t in calendar.to_tool_list() if not t.marks.read_only]
    assert sorted(confirm) == sorted(writes)
    assert {"create_event", "delete_event"} <= set(confirm)
    model = scripted_chat_model(
        [calls(("create_event", {"title": "Tea", "start_datetime": "2026-11-21 16:00"}))]
    )
    agent = create_agent(
        model,
        list(tools.values()),
        middleware=[HumanInTheLoopMiddleware(interrupt_on=confirm)],
        checkpointer=InMemorySaver(),
    )
    state = agent.invoke(
        {"messages": [("user", "Tea at 4pm on Nov 21")]}, {"configurable": {"thread_id": "1"}}
    )
    (interrupt,) = state["__interrupt__"]
    assert interrupt.value["action_requests"][0]["name"] == "create_event"
    assert google.events == {}  # nothing happened before the person said yes


def test_several_specs_one_name_each(calendar):
    gmail = GmailToolSpec(transport=sample_mailbox())
    with pytest.raises(ConfigurationError, match="prefix"):
        to_langchain_tools([calendar, gmail])
    names = [t.name for t in to_langchain_tools([calendar, *gmail.to_tool_list(prefix="gmail_")])]
    assert "load_data" in names and "gmail_load_data" in names


def test_without_langchain_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "langchain_core.tools", None)
    monkeypatch.delitem(sys.modules, "toolspecs.adapters.langchain")
    with pytest.raises(ImportError, match=r'pip install "toolspecs-core\[langchain\]"'):
        importlib.import_module("toolspecs.adapters.langchain")


def test_llama_index_bridge_is_not_enough_in_an_agent(arxiv):
    """What the README says of ``to_langchain_structured_tool()``, next to ours."""
    arxiv.fail += [503] * 20
    spec = ArxivToolSpec(transport=arxiv.transport())
    turns = [calls(("arxiv_query", {"query": "bert"})), "Later."]
    bridged = [t.to_langchain_structured_tool() for t in spec.to_tool_list()]
    with pytest.raises(ToolGuidance):
        ask(create_agent(scripted_chat_model(turns), bridged), "bert?")
    (message,) = tool_messages(
        ask(create_agent(scripted_chat_model(turns), to_langchain_tools(spec)), "bert?")
    )
    assert message.status == "error" and "HTTP 503" in message.content


def test_direct_calls_follow_langchain_conventions(spec):
    (arxiv_query, *_) = to_langchain_tools(spec)
    # A bare string is the first argument; without a tool call id the result is the text.
    assert "arXiv id: 1810.04805v2" in arxiv_query.invoke("bert")
    assert arxiv_query.invoke({"query": "bert", "max_results": 0}) == guidance_of(
        spec.to_tool_list()[0], query="bert", max_results=0
    )
