"""Every tool of every installed spec: within OpenAI's limits, and its schema under review.

Each spec's snapshot (``snapshots/<spec>.json``) holds the names of its default set (what
``to_tool_list()`` gives a host, in order) and the schema of every tool, opt-in ones
included: a prompt change, or a tool added to or moved out of the default set, shows up
as a snapshot diff, and tests elsewhere read the tool sets from the spec (``toolsets``).
After a deliberate change, rewrite the snapshots with
``TOOLSPECS_UPDATE_SNAPSHOTS=1 uv run pytest tests/test_schemas.py``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from toolsets import offered

from toolspecs.core import list_specs, load_spec
from toolspecs.core.schema import OPENAI_DESCRIPTION_LIMIT

SNAPSHOTS = Path(__file__).parent / "snapshots"
SPECS = list_specs()


def test_the_built_in_specs_are_registered():
    assert "arxiv" in SPECS


def every_tool(name):
    """Every tool of the spec: the opt-in ones and those its options leave out."""
    spec = load_spec(name)
    spec.allow_destructive = spec.allow_send = True
    return spec.to_tool_list(spec_functions=spec.all_functions)


def openai_tools(name):
    return [t.metadata.to_openai_tool() for t in every_tool(name)]


@pytest.mark.parametrize("name", SPECS)
def test_every_tool_converts_without_skipping_the_length_check(name):
    for t in every_tool(name):
        assert len(t.metadata.description) <= OPENAI_DESCRIPTION_LIMIT, t.metadata.name
        tool_json = t.metadata.to_openai_tool()  # raises over 1024 characters
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", tool_json["function"]["name"])


@pytest.mark.parametrize("name", SPECS)
def test_every_parameter_is_described_and_typed(name):
    for tool_json in openai_tools(name):
        params = tool_json["function"]["parameters"]
        assert params["type"] == "object"
        for prop_name, prop in params["properties"].items():
            assert prop.get("description"), f"{tool_json['function']['name']}.{prop_name}"
            assert "type" in prop or "enum" in prop
            assert "title" not in prop
        assert "Args:" not in tool_json["function"]["description"]


@pytest.mark.parametrize("name", SPECS)
def test_schema_snapshot(name):
    pinned = {"default_set": offered(name), "tools": openai_tools(name)}
    current = json.dumps(pinned, indent=2, ensure_ascii=False) + "\n"
    path = SNAPSHOTS / f"{name}.json"
    if os.environ.get("TOOLSPECS_UPDATE_SNAPSHOTS") or not path.exists():
        path.write_text(current, encoding="utf-8")
        if not os.environ.get("TOOLSPECS_UPDATE_SNAPSHOTS"):
            pytest.fail(f"wrote a new snapshot {path.name}; review and commit it")
    assert current == path.read_text(encoding="utf-8"), (
        f"the tools of {name} or their schemas changed; if that is intended, rerun with "
        "TOOLSPECS_UPDATE_SNAPSHOTS=1 and commit the snapshot"
    )
