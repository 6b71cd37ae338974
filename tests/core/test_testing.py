"""toolspecs.core.testing: the scripted LLM that offline agent tests and notebooks use."""

from __future__ import annotations

import ast

import pytest
from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
from llama_index.core.base.llms.types import MessageRole
from llama_index.core.tools import FunctionTool

import toolspecs.core.testing
from toolspecs.core.testing import ScriptedLLM, ScriptExhausted


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


TOOLS = [FunctionTool.from_defaults(add), FunctionTool.from_defaults(shout)]


async def run(llm, message="go", tools=TOOLS):
    agent = FunctionAgent(tools=tools, llm=llm)
    handler = agent.run(message)
    results = [e async for e in handler.stream_events() if isinstance(e, ToolCallResult)]
    return str(await handler), results


async def test_tool_calls_then_an_answer_from_the_last_output():
    llm = ScriptedLLM([[("add", {"a": 2, "b": 3})], lambda out: f"The sum is {out}."])
    answer, results = await run(llm)
    assert answer == "The sum is 5."
    assert [r.tool_name for r in results] == ["add"]
    assert llm.offered == [["add", "shout"], ["add", "shout"]]
    assert llm.remaining == 0
    first, second = llm.seen
    assert first[-1].role == MessageRole.USER
    assert first[-1].content == "go"
    assert second[-1].role == MessageRole.TOOL
    assert second[-1].content == "5"


async def test_one_turn_may_call_several_tools_and_a_single_call_needs_no_list():
    llm = ScriptedLLM(
        [
            [("add", {"a": 1, "b": 1}), ("shout", {"text": "hi"})],
            ("add", {"a": 40, "b": 2}),
            (("shout", {"text": "a"}), ("shout", {"text": "b"})),  # a tuple of calls
            "Done.",
        ]
    )
    answer, results = await run(llm)
    assert answer == "Done."
    assert sorted(r.tool_output.content for r in results) == ["2", "42", "A", "B", "HI"]


async def test_arguments_may_be_raw_json_text_as_a_model_sends_them():
    llm = ScriptedLLM([("add", '{"a": 20, "b": 22}'), lambda out: out])
    answer, _ = await run(llm)
    assert answer == "42"


async def test_a_turn_can_make_its_calls_from_the_last_output():
    llm = ScriptedLLM(
        [
            ("add", {"a": 20, "b": 1}),
            lambda out: [("add", {"a": int(out), "b": int(out)})],  # pass on what it read
            lambda out: f"Twice 21 is {out}.",
        ]
    )
    answer, results = await run(llm)
    assert answer == "Twice 21 is 42."
    assert [r.tool_kwargs for r in results] == [{"a": 20, "b": 1}, {"a": 21, "b": 21}]


async def test_an_answer_without_any_tool_call_gets_an_empty_last_output():
    seen: list[str] = []
    llm = ScriptedLLM([lambda out: seen.append(out) or "No tools needed."])
    answer, results = await run(llm)
    assert (answer, results, seen) == ("No tools needed.", [], [""])


async def test_the_script_plays_on_across_runs_and_says_when_it_is_exhausted():
    llm = ScriptedLLM(["first", "second"])
    assert (await run(llm))[0] == "first"
    assert (await run(llm))[0] == "second"
    with pytest.raises(Exception) as caught:
        await run(llm)
    chain = [caught.value, caught.value.__cause__, caught.value.__context__]
    assert any(isinstance(e, ScriptExhausted) for e in chain), chain
    assert "2 turns" in str(caught.value)


def test_the_class_name_is_its_own():
    assert ScriptedLLM(["x"]).class_name() == "ScriptedLLM"
    assert ScriptedLLM(["x"]).metadata.is_function_calling_model is True


async def test_the_module_docstring_example_runs():
    doc = toolspecs.core.testing.__doc__
    code = doc.split("::\n", 1)[1].split("\nThe script", 1)[0]
    source = "\n".join(line.removeprefix("    ") for line in code.splitlines())
    compiled = compile(
        source, "toolspecs.core.testing", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    )
    await eval(compiled, {})
