"""`toolspecs describe NAME`: what the agent reads about each tool, and what it costs."""

from __future__ import annotations

import json
import re

import pytest
from toolsets import every_tool, offered

from toolspecs.cli import main
from toolspecs.cli.commands import describe_parameter
from toolspecs.core import count_tokens, load_spec
from toolspecs.specs.arxiv import ArxivToolSpec


def test_describe_shows_each_tool_as_the_agent_sees_it(capsys):
    assert main(["describe", "arxiv"]) == 0
    out = capsys.readouterr().out
    tools = ArxivToolSpec().to_tool_list()
    costs = [count_tokens(json.dumps(t.metadata.to_openai_tool())) for t in tools]
    for tool, cost in zip(tools, costs, strict=True):
        assert f"{tool.metadata.name}  ({cost} tokens)\n" in out
        for line in tool.metadata.description.splitlines():
            assert f"\n  {line}\n" in out
    assert "    query (string, optional): Keywords or ids ('1706.03762')." in out
    assert (
        '    sort_by (string, one of "relevance", "recent", "updated", default "relevance"): '
        "'recent': newest first.\n" in out
    )
    assert "    max_results (integer, 1 to 50, optional): Default 3" in out
    assert "    result_id (integer, optional): From the preview" in out
    assert "arxiv_query  (" in out and "  Marks: read-only, open world\n" in out
    assert out.split("read_stored_papers  (", 1)[1].split("\n\n")[0].count("closed world") == 1
    last = out.strip().splitlines()[-1]
    assert last.startswith(f"Total: {len(tools)} tools, {sum(costs)} tokens of tool schemas")


def test_describe_a_tool_without_parameters(capsys):
    assert main(["describe", "google_calendar"]) == 0
    out = capsys.readouterr().out
    get_date = out.split("get_date  (", 1)[1]
    assert "  Parameters: none\n" in get_date
    assert "  Marks: read-only, closed world\n" in get_date
    create = out.split("create_event  (", 1)[1].split("\n\n")[0]
    assert "  Marks: changes data, not destructive, open world\n" in create
    assert "    attendees (array of string, optional): Emails to invite" in out
    assert "    all_day (boolean, default false): Whole days" in out
    default = offered("google_calendar")  # the counts: read from the spec, as described
    assert re.search(rf"^Total: {len(default)} tools, \d+ tokens", out, re.M)
    # The opt-in tools follow, each saying how to offer it; delete_event needs its option.
    free = out.split("find_free_time  (", 1)[1].split("\n\n")[0]
    assert "opt-in: --tools default,find_free_time" in free.splitlines()[0]
    opt_in = [name for name in every_tool("google_calendar") if name not in default]
    assert f"The {len(opt_in)} opt-in tools would add" in out and "delete_event" not in out
    assert main(["describe", "google_calendar", "--tools", "all", "--allow-destructive"]) == 0
    every = capsys.readouterr().out
    everything = every_tool(load_spec("google_calendar", allow_destructive=True))
    assert re.search(rf"^Total: {len(everything)} tools, \d+ tokens", every, re.M)
    assert "opt-in" not in every and "delete_event" in everything  # with its option


@pytest.mark.parametrize(
    ("prop", "required", "expected"),
    [
        ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, False, "n (integer, optional)"),
        ({"type": ["string", "null"], "default": "x"}, False, 'n (string, default "x")'),
        ({"type": "array"}, True, "n (array, required)"),
        ({"minimum": 0}, True, "n (any, >= 0, required)"),
        ({"type": "number", "maximum": 1, "description": "Share."}, False,
         "n (number, <= 1, optional): Share."),
    ],
)  # fmt: skip
def test_parameters_of_other_schemas_read_well(prop, required, expected):
    assert describe_parameter("n", prop, required) == expected


def test_describe_unknown_spec_is_one_line_exit_2(capsys):
    assert main(["describe", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no spec named 'nope'; installed specs:" in err
    assert err.count("\n") == 1
