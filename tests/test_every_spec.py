"""What every tool of every installed spec promises, whoever hosts it (Core v2)."""

from __future__ import annotations

from typing import Any

import pytest

from toolspecs.core import GuardedTool, ToolGuidance, list_specs, load_spec
from toolspecs.core.declare import options_of

SPECS = list_specs()


def every_tool(name):
    spec = load_spec(name)
    spec.allow_destructive = spec.allow_send = True  # every tool, the opt-in ones too
    return spec, spec.to_tool_list()


@pytest.mark.parametrize("name", SPECS)
def test_every_spec_function_declares_its_four_marks(name):
    spec, tools = every_tool(name)
    assert tools and all(isinstance(t, GuardedTool) for t in tools)
    for entry in type(spec).spec_functions:
        fn = getattr(spec, entry if isinstance(entry, str) else entry[0])
        assert options_of(fn).marks.declared, f"{name}.{fn.__name__} has no marks"
    for t in tools:
        marks = t.marks
        assert marks.declared, t.metadata.name
        if marks.read_only:
            assert not marks.destructive and marks.idempotent


@pytest.mark.parametrize("name", SPECS)
@pytest.mark.parametrize("odd", [{"self": ""}, {"args": []}, {"kwargs": {}}, {"": 1}])
def test_no_argument_name_makes_a_tool_raise(name, odd):
    # Every call here has a name the tool cannot take: guidance, before any request.
    _, tools = every_tool(name)
    for t in tools:
        out = t.call(**odd)
        assert out.is_error, t.metadata.name
        assert isinstance(out.exception, ToolGuidance)
        assert "unknown argument" in out.content
        with pytest.raises(ToolGuidance):
            t.fn(**odd)


@pytest.mark.parametrize("name", SPECS)
def test_every_fn_schema_is_typed_and_is_the_schema_the_agent_sees(name):
    _, tools = every_tool(name)
    for t in tools:
        model = t.metadata.fn_schema
        parameters = t.metadata.to_openai_tool()["function"]["parameters"]
        assert model.model_json_schema() == parameters, t.metadata.name
        for field_name, info in model.model_fields.items():
            assert info.annotation is not Any, f"{t.metadata.name}.{field_name}"
            assert info.description, f"{t.metadata.name}.{field_name}"
