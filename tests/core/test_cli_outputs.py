"""`toolspecs describe`, `list` and `schema` show a tool's output schema and what it costs.

The tests' own spec (tests/notes_spec.py) is registered as a third-party package would
(an entry point of ``toolspecs.specs``), so the test does not depend on the shipped
specs' models.
"""

from __future__ import annotations

import json
from importlib.metadata import EntryPoint

import pytest
from notes_spec import Notes

from toolspecs.cli import main
from toolspecs.core import count_tokens, registry
from toolspecs.core.structured import output_schema


@pytest.fixture(autouse=True)
def notes_installed(monkeypatch):
    installed = registry.entry_points
    mine = EntryPoint("notes", "notes_spec:NotesToolSpec", registry.GROUP)

    def found(group):
        listed = list(installed(group=group))
        return [*listed, mine] if group == registry.GROUP else listed

    monkeypatch.setattr(registry, "entry_points", found)


COST = count_tokens(json.dumps(output_schema(Notes)))


def test_describe_shows_the_output_fields_and_their_cost(capsys):
    assert main(["describe", "notes"]) == 0
    out = capsys.readouterr().out
    find = out.split("find_notes  (", 1)[1].split("\n\n")[0]
    assert (
        "  Parameters:\n"
        "    query (string, required): Words of the title, e.g. 'standup'.\n"
        f"  Output: Notes ({COST} tokens of outputSchema, where the client sends it)\n"
        "    omitted (integer, optional): Items left out of this data to keep it short.\n"
        "    stored (Stored, optional): Set when the whole result is stored: read it with "
        "read_with.\n"
        "    notes (array of Note, required)\n"
        "    count (integer, required)\n"
        "    next_step (string, optional)"
    ) in find
    count = out.split("count_words  (", 1)[1].split("\n\n")[0]
    assert "Output" not in count  # no output model: nothing to show
    last = out.strip().splitlines()[-1]
    assert last.endswith(f"Their output schemas add {COST} tokens where a client sends them (MCP).")


def test_list_and_schema_show_the_output_schema(capsys):
    assert main(["list"]) == 0
    listed = capsys.readouterr().out.split("notes  (", 1)[1]
    assert "  find_notes" in listed and f"tokens, output schema {COST}\n" in listed
    # count_words has no output model (the specs listed after it may have theirs).
    assert "output schema" not in listed.split("count_words", 1)[1].split("\n", 1)[0]
    assert main(["schema", "notes"]) == 0
    shown = capsys.readouterr().out
    block = shown.split("## find_notes\n", 1)[1].split("## count_words", 1)[0]
    assert json.loads(block.split("output: ", 1)[1]) == output_schema(Notes)
    assert "output: " not in shown.split("## count_words", 1)[1]
