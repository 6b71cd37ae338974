"""Helpers of the end-to-end agent tests: run specs in an agent, check what OpenAI got.

Each takes a list of specs, so a test of any combination is a few lines: pick the
specs (fixtures in conftest.py), script the model with ``FakeOpenAI``, run
``blog_agent(specs, fake).chat(...)`` or ``run_function_agent(specs, fake, ...)``, then
``assert_tools_sent(fake, specs)``, which also fails when two tools share a name.
"""

from __future__ import annotations

import copy
from typing import Any

from llama_index.core.agent.workflow import AgentOutput, FunctionAgent, ToolCallResult
from llama_index.core.tools import FunctionTool

from toolspecs.agents import OpenAIAgent
from toolspecs.agents.testing import FakeOpenAI
from toolspecs.core import ToolGuidance


def tools_of(specs) -> list[FunctionTool]:
    """The tools of several specs, in order, as one agent gets them.

    An entry is a spec, or ``(spec, prefix)`` for ``spec.to_tool_list(prefix=prefix)``.
    """
    tools: list[FunctionTool] = []
    for entry in specs:
        spec, prefix = entry if isinstance(entry, tuple) else (entry, "")
        tools.extend(spec.to_tool_list(prefix=prefix))
    return tools


def as_sent(tool: FunctionTool) -> dict[str, Any]:
    """A tool's ``to_openai_tool()`` plus the two keys llama-index's OpenAI class adds."""
    sent = copy.deepcopy(tool.metadata.to_openai_tool())
    sent["function"]["strict"] = False
    sent["function"]["parameters"]["additionalProperties"] = False
    return sent


def assert_tools_sent(fake: FakeOpenAI, specs, request: int = 0) -> list[str]:
    """Every request carried exactly our tools' schemas, names unique; returns the names."""
    tools = tools_of(specs)
    names = fake.tool_names(request)
    assert len(names) == len(set(names)), f"tool names collide: {names}"
    assert fake.tools(request) == [as_sent(t) for t in tools]
    for index in range(len(fake.requests)):
        assert fake.tools(index) == fake.tools(request)
    return names


def blog_agent(specs, fake: FakeOpenAI, **kwargs: Any) -> OpenAIAgent:
    """The blog's snippet with the toolspecs import, the model served by ``fake``."""
    return OpenAIAgent.from_tools(tools_of(specs), llm=fake.llm(), verbose=True, **kwargs)


def no_bugs(sources) -> None:
    """Tool errors must be our guidance; anything else is a bug the agent swallowed."""
    for output in sources:
        if output.is_error and not isinstance(output.exception, ToolGuidance):
            raise AssertionError(f"{output.tool_name} failed: {output.content}") from (
                output.exception
            )


def tool_message(fake: FakeOpenAI, request: int, call_id: str) -> dict[str, Any]:
    """The tool message answering ``call_id`` in a request."""
    (found,) = [m for m in fake.requests[request]["messages"] if m.get("tool_call_id") == call_id]
    assert found["role"] == "tool"
    return found


async def run_function_agent(
    specs, fake: FakeOpenAI, message: str
) -> tuple[AgentOutput, list[ToolCallResult]]:
    """A plain ``FunctionAgent`` (streaming, as by default) over the tools of ``specs``."""
    agent = FunctionAgent(tools=tools_of(specs), llm=fake.llm())
    handler = agent.run(user_msg=message)
    results = [e async for e in handler.stream_events() if isinstance(e, ToolCallResult)]
    output = await handler
    no_bugs([r.tool_output for r in results])
    return output, results
