"""Structured results: declared with ``@tool(output=...)``, carried by the reply, bounded.

A spec of our own here, so that the mechanism is tested apart from any real spec: the
specs' own models are tested in their folders.
"""

from __future__ import annotations

import json
from typing import ClassVar

import pytest
from mcp import Client

from toolspecs.core import ConfigurationError, OutputBudget, ToolSpec, count_tokens, tool
from toolspecs.core.calls import GuardedOutput
from toolspecs.core.structured import Listing, Output, Quoted, dump
from toolspecs.server import build_server


class Note(Output):
    note_id: str
    body: Quoted

    def reply(self) -> str:
        return f"Note {self.note_id}: ⟦{self.body.text}⟧"


class Other(Output):
    def reply(self) -> str:
        return "another model"


class Notes(Listing):
    items_field: ClassVar[str] = "notes"
    query: str
    notes: list[Note]

    def reply(self) -> list:
        from llama_index.core.schema import Document

        return [Document(text=f"{n.note_id}: {n.body.text}") for n in self.notes]


class NotesSpec(ToolSpec):
    """Notes written by other people."""

    spec_functions: ClassVar[list[str]] = ["get_note", "find_notes", "plain", "forgot", "mixed"]
    reader_name: ClassVar[str] = "read_stored_notes"

    def __init__(self, count: int = 3, size: int = 20) -> None:
        self.count, self.size = count, size

    @tool(output=Note, read_only=True)
    def get_note(self, note_id: str) -> Note:
        """Read one note.

        Args:
            note_id: e.g. 'n1'.
        """
        return Note(note_id=note_id, body=Quoted(text=f"Note {note_id} says hello."))

    @tool(output=Notes, large_output=True, read_only=True)
    def find_notes(self, query: str) -> Notes:
        """Find notes.

        Args:
            query: Words.
        """
        notes = [
            Note(note_id=f"n{i}", body=Quoted(text=f"{query} {i} " + "lorem ipsum " * self.size))
            for i in range(self.count)
        ]
        return Notes(query=query, notes=notes)

    @tool(read_only=True)
    def plain(self) -> str:
        """A tool with no output model."""
        return "plain text"

    @tool(output=Note, read_only=True)
    def forgot(self) -> str:
        """A tool that declares an output and returns none (a bug)."""
        return "no data"

    @tool(output=Note, read_only=True)
    def mixed(self) -> Other:
        """A tool that returns another model than it declares (a bug)."""
        return Other()


def tools(spec: NotesSpec) -> dict:
    spec.output_budget = OutputBudget(max_tokens=300, preview_tokens=50)
    return {t.metadata.name: t for t in spec.to_tool_list()}


def test_the_reply_is_the_text_for_python_callers_and_its_data_for_hosts():
    spec = NotesSpec()
    direct = spec.get_note(note_id="n7")
    assert direct == "Note n7: ⟦Note n7 says hello.⟧" and isinstance(direct, str)

    output = tools(spec)["get_note"].call(note_id="n7")
    assert isinstance(output, GuardedOutput) and not output.is_error
    assert output.content == direct
    assert output.structured == {
        "note_id": "n7",
        "body": {"third_party": True, "text": "Note n7 says hello."},
    }


def test_a_tool_without_an_output_model_has_no_structured_result():
    output = tools(NotesSpec())["plain"].call()
    assert output.content == "plain text" and output.structured is None


def test_a_reply_missing_its_declared_data_is_our_bug_in_strict_mode():
    with pytest.raises(TypeError, match="forgot returned <class 'str'>, not Note"):
        tools(NotesSpec())["forgot"].call()
    with pytest.raises(TypeError, match="mixed returned Other, not Note"):
        tools(NotesSpec())["mixed"].call()


def test_the_documents_a_python_caller_gets_are_made_from_the_data():
    found = NotesSpec(count=2, size=1).find_notes(query="tea")
    assert [d.text for d in found] == ["n0: tea 0 lorem ipsum ", "n1: tea 1 lorem ipsum "]


def test_declarations_are_checked_when_made():
    with pytest.raises(ConfigurationError, match=r"subclass of toolspecs\.core\.structured"):
        tool(output=dict)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="subclasses Listing"):
        tool(output=Note, large_output=True)


def test_long_data_is_cut_to_the_budget_and_names_the_stored_whole():
    spec = NotesSpec(count=12, size=60)
    found = tools(spec)
    output = found["find_notes"].call(query="tea")
    data = output.structured
    assert "stored as result" in output.content  # the text was stored: so is the data's handle
    assert data["stored"]["read_with"] == "read_stored_notes"
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    assert count_tokens(text) <= 300
    kept = data["notes"]
    assert kept and len(kept) + data["omitted"] == 12
    assert [n["note_id"] for n in kept] == [f"n{i}" for i in range(len(kept))]
    assert all(n["body"]["cut"] is True for n in kept)  # third-party text is cut first
    assert all(n["body"]["text"].startswith(f"tea {i} ") for i, n in enumerate(kept))

    read = found["read_stored_notes"].call(query="lorem", result_id=data["stored"]["result_id"])
    passages = read.structured
    assert passages["result_id"] == data["stored"]["result_id"]
    assert passages["function"] == "find_notes" and passages["query"] == "lorem"
    assert passages["passages"] and all(p["text"]["third_party"] for p in passages["passages"])
    # The best passage first, as the text shows it (whose end is cut to the budget too).
    first = passages["passages"][0]
    assert read.content.split("\n")[2] == f"⟦passage {first['position']} of 12⟧"
    assert first["text"]["text"].startswith(read.content.split("\n")[3][:40])


def over(data: dict, budget: int) -> bool:
    """Whether ``data`` is over ``budget`` as :func:`dump` measures it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return len(text) * 4 > budget and count_tokens(text) > budget


@pytest.mark.parametrize(("budget", "before"), [(40, None), (300, None), (2000, 5), (5, 5)])
def test_a_long_listing_keeps_the_most_leading_items_that_fit(budget, before):
    # Texts of 200 characters at most, which are never cut: only items are left out.
    notes = [
        Note(note_id=f"n{i}", body=Quoted(text=f"note {i} " + "lorem ipsum " * (i % 9)))
        for i in range(2000)
    ]
    data = dump(Notes(query="tea", notes=notes, omitted=before), budget)
    kept = data["notes"]
    assert [n["note_id"] for n in kept] == [f"n{i}" for i in range(len(kept))]
    assert data["omitted"] == (before or 0) + 2000 - len(kept)
    if budget == 5:  # nothing fits: every item is left out
        assert kept == [] and over(data, budget)
        return
    assert kept and not over(data, budget)
    # One item more is over: what leaving them out one by one, from the last, stops at.
    more = [*kept, notes[len(kept)].model_dump(mode="json", exclude_none=True)]
    assert over({**data, "notes": more, "omitted": data["omitted"] - 1}, budget)


def test_short_data_is_whole():
    output = tools(NotesSpec(count=2, size=1))["find_notes"].call(query="tea")
    assert [n["note_id"] for n in output.structured["notes"]] == ["n0", "n1"]
    assert "omitted" not in output.structured and "stored" not in output.structured


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_mcp_clients_get_the_output_schema_and_structured_content(mode):
    spec = NotesSpec()
    server = build_server(tools(spec).values())
    async with Client(server, mode=mode) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        # The client validates structured content against this schema (mcp's Client does).
        result = await client.call_tool("get_note", {"note_id": "n2"})
        plain = await client.call_tool("plain", {})
        wrong = await client.call_tool("get_note", {})

    schema = listed["get_note"].output_schema
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert set(schema["required"]) == {"note_id", "body"}
    assert listed["plain"].output_schema is None
    assert listed["read_stored_notes"].output_schema["properties"]["passages"]
    assert result.structured_content["note_id"] == "n2"
    assert result.structured_content["body"]["third_party"] is True
    assert result.content[0].text == spec.get_note(note_id="n2")
    assert plain.structured_content is None
    assert wrong.is_error and wrong.structured_content is None
