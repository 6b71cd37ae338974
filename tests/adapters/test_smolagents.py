"""Our tools in smolagents: ``ToolCallingAgent`` and ``CodeAgent`` on its real OpenAI model class.

The model is smolagents' ``OpenAIServerModel`` over the OpenAI SDK, its HTTP answered by
our ``FakeOpenAI``: each request body is what OpenAI would have received.
"""

from __future__ import annotations

import enum
import importlib
import sys
from typing import Any, ClassVar, Literal
from urllib.parse import parse_qs, urlsplit

import pytest
from host_fakes import openai_server_model, request_text
from smolagents import CodeAgent, Tool, ToolCallingAgent
from smolagents.models import get_tool_json_schema

from toolspecs.adapters.smolagents import smolagents_inputs, to_smolagents_tools
from toolspecs.agents.testing import FakeOpenAI
from toolspecs.core import ConfigurationError, ToolGuidance, ToolSpec, tool
from toolspecs.loaders.arxiv.testing import FakeArxiv
from toolspecs.loaders.arxiv.testing.pdf import NEEDLE
from toolspecs.loaders.google.testing import FakeCalendar, sample_mailbox
from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec
from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec


def every_spec() -> list[ToolSpec]:
    return [
        ArxivToolSpec(transport=FakeArxiv().transport()),
        WolframAlphaToolSpec(app_id="x", transport=FakeWolframAlpha().transport()),
        GoogleCalendarToolSpec(transport=FakeCalendar(), allow_destructive=True),
        GmailToolSpec(transport=sample_mailbox()).to_tool_list(prefix="gmail_"),
    ]


def guidance_of(our_tool, **kwargs) -> str:
    with pytest.raises(ToolGuidance) as caught:
        our_tool.fn(**kwargs)
    return caught.value.text


def max_results_asked(arxiv: FakeArxiv) -> list[str]:
    return [parse_qs(urlsplit(r.url).query)["max_results"][0] for r in arxiv.requests]


def code(text: str) -> str:
    """A CodeAgent turn as OpenAI returns it: the stop sequence </code> is not included."""
    return f"Thought: next step.\n<code>\n{text}\n"


def tool_calling_agent(tools, fake: FakeOpenAI) -> ToolCallingAgent:
    return ToolCallingAgent(tools=tools, model=openai_server_model(fake), verbosity_level=0)


def code_agent(tools, fake: FakeOpenAI) -> CodeAgent:
    return CodeAgent(tools=tools, model=openai_server_model(fake), verbosity_level=0)


def test_every_tool_passes_smolagents_checks_with_typed_described_inputs():
    for source in every_spec():
        ours = source.to_tool_list() if isinstance(source, ToolSpec) else source
        for our, theirs in zip(ours, to_smolagents_tools(source), strict=True):
            assert isinstance(theirs, Tool) and theirs.output_type == "string"
            assert (theirs.name, theirs.description) == (
                our.metadata.name,
                our.metadata.description,
            )
            assert theirs.marks == our.marks
            schema = our.metadata.fn_schema.model_json_schema()
            required = set(schema.get("required", []))
            assert list(theirs.inputs) == list(schema["properties"])
            for name, prop in schema["properties"].items():
                entry = dict(theirs.inputs[name])
                assert entry.pop("nullable", False) is (name not in required), name
                assert entry == prop, name  # type, description, enum, bounds, items, default


def test_a_tool_calling_agent_sends_our_schema_to_the_model(spec):
    fake = FakeOpenAI([[("final_answer", {"answer": "Nothing to do."})]])
    assert tool_calling_agent(to_smolagents_tools(spec), fake).run("Hello") == "Nothing to do."
    sent = {t["function"]["name"]: t["function"] for t in fake.tools(0)}
    for our in spec.to_tool_list():
        theirs = sent[our.metadata.name]
        ours = our.metadata.to_openai_tool()["function"]
        assert theirs["description"] == ours["description"]
        parameters = theirs["parameters"]
        assert sorted(parameters["required"]) == sorted(ours["parameters"].get("required", []))
        for prop in parameters["properties"].values():
            prop.pop("nullable", None)  # smolagents' mark of the optional ones, added to ours
        assert parameters["properties"] == ours["parameters"]["properties"]
    assert sent["arxiv_query"]["parameters"]["properties"]["sort_by"]["enum"] == [
        "relevance",
        "recent",
        "updated",
    ]


def test_a_tool_calling_agent_reports_our_guidance_word_for_word(spec, arxiv):
    expected = guidance_of(spec.to_tool_list()[0], query="bert", max_results=500)
    fake = FakeOpenAI(
        [
            [("arxiv_query", {"query": "bert", "max_results": 500})],
            [("final_answer", {"answer": "I could not."})],
        ]
    )
    tool_calling_agent(to_smolagents_tools(spec), fake).run("bert?")
    told = request_text(fake.requests[1])
    assert f"FixArguments: {expected}" in told
    assert expected.startswith("arxiv_query was called wrongly: max_results: 500 is above")
    assert arxiv.requests == []


def test_a_tool_calling_agent_checks_types_itself_before_our_tool(spec, arxiv):
    """smolagents refuses "5" for an integer before calling: our model never sees it."""
    fake = FakeOpenAI(
        [
            [("arxiv_query", {"query": "retrieval", "max_results": "5"})],
            [("arxiv_query", {"query": "retrieval", "max_results": 5})],
            [("final_answer", {"answer": "Found them."})],
        ]
    )
    tool_calling_agent(to_smolagents_tools(spec), fake).run("Papers on retrieval?")
    assert "Argument max_results has type 'string' but should be 'integer'" in request_text(
        fake.requests[1]
    )
    assert max_results_asked(arxiv) == ["5"]  # only the second call reached arXiv
    assert request_text(fake.requests[2]).count("Title: ") == 4


def test_a_code_agent_lets_our_model_read_what_the_model_wrote(spec, arxiv):
    arxiv_query = spec.to_tool_list()[0]
    expected_text = arxiv_query.fn(query="retrieval", max_results=5)
    expected_guidance = guidance_of(arxiv_query, query="bert", max_results=500)
    arxiv.requests.clear()
    fake = FakeOpenAI(
        [
            # An alias and a string for an integer: the code calls our tool as written.
            code('print(arxiv_query(q="retrieval", max_results="5"))'),
            code('arxiv_query("bert", max_results=500)'),
            code('final_answer("Found four.")'),
        ]
    )
    assert code_agent(to_smolagents_tools(spec), fake).run("Papers on retrieval?") == "Found four."
    assert max_results_asked(arxiv) == ["5"]
    assert expected_text in request_text(fake.requests[1])
    told = request_text(fake.requests[2])
    assert f"due to: FixArguments: {expected_guidance}" in told


def test_a_large_result_is_stored_and_read_back_by_a_tool_calling_agent(spec):
    fake = FakeOpenAI(
        [
            [("arxiv_paper_text", {"paper_id": "1706.03762"})],
            [("read_stored_papers", {"query": "quokka ablation", "result_id": 1})],
            [("final_answer", {"answer": "Perplexity went from 4.92 to 4.50."})],
        ]
    )
    tool_calling_agent(to_smolagents_tools(spec), fake).run("What did the quokka ablation do?")
    stored = request_text(fake.requests[1])
    assert "stored as result 1" in stored and "call read_stored_papers" in stored
    assert NEEDLE in request_text(fake.requests[2])


def test_a_large_result_is_stored_and_read_back_by_a_code_agent(spec):
    fake = FakeOpenAI(
        [
            code('print(arxiv_paper_text(paper_id="1706.03762"))'),
            code('print(read_stored_papers("quokka ablation", result_id=1))'),
            code('final_answer("Perplexity went from 4.92 to 4.50.")'),
        ]
    )
    code_agent(to_smolagents_tools(spec), fake).run("What did the quokka ablation do?")
    assert "stored as result 1" in request_text(fake.requests[1])
    assert NEEDLE in request_text(fake.requests[2])


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Shapes(ToolSpec):
    """A spec whose argument types are every shape a JSON schema can take."""

    spec_functions: ClassVar = ["shapes"]

    @tool(read_only=True, open_world=False)
    def shapes(
        self,
        key: int | str,
        color: Color = Color.RED,
        anything: Any = None,
        sizes: list[int] | None = None,
        options: dict[str, str] | None = None,
        ratio: float = 0.5,
        level: Literal[1, 2] = 1,
    ) -> str:
        """Describe shapes.

        Args:
            key: A number or a name.
            color: 'red' or 'blue'.
            anything: Any value.
            sizes: Sizes, e.g. [1, 2].
            options: Names to values.
            ratio: Between 0 and 1.
            level: 1 or 2.
        """
        return f"{key}|{color.value}|{anything}|{sizes}|{options}|{ratio}|{level}"


def test_every_json_type_maps_onto_smolagents_types():
    (shapes,) = to_smolagents_tools(Shapes())
    types = {name: entry["type"] for name, entry in shapes.inputs.items()}
    assert types == {
        "key": ["integer", "string"],
        "color": "string",
        "anything": "any",
        "sizes": "array",
        "options": "object",
        "ratio": "number",
        "level": "integer",
    }
    assert shapes.inputs["color"]["enum"] == ["red", "blue"]  # its $ref written out
    assert shapes.inputs["level"]["enum"] == [1, 2]
    assert [n for n, e in shapes.inputs.items() if not e.get("nullable")] == ["key"]
    sent = get_tool_json_schema(shapes)["function"]["parameters"]  # what the model gets
    assert sent["properties"]["color"]["enum"] == ["red", "blue"]
    assert sent["properties"]["key"]["type"] == ["integer", "string"]
    # Called as CodeAgent code would, the values are read by our model.
    assert shapes(key="3", color="blue", sizes="1, 2", ratio="0.25") == (
        "3|blue|None|[1, 2]|None|0.25|1"
    )


def test_inputs_of_schemas_smolagents_cannot_read_as_they_are():
    inputs = smolagents_inputs(
        {
            "properties": {
                "a": {"anyOf": [{"$ref": "#/$defs/Node"}, {}], "description": "a"},
                "b": {"const": "x"},
                "c": {"type": ["string", "null"]},
                "d": {"type": "string", "format": "binary"},
            },
            "required": ["a"],
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
        }
    )
    assert inputs["a"] == {"type": "any", "description": "a"}  # no anyOf member without a type
    assert inputs["b"] == {"type": "string", "description": "", "const": "x", "nullable": True}
    assert inputs["c"]["type"] == ["string", "null"]
    assert inputs["d"]["type"] == "string" and inputs["d"]["format"] == "binary"


def test_several_specs_one_name_each():
    calendar = GoogleCalendarToolSpec(transport=FakeCalendar())
    gmail = GmailToolSpec(transport=sample_mailbox())
    with pytest.raises(ConfigurationError, match="prefix"):
        to_smolagents_tools([calendar, gmail])
    tools = to_smolagents_tools([calendar, *gmail.to_tool_list(prefix="gmail_")])
    assert "gmail_load_data" in [t.name for t in tools]


def test_without_smolagents_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "smolagents", None)
    monkeypatch.delitem(sys.modules, "toolspecs.adapters.smolagents")
    with pytest.raises(ImportError, match=r'pip install "toolspecs-core\[smolagents\]"'):
        importlib.import_module("toolspecs.adapters.smolagents")
