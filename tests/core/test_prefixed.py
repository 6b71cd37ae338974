"""Prefixes rename our words only: ref() and offered() for replies, never the tool's output."""

from __future__ import annotations

from typing import ClassVar

import pytest

from toolspecs.core import FixArguments, ToolSpec, fence, ref, tool
from toolspecs.core.context import ToolNames
from toolspecs.core.prefixed import naming, offered


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


def test_naming_a_tool_the_agent_lacks_is_a_bug_the_tests_see(monkeypatch):
    from toolspecs.core.prefixed import NotOffered

    class LeakySpec(EchoSpec):
        @tool(read_only=True, open_world=False)
        def find(self, query: str) -> str:
            """Find a text.

            Args:
                query: Words.
            """
            return f"Found. Repeat it with {ref('echo')}."  # no offered() check: a bug

    (alone,) = LeakySpec().to_tool_list(["find"], prefix="e_")
    with pytest.raises(NotOffered, match="'echo'"):
        alone.call(query="x")
    monkeypatch.delenv("TOOLSPECS_STRICT")  # in use: the name, as before
    assert alone.call(query="x").content == "Found. Repeat it with e_echo."
    # With the tool offered, the same words are right.
    tools = {t.metadata.name: t for t in LeakySpec().to_tool_list(prefix="e_")}
    monkeypatch.setenv("TOOLSPECS_STRICT", "1")
    assert tools["e_find"].call(query="x").content == "Found. Repeat it with e_echo."


def test_a_template_is_named_only_when_the_agent_has_every_tool_it_names():
    from toolspecs.core.prefixed import names_offered

    spec_tools = ["find", "echo", "read_stored_result"]
    template = "Ids come from find; the reader is not named here."
    assert names_offered(template, spec_tools)  # outside a tool call: all offered
    with naming(ToolNames("e_", frozenset({"echo"}))):
        assert not names_offered(template, spec_tools)
        assert names_offered("Ids come from the listing tools.", spec_tools)
        assert names_offered("x.find() is not the tool find", ["echo"])
    with naming(ToolNames("e_", frozenset({"echo", "find"}))):
        assert names_offered(template, spec_tools)


def test_a_large_result_names_the_reader_only_when_the_list_has_it():
    from toolspecs.core import OutputBudget

    class BigSpec(ToolSpec):
        spec_functions: ClassVar = ["big"]
        service_name: ClassVar[str] = "Big"
        output_budget = OutputBudget(max_tokens=200)

        @tool(large_output=True, read_only=True, open_world=False)
        def big(self) -> str:
            """Return a long text."""
            return " ".join(f"word{i}" for i in range(2000))

    spec = BigSpec()
    big, reader = spec.to_tool_list(prefix="b_")
    assert reader.metadata.name == "b_read_stored_result"
    assert "call b_read_stored_result" in big.call().content
    # A list without the reader (built by hand: to_tool_list always adds it) cuts instead.
    alone = spec._guarded_tool("big", spec.big, None, ToolNames("b_", frozenset({"big"})))
    out = alone.call().content
    assert "read_stored_result" not in out and "[... output cut:" in out
