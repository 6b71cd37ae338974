"""Choosing tools: a lean default set (spec_functions), opt-in tools (more_functions)."""

from __future__ import annotations

from typing import ClassVar

import pytest

from toolspecs.cli import main
from toolspecs.cli.assemble import ServeSettings, build_specs, served_tools
from toolspecs.core import ConfigurationError, ToolSpec, load_spec, ref, tool


class NotesSpec(ToolSpec):
    """Notes, with an opt-in search and an opt-in destructive wipe."""

    spec_functions: ClassVar = ["add_note"]
    more_functions: ClassVar[list[str]] = ["find_notes", "wipe_notes"]
    service_name: ClassVar[str] = "Notes"

    @tool(read_only=False, destructive=False, idempotent=False, open_world=False)
    def add_note(self, text: str) -> str:
        """Add a note.

        Args:
            text: The note.
        """
        return f"Added {text!r}."

    @tool(read_only=True, open_world=False)
    def find_notes(self, words: str) -> str:
        """Find notes.

        Args:
            words: Words in the note.
        """
        return f"No note has {words!r}."

    @tool(read_only=False, destructive=True, idempotent=True, open_world=False)
    def wipe_notes(self) -> str:
        """Delete every note."""
        return "Wiped."


def names(tools) -> list[str]:
    return [t.metadata.name for t in tools]


def test_the_default_set_is_spec_functions_and_all_functions_adds_the_opt_in_ones():
    spec = NotesSpec()
    assert names(spec.to_tool_list()) == ["add_note"]
    assert NotesSpec.all_functions == ["add_note", "find_notes", "wipe_notes"]
    assert names(spec.to_tool_list(spec_functions=spec.all_functions)) == [
        "add_note",
        "find_notes",
        "wipe_notes",
    ]
    # A chosen tool still follows its policy.
    careful = NotesSpec()
    careful.allow_destructive = False
    assert names(careful.to_tool_list(spec_functions=careful.all_functions)) == [
        "add_note",
        "find_notes",
    ]


def test_an_instance_can_choose_its_tools_for_every_host():
    spec = NotesSpec()
    spec.spec_functions = ["add_note", "find_notes"]
    assert names(spec.to_tool_list()) == ["add_note", "find_notes"]
    assert NotesSpec().spec_functions == ["add_note"]  # the class is unchanged


def test_call_tool_calls_an_opt_in_tool_by_name():
    spec = NotesSpec()
    assert spec.call_tool("find_notes", words="tea").content == "No note has 'tea'."
    spec.allow_destructive = False
    with pytest.raises(KeyError, match="allow_destructive=True"):
        spec.call_tool("wipe_notes")


def test_a_name_that_is_no_function_of_the_spec_is_refused_naming_the_functions():
    with pytest.raises(ConfigurationError, match=r"no function 'find_note'.*find_notes"):
        NotesSpec().to_tool_list(spec_functions=["find_note"])


def test_opt_in_functions_are_checked_when_the_class_is_defined():
    with pytest.raises(ConfigurationError, match="missing is listed in more_functions"):

        class Broken(NotesSpec):
            more_functions: ClassVar[list[str]] = ["missing"]

    with pytest.raises(ConfigurationError, match="undocumented"):

        class Undocumented(NotesSpec):
            more_functions: ClassVar[list[str]] = ["extra"]

            def extra(self, undocumented: str) -> str:
                """No Args section."""
                return undocumented


def served(*spec_names: str, tools: list[str]) -> list[str]:
    settings = ServeSettings(names=list(spec_names), sandbox=True, tools=tools)
    return names(served_tools(build_specs(settings), []))


@pytest.mark.dates
def test_tools_on_the_command_line_choose_per_spec():
    default = load_spec("google_calendar").spec_functions  # its declared default set
    assert served("google_calendar", tools=["default,find_free_time"]) == [
        *default,
        "find_free_time",
        "read_stored_events",
    ]
    assert "update_event" in served("google_calendar", tools=["all"])
    # A bare tool name goes to the one spec that has it; the others keep their defaults.
    both = served("google_calendar", "arxiv", tools=["find_free_time"])
    assert "find_free_time" in both and "create_event" not in both and "arxiv_query" in both
    assert served("google_calendar", "arxiv", tools=["arxiv.arxiv_query"])[-2:] == [
        "arxiv_query",
        "read_stored_papers",
    ]


@pytest.mark.parametrize(
    ("spec_names", "value", "said"),
    [
        (["google_calendar"], "find_free", "no such tool; choose from all, default,"),
        (["google_calendar"], "gmail.all", "'gmail' is not served here; served: google_calendar"),
        (["google_calendar", "gmail"], "load_data", "google_calendar, gmail all have"),
    ],
)
@pytest.mark.dates
def test_a_wrong_tools_value_says_what_to_write(spec_names, value, said):
    with pytest.raises(ConfigurationError, match="--tools") as caught:
        served(*spec_names, tools=[value])
    assert said in str(caught.value)


@pytest.mark.dates
def test_call_offers_every_tool_by_name_and_describe_lists_the_opt_in_ones(capsys):
    code = main(
        [
            "call",
            "--sandbox",
            "google_calendar.find_free_time",
            "start_datetime=2026-11-24 09:00",
            "end_datetime=2026-11-24 17:00",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "free" in out.out.lower()
    assert main(["describe", "--sandbox", "google_calendar", "--tools", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toolspecs: --tools nope: no such tool") and err.count("\n") == 1


class PointingSpec(NotesSpec):
    """A reply that points to another tool only when the agent has it."""

    @tool(read_only=False, destructive=False, idempotent=False, open_world=False)
    def add_note(self, text: str) -> str:
        """Add a note.

        Args:
            text: The note.
        """
        if self.offers_tool("find_notes"):
            return f"Added {text!r}. Call {ref('find_notes')} to find it."
        return f"Added {text!r}."


def test_a_reply_names_another_tool_only_when_the_agent_has_it():
    spec = PointingSpec()
    (alone,) = spec.to_tool_list()
    assert alone.call(text="tea").content == "Added 'tea'."
    both = {t.metadata.name: t for t in spec.to_tool_list(spec_functions=spec.all_functions)}
    assert both["add_note"].call(text="tea").content == "Added 'tea'. Call find_notes to find it."
    # With a prefix the mention follows the tool's public name.
    prefixed = spec.to_tool_list(spec_functions=["add_note", "find_notes"], prefix="n_")
    assert prefixed[0].call(text="tea").content.endswith("Call n_find_notes to find it.")
    # A direct Python call of the method: every function counts as offered.
    assert spec.add_note("tea").endswith("Call find_notes to find it.")
