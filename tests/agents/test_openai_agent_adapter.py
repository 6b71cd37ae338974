"""`toolspecs.agents.OpenAIAgent`: the blog's calls, memory, loops, and its mistakes explained."""

from __future__ import annotations

import subprocess
import sys
import traceback

import openai
import pytest
from agent_payloads import tool_message
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms import MockLLM
from llama_index.core.tools import FunctionTool
from llama_index.llms.openai import OpenAI

from toolspecs.agents import OpenAIAgent
from toolspecs.agents.openai_agent import DEFAULT_MODEL
from toolspecs.agents.testing import FakeOpenAI, last_tool_output, message_text
from toolspecs.core.errors import ConfigurationError


def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


def adder(fake: FakeOpenAI, **kwargs) -> OpenAIAgent:
    return OpenAIAgent.from_tools([FunctionTool.from_defaults(add)], llm=fake.llm(), **kwargs)


def roles_and_text(request) -> list[tuple[str, str]]:
    return [(m["role"], message_text(m)) for m in request["messages"]]


def test_memory_is_kept_between_chats_until_reset():
    fake = FakeOpenAI(["Hello Ada.", "Your name is Ada.", "I don't know your name."])
    agent = adder(fake, system_prompt="Be brief.")

    assert str(agent.chat("I am Ada.")) == "Hello Ada."
    assert str(agent.chat("What is my name?")) == "Your name is Ada."
    assert roles_and_text(fake.requests[1]) == [
        ("system", "Be brief."),
        ("user", "I am Ada."),
        ("assistant", "Hello Ada."),
        ("user", "What is my name?"),
    ]
    assert [m.content for m in agent.chat_history][-1] == "Your name is Ada."

    agent.reset()
    agent.chat("What is my name?")
    assert roles_and_text(fake.requests[2]) == [
        ("system", "Be brief."),
        ("user", "What is my name?"),
    ]


def test_chat_history_seeds_the_conversation():
    fake = FakeOpenAI(["Yes."])
    history = [
        ChatMessage(role="user", content="Call me Ada."),
        ChatMessage(role="assistant", content="Sure, Ada."),
    ]
    adder(fake, chat_history=history).chat("Remember?")
    assert roles_and_text(fake.requests[0])[:2] == [
        ("user", "Call me Ada."),
        ("assistant", "Sure, Ada."),
    ]


async def test_achat_in_async_code_and_streaming():
    fake = FakeOpenAI([[("add", {"a": 2, "b": 3})], lambda r: f"2 + 3 = {last_tool_output(r)}"])
    agent = adder(fake, streaming=True)
    response = await agent.achat("What is 2 + 3?")
    assert str(response) == "2 + 3 = 5"
    assert response.response == "2 + 3 = 5"
    assert [s.content for s in response.sources] == ["5"]
    assert fake.requests[0]["stream"] is True
    assert tool_message(fake, 1, "call_1_0")["content"] == "5"


async def test_sync_chat_works_where_a_loop_already_runs():
    # A notebook cell calling agent.chat(...) without await.
    fake = FakeOpenAI(["first", "second"])
    agent = adder(fake)
    assert str(agent.chat("one")) == "first"
    assert str(agent.chat("two")) == "second"  # the same private loop, memory kept
    assert len(fake.requests[1]["messages"]) == 3


def test_verbose_off_prints_nothing(capsys):
    fake = FakeOpenAI([[("add", {"a": 1, "b": 1})], "2"])
    adder(fake).chat("1 + 1?")
    assert capsys.readouterr().out == ""


def test_same_tool_name_twice_is_refused():
    tool = FunctionTool.from_defaults(add)
    with pytest.raises(
        ValueError, match=r"more than one tool is named 'add'.*to_tool_list\(prefix="
    ):
        OpenAIAgent.from_tools([tool, tool], llm=FakeOpenAI().llm())


def test_an_llm_that_cannot_call_functions_is_refused():
    with pytest.raises(ValueError, match="cannot call functions"):
        OpenAIAgent.from_tools([], llm=MockLLM())


def test_the_default_llm_is_openai_with_the_key_from_the_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    agent = OpenAIAgent.from_tools([])
    llm = agent.function_agent.llm
    assert type(llm).__module__.startswith("llama_index.llms.openai")
    assert (llm.model, llm.api_key) == (DEFAULT_MODEL, "sk-from-env")


def test_without_the_extra_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_index.llms.openai", None)
    with pytest.raises(ImportError, match=r'pip install "toolspecs\[openai\]"'):
        OpenAIAgent.from_tools([])


def test_importing_toolspecs_agents_does_not_need_the_extra():
    code = (
        "import sys, toolspecs.agents; "
        "assert 'llama_index.llms.openai' not in sys.modules, 'imported eagerly'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_when_the_script_runs_out_the_error_says_so():
    fake = FakeOpenAI([[("add", {"a": 1, "b": 1})]])
    agent = adder(fake)
    with pytest.raises(openai.BadRequestError, match="request 2 has no turn; the script has 1"):
        agent.chat("1 + 1?")


def formatted(exc: BaseException) -> str:
    """The traceback a person sees, the whole chain of causes and contexts."""
    return "".join(traceback.format_exception(exc))


def chain(exc: BaseException | None) -> list[BaseException]:
    """The exception, its cause or context, theirs, ... (shown or not)."""
    found: list[BaseException] = []
    while exc is not None and exc not in found:
        found.append(exc)
        exc = exc.__cause__ or exc.__context__
    return found


def test_without_a_key_from_tools_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigurationError) as info:
        OpenAIAgent.from_tools([FunctionTool.from_defaults(add)], verbose=True)
    assert isinstance(info.value, ValueError)
    assert str(info.value) == (
        "OPENAI_API_KEY is not set: export it, or pass llm=OpenAI(api_key=...) "
        "(or any function-calling llama-index LLM)."
    )
    text = formatted(info.value)
    assert "no running event loop" not in text and "During handling" not in text
    assert len(text.splitlines()) <= 12, text  # was 114 lines, at the first chat


def test_an_openai_llm_without_a_key_is_refused_and_one_with_a_key_is_not(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY is not set"):
        OpenAIAgent.from_tools([], llm=OpenAI(model=DEFAULT_MODEL))
    agent = OpenAIAgent.from_tools([], llm=OpenAI(model=DEFAULT_MODEL, api_key="sk-given"))
    assert agent.function_agent.llm.api_key == "sk-given"


def test_the_fake_openai_needs_no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake = FakeOpenAI([[("add", {"a": 2, "b": 2})], lambda r: last_tool_output(r)])
    assert str(adder(fake).chat("2 + 2?")) == "4"


def test_an_error_during_chat_is_not_buried_under_the_loop_probe():
    fake = FakeOpenAI([])  # the first request already has no turn: OpenAI answers 400
    with pytest.raises(openai.BadRequestError) as info:
        adder(fake).chat("1 + 1?")
    assert "no running event loop" not in formatted(info.value)
    assert not [e for e in chain(info.value) if "no running event loop" in str(e)]
