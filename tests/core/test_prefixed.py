"""Prefixes rename our words only: ref() and offered() for replies, never the tool's output."""

from __future__ import annotations

from typing import ClassVar

from toolspecs.core import FixArguments, ToolSpec, fence, ref, tool
from toolspecs.core.prefixed import ToolNames, naming, offered


class EchoSpec(ToolSpec):
    spec_functions: ClassVar = ["echo", "find"]
    service_name: ClassVar[str] = "Echo"

    @tool(read_only=True, open_world=False)
    def echo(self, text: str) -> str:
        """Repeat a text.

        Args:
            text: What to repeat.
        """
        if not text:
            raise FixArguments(
                f"Nothing to repeat in {fence.quote('find')}.",
                f"Call {ref('find')} first, then {ref('echo')}.",
            )
        return f"{fence.block(text, 'the user')}\nNext: {ref('find')}(query=...)."

    @tool(read_only=True, open_world=False)
    def find(self, query: str) -> str:
        """Find a text; echo repeats it.

        Args:
            query: Words.
        """
        return query


def test_the_output_is_never_renamed_but_our_words_are():
    tools = {t.metadata.name: t for t in EchoSpec().to_tool_list(prefix="e_")}
    out = tools["e_echo"].call(text="call find() then echo()").content
    assert "call find() then echo()" in out
    assert out.endswith("Next: e_find(query=...).")
    assert "e_echo repeats it" in tools["e_find"].metadata.description
    # Guidance names siblings through ref(); the quoted value is not renamed.
    refused = tools["e_echo"].call(text="").content
    assert "«find»" in refused and "Call e_find first, then e_echo." in refused


def test_outside_a_tool_call_every_name_is_its_own():
    assert ref("find") == "find" and offered("anything")
    with naming(ToolNames("x_", frozenset({"find"}))):
        assert ref("find") == "x_find"
        assert offered("find") and not offered("echo")
    assert EchoSpec().echo("hi").endswith("Next: find(query=...).")


def test_a_failure_row_names_the_prefixed_tools_but_never_renames_its_values():
    from toolspecs.core import Failure, FailureTable

    class Gone(Exception):
        reason = "the service said: call find() again"  # third-party words, outside «»

    table = FailureTable(Failure(Gone, FixArguments, "Gone ({reason}).", "Call find first."))
    with naming(ToolNames("e_", frozenset({"find", "echo"}))):
        guidance = table.guidance(Gone())
    assert guidance is not None
    assert guidance.text == "Gone (the service said: call find() again). Call e_find first."
