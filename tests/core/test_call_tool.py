"""``ToolSpec.call_tool``: tools built once and kept while they stay right; why a tool is left out."""

from __future__ import annotations

import types
from typing import ClassVar

import pytest

from toolspecs.core import Marks, ToolSpec, tool
from toolspecs.server import sandbox_spec


class NotesSpec(ToolSpec):
    """Notes in memory, with one tool of each kind of mark."""

    spec_functions: ClassVar = ["read_note", "add_note", "wipe_notes", "mail_notes", "publish"]

    def __init__(self, **options: object) -> None:
        self.notes: list[str] = []
        for key, value in options.items():
            setattr(self, key, value)

    @tool(read_only=True, open_world=False)
    def read_note(self, index: int = 0) -> str:
        """Read one note.

        Args:
            index: Which note.
        """
        return self.notes[index] if index < len(self.notes) else "No such note."

    @tool(destructive=False, open_world=False)
    def add_note(self, text: str) -> str:
        """Add a note.

        Args:
            text: The note.
        """
        self.notes.append(text)
        return f"Note {len(self.notes) - 1} added."

    @tool(destructive=True, open_world=False)
    def wipe_notes(self) -> str:
        """Delete every note."""
        self.notes.clear()
        return "Notes deleted."

    @tool(destructive=False, open_world=True)
    def mail_notes(self, to: str) -> str:
        """Mail the notes.

        Args:
            to: An address.
        """
        return f"Mailed to {to}."

    @tool(destructive=True, open_world=True)
    def publish(self) -> str:
        """Publish the notes and delete them."""
        return "Published."


def counting_builds(monkeypatch: pytest.MonkeyPatch, spec: ToolSpec) -> list[int]:
    """Count the spec's tool builds (the real method runs each time)."""
    builds: list[int] = []
    build = spec.build_tools

    def counted(*args: object, **kwargs: object) -> list:
        builds.append(1)
        return build(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(spec, "build_tools", counted)
    return builds


def test_call_tool_builds_the_tools_once(monkeypatch):
    # Before: every call_tool built every tool again (to_tool_list per call).
    spec = NotesSpec()
    builds = counting_builds(monkeypatch, spec)
    assert spec.call_tool("add_note", text="milk").content == "Note 0 added."
    assert spec.call_tool("read_note", index="0").content == "milk"
    assert spec.call_tool("read_note").content == "milk"
    assert len(builds) == 1


def test_call_tool_rebuilds_when_the_options_change(monkeypatch):
    spec = NotesSpec(allow_destructive=False)
    builds = counting_builds(monkeypatch, spec)
    with pytest.raises(KeyError):
        spec.call_tool("wipe_notes")
    spec.allow_destructive = True
    assert spec.call_tool("wipe_notes").content == "Notes deleted."
    spec.allow_destructive = False
    with pytest.raises(KeyError):
        spec.call_tool("wipe_notes")
    assert len(builds) == 3


def test_call_tool_follows_the_functions_of_the_instance():
    spec = NotesSpec()
    assert spec.call_tool("read_note").content == "No such note."
    spec.spec_functions = ["add_note"]  # this instance offers less
    with pytest.raises(KeyError):
        spec.call_tool("read_note")

    @tool(read_only=True, open_world=False)
    def read_note(self: NotesSpec, index: int = 0) -> str:
        """Read one note, shouting.

        Args:
            index: Which note.
        """
        return "NO SUCH NOTE."

    spec.spec_functions = ["read_note"]
    spec.read_note = types.MethodType(read_note, spec)  # type: ignore[method-assign]
    assert spec.call_tool("read_note").content == "NO SUCH NOTE."


@pytest.mark.parametrize(
    ("options", "name", "needed"),
    [
        ({"allow_destructive": False}, "wipe_notes", ("allow_destructive",)),
        ({"allow_send": False}, "mail_notes", ("allow_send",)),
        ({"allow_destructive": False, "allow_send": False}, "publish", ("allow_destructive", "allow_send")),
        ({"allow_send": False}, "publish", ("allow_send",)),
        ({"allow_destructive": False, "allow_send": False}, "add_note", ()),  # offered
        ({"allow_destructive": False, "allow_send": False}, "read_note", ()),  # offered
        ({"allow_destructive": False}, "no_such_tool", ()),
    ],
)  # fmt: skip
def test_withheld_names_the_options_from_the_marks(options, name, needed):
    assert NotesSpec(**options).withheld(name) == needed


def test_marks_needs_agrees_with_allowed():
    kinds = [Marks.of(r, d, None, o) for r in (True, None) for d in (True, False) for o in (True, False) if not (r and d)]  # fmt: skip
    for marks in (*kinds, Marks()):
        for allow_destructive in (True, False):
            for allow_send in (True, False):
                options = {"allow_destructive": allow_destructive, "allow_send": allow_send}
                assert marks.allowed(**options) == (not marks.needs(**options))


@pytest.mark.dates
def test_call_tool_says_which_option_offers_a_tool_left_out():
    calendar = sandbox_spec("google_calendar")
    with pytest.raises(KeyError, match=r"build GoogleCalendarToolSpec with allow_destructive=True"):
        calendar.call_tool("delete_event", event_id="x")
    with pytest.raises(KeyError) as missing:
        calendar.call_tool("delete_everything")
    assert missing.value.args == ("delete_everything",)


class OverwritingNotesSpec(NotesSpec):
    """``add_note`` may overwrite with ``allow_destructive`` on: its marks say so then."""

    def marks_of(self, function: str, declared: Marks) -> Marks:
        if function == "add_note" and self.allow_destructive:
            return Marks(destructive=True, open_world=False, declared=True)
        return declared


def test_an_instance_s_marks_are_what_its_tools_the_filter_and_the_cache_read():
    """Issue 22: a tool that may destroy only with an option on is marked so on that
    instance (``marks_of``), and everything reads those marks, the cached tools too."""
    spec = OverwritingNotesSpec(allow_destructive=True)
    assert spec.call_tool("add_note", text="milk").content == "Note 0 added."
    assert spec._offered_tools()["add_note"].marks.destructive is True
    tools = {t.metadata.name: t for t in spec.to_tool_list()}
    assert tools["add_note"].marks.annotations()["destructiveHint"] is True
    assert tools["read_note"].marks.read_only is True  # the others as declared
    spec.allow_destructive = False
    assert spec.withheld("add_note") == ()  # still offered: it then does not destroy
    assert spec._offered_tools()["add_note"].marks.destructive is False
    assert {t.metadata.name: t for t in spec.to_tool_list()}["add_note"].marks.destructive is False
