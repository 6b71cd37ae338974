"""The langchain-core internals compat_langchain leans on, checked against the pinned langchain-core.

Each test names the internal (its number in the compat module's banner). When an upgrade of
langchain-core fails one, read the banner and its changes before touching anything else:
every call of a tool in a LangChain agent goes through these.
"""

from __future__ import annotations

import inspect

import pytest
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, Field, ValidationError

from toolspecs.adapters.compat_langchain import ArgumentsAsSent


class Args(BaseModel):
    count: int = Field(description="How many.")
    label: str | None = Field(default=None, description="A label.")


def tools() -> tuple[StructuredTool, ArgumentsAsSent, list[tuple[tuple, dict]]]:
    """LangChain's own StructuredTool and ours over one recording function."""
    seen: list[tuple[tuple, dict]] = []

    def run(*args, **kwargs):
        seen.append((args, kwargs))
        return "done"

    async def arun(*args, **kwargs):
        return run(*args, **kwargs)

    made = {
        "name": "count_things",
        "description": "Count.",
        "args_schema": Args,
        "func": run,
        "coroutine": arun,
    }
    return StructuredTool(**made), ArgumentsAsSent(**made), seen


def test_1_run_and_arun_turn_the_input_into_arguments_with_to_args_and_kwargs():
    params = inspect.signature(BaseTool._to_args_and_kwargs).parameters
    assert list(params) == ["self", "tool_input", "tool_call_id"]
    assert "self._to_args_and_kwargs(" in inspect.getsource(BaseTool.run)
    assert "self._to_args_and_kwargs(" in inspect.getsource(BaseTool.arun)


def test_1_langchain_validates_the_call_and_ours_passes_it_on_as_sent():
    theirs, ours, seen = tools()
    assert theirs.invoke({"count": "5"}) == "done"
    assert seen.pop() == ((), {"count": 5, "label": None})  # validated: "5" became 5
    with pytest.raises(ValidationError):
        theirs.invoke({"Count": 5})
    assert ours.invoke({"count": "5", "Label": "x"}) == "done"
    assert seen.pop() == ((), {"count": "5", "Label": "x"})
    assert ours.invoke("five") == "done"
    assert seen.pop() == (("five",), {})


async def test_1_the_async_path_passes_it_on_as_sent_too():
    _, ours, seen = tools()
    assert await ours.ainvoke({"count": "5", "q": 1}) == "done"
    assert seen.pop() == ((), {"count": "5", "q": 1})


class Shown(BaseModel):
    shown_only: str = Field(description="Only in the schema the model is sent.")


def test_2_the_model_is_sent_the_tool_call_schema_which_langchain_rebuilds():
    theirs, ours, _ = tools()
    assert isinstance(inspect.getattr_static(BaseTool, "tool_call_schema"), property)
    assert theirs.tool_call_schema is not Args  # LangChain's copy of args_schema
    assert ours.tool_call_schema is Args

    class ShowsAnother(ArgumentsAsSent):
        @property
        def tool_call_schema(self):
            return Shown

    probe = ShowsAnother(name="probe", description="Probe.", args_schema=Args, func=print)
    parameters = convert_to_openai_tool(probe)["function"]["parameters"]
    assert list(parameters["properties"]) == ["shown_only"]  # read from tool_call_schema
    assert list(convert_to_openai_tool(ours)["function"]["parameters"]["properties"]) == [
        "count",
        "label",
    ]
