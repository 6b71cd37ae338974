"""Every tool's structured result: declared, closed, and its schema under review.

A tool declares its output model with ``@tool(output=...)`` (``toolspecs.core.structured``);
MCP clients get its JSON schema as ``outputSchema``. A change shows up as a snapshot diff:
after a deliberate one, rewrite with
``TOOLSPECS_UPDATE_SNAPSHOTS=1 uv run pytest tests/test_output_schemas.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from toolspecs.core import list_specs, load_spec
from toolspecs.core.structured import output_schema

SNAPSHOTS = Path(__file__).parent / "snapshots" / "outputs"
SPECS = list_specs()
# The specs whose every tool declares its output: all of ours.
STRUCTURED: set[str] = {"arxiv", "gmail", "google_calendar", "wolfram_alpha"}


def every_tool(name):
    spec = load_spec(name)
    spec.allow_destructive = spec.allow_send = True
    return spec.to_tool_list(spec_functions=spec.all_functions)


def schemas(name):
    found = {}
    for t in every_tool(name):
        model = t.guard.options.output
        if model is not None:
            found[t.metadata.name] = output_schema(model)
    return found


@pytest.mark.parametrize("name", sorted(STRUCTURED))
def test_every_tool_declares_a_closed_output(name):
    found = schemas(name)
    tools = [t.metadata.name for t in every_tool(name)]
    assert sorted(found) == sorted(tools), "tools without an output model"
    for tool_name, schema in found.items():
        assert schema["type"] == "object", tool_name
        assert schema.get("additionalProperties") is False, tool_name


@pytest.mark.parametrize("name", sorted(STRUCTURED))
def test_output_schema_snapshot(name):
    current = json.dumps(schemas(name), indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    path = SNAPSHOTS / f"{name}.json"
    if os.environ.get("TOOLSPECS_UPDATE_SNAPSHOTS") or not path.exists():
        path.parent.mkdir(exist_ok=True)
        path.write_text(current, encoding="utf-8")
        if not os.environ.get("TOOLSPECS_UPDATE_SNAPSHOTS"):
            pytest.fail(f"wrote a new snapshot {path.name}; review and commit it")
    assert current == path.read_text(encoding="utf-8"), (
        f"the output schema of {name} changed; if that is intended, rerun with "
        "TOOLSPECS_UPDATE_SNAPSHOTS=1 and commit the snapshot"
    )
