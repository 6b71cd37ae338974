"""Structured results through every host: the data of ``@tool(output=Model)`` beside the text.

The tests' own spec (notes in memory, tests/notes_spec.py) has a tool with an output
model, a tool without one, and guidance; each host's real library carries the data where
it has a place for it: LangChain's ``ToolMessage.artifact``, the OpenAI/Anthropic executor's
``ToolAnswer.structured``, smolagents' ``output_schema`` (opt-in). Lagent has no place:
its agents read only ``ActionReturn.format_result()``, the text.
"""

from __future__ import annotations

import pytest
from host_fakes import calls, openai_server_model, request_text, scripted_chat_model
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from notes_spec import Notes, NotesToolSpec
from smolagents import CodeAgent

from toolspecs.adapters.lagent import to_lagent_action
from toolspecs.adapters.langchain import to_langchain_tools
from toolspecs.adapters.openai import ToolAnswer, ToolExecutor
from toolspecs.adapters.smolagents import to_smolagents_tools
from toolspecs.agents.testing import FakeOpenAI
from toolspecs.core.structured import output_schema

FOUND = {
    "notes": [
        {
            "id": "n1",
            "title": {"third_party": True, "text": "Standup notes"},
            "updated": "2026-11-20T09:00:00+01:00",
        }
    ],
    "count": 1,
    "next_step": "Open a note by its id.",
}
TEXT = "Note n1 (updated 2026-11-20T09:00:00+01:00): <<Standup notes>>"


@pytest.fixture
def notes() -> NotesToolSpec:
    return NotesToolSpec()


def test_the_spec_answers_text_and_data(notes):
    (find, _) = notes.to_tool_list()
    output = find.call(query="standup")
    assert (output.content, output.structured) == (TEXT, FOUND)


# -- LangChain: the artifact --------------------------------------------------------------


def test_langchain_carries_the_data_as_the_tool_message_artifact(notes):
    find, count = to_langchain_tools(notes)
    assert find.response_format == "content_and_artifact"
    call = {"name": "find_notes", "args": {"query": "standup"}, "id": "c1", "type": "tool_call"}
    message = find.invoke(call)
    assert isinstance(message, ToolMessage)
    assert (message.content, message.artifact, message.status) == (TEXT, FOUND, "success")
    # Invoked with plain arguments, the tool still returns the text alone, as before.
    assert find.invoke({"query": "standup"}) == TEXT
    # A tool without an output model: the text, and no artifact.
    counted = count.invoke({**call, "name": "count_words", "args": {"text": "a b c"}})
    assert (counted.content, counted.artifact) == ("3 words.", None)
    # Guidance stays an error message, without artifact.
    refused = find.invoke({**call, "args": {"query": " "}})
    assert refused.status == "error" and refused.artifact is None
    assert refused.content == notes.to_tool_list()[0].call(query=" ").content


async def test_a_langchain_agent_keeps_the_artifact_and_sends_only_the_text(notes):
    model = scripted_chat_model([calls(("find_notes", {"query": "standup"})), "Found it."])
    agent = create_agent(model, tools=to_langchain_tools(notes))
    state = await agent.ainvoke({"messages": [("user", "Find my standup notes")]})
    (message,) = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert (message.content, message.artifact) == (TEXT, FOUND)
    sent = model.received[1][-1]
    assert isinstance(sent, ToolMessage) and sent.content == TEXT


# -- OpenAI / Anthropic: ToolAnswer.structured ------------------------------------------------


async def test_the_executor_answers_carry_the_data_beside_the_messages(notes):
    executor = ToolExecutor(notes)
    openai_calls = [
        {"id": "a", "function": {"name": "find_notes", "arguments": '{"query": "standup"}'}},
        {"id": "b", "function": {"name": "count_words", "arguments": '{"text": "a b"}'}},
        {"id": "c", "function": {"name": "find_notes", "arguments": "{}"}},
    ]
    for answers in (executor.execute(openai_calls), await executor.aexecute(openai_calls)):
        assert all(isinstance(a, ToolAnswer) for a in answers)
        assert answers[0] == {"role": "tool", "tool_call_id": "a", "content": TEXT}
        assert [a.structured for a in answers] == [FOUND, None, None]
    blocks = [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "u1", "name": "find_notes", "input": {"query": "standup"}},
    ]
    for answers in (
        executor.execute_anthropic(blocks),
        await executor.aexecute_anthropic(blocks),
    ):
        (answer,) = answers
        assert answer == {
            "type": "tool_result",
            "tool_use_id": "u1",
            "content": TEXT,
            "is_error": False,
        }
        assert answer.structured == FOUND
    assert executor.run("find_notes", {"query": "standup"}).structured == FOUND


# -- smolagents: output_schema, opt-in ----------------------------------------------------------


def test_smolagents_returns_the_data_under_its_output_schema_when_asked(notes):
    find, count = to_smolagents_tools(notes)  # by default: text, as before
    assert (find.output_type, find.output_schema) == ("string", None)
    assert find(query="standup") == TEXT
    find, count = to_smolagents_tools(notes, structured_output=True)
    assert (find.output_type, find.output_schema) == ("object", output_schema(Notes))
    assert find(query="standup") == FOUND
    assert "-> dict" in find.to_code_prompt() and '"third_party"' in find.to_code_prompt()
    assert (count.output_type, count(text="a b")) == ("string", "2 words.")


def test_a_smolagents_code_agent_reads_fields_of_the_data(notes):
    fake = FakeOpenAI(
        [
            'Thought: find it.\n<code>\nfound = find_notes(query="standup")\n'
            'print(found["notes"][0]["id"], found["count"])\n',
            'Thought: done.\n<code>\nfinal_answer("n1")\n',
        ]
    )
    tools = to_smolagents_tools(notes, structured_output=True)
    agent = CodeAgent(tools=tools, model=openai_server_model(fake), verbosity_level=0)
    assert agent.run("Which note is the standup?") == "n1"
    assert "find_notes(query: string) -> dict" in request_text(fake.requests[0])
    assert "n1 1" in request_text(fake.requests[1])


# -- Lagent: no place for it -----------------------------------------------------------------


def test_lagent_answers_the_text_alone(notes):
    action = to_lagent_action(notes)
    answer = action('{"query": "standup"}', "find_notes")
    assert answer.result == [{"type": "text", "content": TEXT}]
    assert answer.format_result() == TEXT
