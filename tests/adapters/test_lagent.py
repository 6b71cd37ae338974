"""Lagent: our tools as one toolkit (a BaseAction), through Lagent's own ActionExecutor and ReAct."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, urlsplit

import pytest
from lagent.actions import ActionExecutor, BaseAction, JsonParser
from lagent.agents import ReAct
from lagent.llms.base_llm import BaseModel
from lagent.schema import ActionStatusCode

from toolspecs.adapters.lagent import to_lagent_action
from toolspecs.core import ConfigurationError, ToolGuidance, ToolSpec, tool
from toolspecs.loaders.arxiv.testing import NEEDLE, FakeArxiv
from toolspecs.loaders.google.testing import FakeCalendar, sample_mailbox
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec
from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec


@pytest.fixture
def executor(spec):
    return ActionExecutor(actions=[to_lagent_action(spec)])


def tool_of(spec, name):
    (found,) = [t for t in spec.to_tool_list() if t.metadata.name == name]
    return found


def guidance_of(spec, name, **kwargs):
    """The exact text our tool raises for this call (what every host must show)."""
    with pytest.raises(ToolGuidance) as info:
        tool_of(spec, name).fn(**kwargs)
    return info.value.text


def test_the_model_sees_each_tool_in_lagents_api_list_format(spec, executor):
    action = executor.actions["Arxiv"]
    assert isinstance(action, BaseAction) and action.is_toolkit
    assert action.description["name"] == "Arxiv"
    assert action.description["description"] == "arXiv tools."
    info = executor.get_actions_info()  # what Lagent's agents put in the prompt
    assert [api["name"] for api in info] == [
        "Arxiv.arxiv_query",
        "Arxiv.arxiv_paper_text",
        "Arxiv.read_stored_papers",
    ]
    query = spec.to_tool_list()[0]
    assert info[0] == {
        "name": "Arxiv.arxiv_query",
        "description": query.metadata.description,
        "parameters": [
            {
                "name": "query",
                "type": "STRING",
                "description": "Keywords or ids ('1706.03762').",
            },
            {
                "name": "sort_by",
                "type": "STRING",
                "description": "'recent': newest first.",
                "enum": ["relevance", "recent", "updated"],
                "default": "relevance",
            },
            {
                "name": "max_results",
                "type": "NUMBER",
                "description": "Default 3.",
                "maximum": 50,
                "minimum": 1,
            },
            {"name": "author", "type": "STRING", "description": "e.g. 'Hinton'."},
            {"name": "title", "type": "STRING", "description": "Title words."},
            {"name": "category", "type": "STRING", "description": "e.g. 'cs.CL'."},
            {
                "name": "submitted",
                "type": "STRING",
                "description": "e.g. '2023 to 2024-06'.",
            },
        ],
        "required": [],  # issue 15: a field may stand in for the query
        "parameter_description": JsonParser.PARAMETER_DESCRIPTION,
    }
    json.dumps(info)  # the agents dump it into the prompt


@pytest.mark.parametrize(
    "make",
    [
        lambda: ArxivToolSpec(transport=FakeArxiv().transport()),
        lambda: WolframAlphaToolSpec(app_id="x"),
        lambda: GoogleCalendarToolSpec(transport=FakeCalendar(), timezone="UTC"),
        lambda: GmailToolSpec(transport=sample_mailbox()),
    ],
)
def test_every_parameter_of_every_spec_with_its_lagent_type(make):
    spec = make()
    lagent_types = {"string": "STRING", "integer": "NUMBER", "boolean": "BOOLEAN", "array": "Array"}
    action = to_lagent_action(spec)
    apis = {api["name"]: api for api in action.description["api_list"]}
    for our in spec.to_tool_list():
        schema = our.metadata.fn_schema.model_json_schema()
        api = apis[our.metadata.name]
        assert api["required"] == schema.get("required", [])
        assert [p["name"] for p in api["parameters"]] == list(schema["properties"])
        for parameter in api["parameters"]:
            prop = schema["properties"][parameter["name"]]
            assert parameter["type"] == lagent_types[prop["type"]]
            assert parameter["description"] == prop["description"]
            for key in ("enum", "default", "minimum", "maximum", "maxLength"):
                assert parameter.get(key) == prop.get(key)
            if prop["type"] == "array":
                assert parameter["items"] == {"type": "STRING"}


def test_a_tolerant_input_reaches_arxiv_as_a_number(arxiv, spec, executor):
    # Lagent's own JsonParser would pass "5" on as it is; our model reads it as 5.
    ret = executor("Arxiv.arxiv_query", '{"query": "bert", "max_results": "5"}')
    assert ret.state == ActionStatusCode.SUCCESS and ret.errmsg is None
    sent = parse_qs(urlsplit(arxiv.requests[-1].url).query)
    assert sent["max_results"] == ["5"] and sent["search_query"] == ["bert"]
    text = tool_of(spec, "arxiv_query").fn(query="bert", max_results=5)
    assert ret.result == [{"type": "text", "content": text}] and text.count("arXiv id:") == 2
    assert ret.args == {"query": "bert", "max_results": "5"} and ret.type == "Arxiv"


def test_names_are_read_by_our_model_not_refused_by_lagents_parser(arxiv, executor):
    # camelCase and a JSON fence, as models send them; JsonParser would say "unknown arguments".
    ret = executor("Arxiv.arxiv_query", '```json\n{"query": "bert", "maxResults": 1}\n```')
    assert ret.state == ActionStatusCode.SUCCESS
    assert parse_qs(urlsplit(arxiv.requests[-1].url).query)["max_results"] == ["1"]


def test_unreadable_arguments_are_an_args_error_with_the_exact_guidance(spec, executor):
    ret = executor("Arxiv.arxiv_query", '{"query": "bert", "max_results": 500, "colour": "red"}')
    assert ret.state == ActionStatusCode.ARGS_ERROR and ret.result is None
    assert ret.errmsg == guidance_of(
        spec, "arxiv_query", query="bert", max_results=500, colour="red"
    )
    assert "max_results: 500 is above the maximum of 50" in ret.errmsg and "'colour'" in ret.errmsg


def test_guidance_from_the_call_itself_is_an_api_error(arxiv, spec, executor):
    arxiv.fail.append((429, {"Retry-After": "120"}))
    ret = executor("Arxiv.arxiv_query", '{"query": "bert"}')
    assert ret.state == ActionStatusCode.API_ERROR
    assert ret.errmsg.endswith("Wait 120 seconds and try the same call again."), ret.errmsg


def test_an_argument_fault_the_tool_itself_finds_is_an_args_error(spec, executor):
    ret = executor("Arxiv.read_stored_papers", '{"query": "bert"}')  # nothing stored yet
    assert ret.state == ActionStatusCode.ARGS_ERROR  # FixArguments, from the call stage
    assert ret.errmsg == guidance_of(spec, "read_stored_papers", query="bert")
    assert ret.errmsg.startswith("There is no stored result to read.")
    calendar = GoogleCalendarToolSpec(transport=FakeCalendar(timezone="Europe/Paris"))
    action = to_lagent_action(calendar)
    arguments = {
        "title": "Tea",
        "start_datetime": "2026-11-21T16:00",
        "end_datetime": "2026-11-21T15:00",  # the end before the start
    }
    ret = ActionExecutor(actions=[action])("GoogleCalendar.create_event", json.dumps(arguments))
    assert ret.state == ActionStatusCode.ARGS_ERROR and ret.result is None
    assert ret.errmsg == guidance_of(calendar, "create_event", **arguments)
    assert "end" in ret.errmsg.lower()


def test_arguments_that_are_not_a_json_object_get_guidance(executor):
    ret = executor("Arxiv.arxiv_query", '{"query": "bert", ')
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert ret.errmsg.startswith("The arguments of Arxiv.arxiv_query are not valid JSON")
    assert ret.errmsg.endswith("complete and with double quotes.")
    ret = executor("Arxiv.arxiv_query", '["bert"]')
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert ret.errmsg.startswith("The arguments of Arxiv.arxiv_query must be one JSON object")
    ret = executor("Arxiv.description", "{}")  # an attribute of the action, not an API
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert (
        "Call one of: Arxiv.arxiv_query, Arxiv.arxiv_paper_text, Arxiv.read_stored_papers"
        in ret.errmsg
    )


def test_a_large_result_is_stored_and_read_back_in_the_same_executor(executor):
    ret = executor("Arxiv.arxiv_paper_text", {"paper_id": "1706.03762"})
    text = ret.format_result()
    assert ret.state == ActionStatusCode.SUCCESS
    assert "stored as result 1" in text and "call read_stored_papers" in text
    assert NEEDLE not in text
    found = executor("Arxiv.read_stored_papers", '{"query": "quokka ablation"}')
    assert found.state == ActionStatusCode.SUCCESS
    assert NEEDLE in found.format_result()


def test_the_text_is_ours_exactly_even_outside_gbk(spec, executor):
    # Lagent's default output parser drops every character GBK cannot encode ("Oğuz" -> "Ouz").
    ret = executor("Arxiv.arxiv_query", '{"query": "dense passage retrieval"}')
    assert "Barlas Oğuz" in ret.format_result()
    assert ret.format_result() == tool_of(spec, "arxiv_query").fn(query="dense passage retrieval")


def test_gmail_and_calendar_as_two_toolkits_in_one_executor():
    calendar = FakeCalendar(timezone="Europe/Paris")
    executor = ActionExecutor(
        actions=[
            to_lagent_action(GoogleCalendarToolSpec(transport=calendar)),
            to_lagent_action(GmailToolSpec(transport=sample_mailbox())),
        ]
    )
    names = [api["name"] for api in executor.get_actions_info()]
    assert "GoogleCalendar.load_data" in names and "Gmail.load_data" in names
    ret = executor(
        "GoogleCalendar.create_event",
        json.dumps(
            {
                "title": "Tea",
                "start_datetime": "2026-11-21 16:00",
                "attendees": "ada@example.com, bob@example.com",
            }
        ),
    )
    assert ret.state == ActionStatusCode.SUCCESS, ret.errmsg
    assert "Event created with id evt0001" in ret.format_result()
    event = calendar.events["evt0001"]
    assert event["start"]["dateTime"].startswith("2026-11-21T16:00:00+01:00")
    assert [a["email"] for a in event["attendees"]] == ["ada@example.com", "bob@example.com"]
    assert executor("Gmail.load_data", "{}").state == ActionStatusCode.SUCCESS


def test_several_specs_in_one_toolkit_with_a_prefix():
    calendar = GoogleCalendarToolSpec(transport=FakeCalendar())
    gmail = GmailToolSpec(transport=sample_mailbox())
    action = to_lagent_action([calendar, *gmail.to_tool_list(prefix="gmail_")])
    assert action.name == "Toolspecs"
    assert action.description["description"] == "Google Calendar and Gmail tools."
    executor = ActionExecutor(actions=[action])
    ret = executor("Toolspecs.gmail_search_messages", '{"query": "x", "max_results": "many"}')
    assert ret.state == ActionStatusCode.ARGS_ERROR  # a renamed guidance is still a reading fault
    assert ret.errmsg.startswith("gmail_search_messages was called wrongly")
    with pytest.raises(ConfigurationError, match="prefix='gmail_'"):
        to_lagent_action([calendar, gmail])


def test_names_lagent_cannot_take_are_refused():
    with pytest.raises(ConfigurationError, match="hold a dot"):
        to_lagent_action(ArxivToolSpec(), name="my.arxiv")

    class Clash(ToolSpec):
        spec_functions: ClassVar[list[str]] = ["enable"]

        @tool(read_only=True)
        def enable(self) -> str:
            """Turn it on."""
            return "on"

    with pytest.raises(ConfigurationError, match="'enable' is taken by Lagent's BaseAction"):
        to_lagent_action(Clash())


class ScriptedModel(BaseModel):
    """A Lagent model that plays a script of replies and records every prompt it was sent."""

    def __init__(self, replies):
        super().__init__(path="scripted")
        self.replies = list(replies)
        self.prompts = []

    def chat(self, inputs, **gen_params):
        self.prompts.append(inputs)
        return self.replies.pop(0)


def test_a_react_agent_calls_the_tools_and_reads_the_guidance(spec):
    model = ScriptedModel(
        [
            'Thought: search\nAction: Arxiv.arxiv_query\nAction Input: {"query": "bert", "max_results": "5"}',
            'Thought: more\nAction: Arxiv.arxiv_query\nAction Input: {"query": "bert", "max_results": 500}',
            "Thought: done\nFinal Answer: BERT is 1810.04805.",
        ]
    )
    agent = ReAct(llm=model, action_executor=ActionExecutor(actions=[to_lagent_action(spec)]))
    answer = agent.chat("Find the BERT paper")
    assert answer.response.strip() == "BERT is 1810.04805."
    system = model.prompts[0][0]["content"]
    assert "'name': 'Arxiv.read_stored_papers'" in system and "Arxiv" in system
    first, second = answer.actions[:2]
    assert (
        first.state == ActionStatusCode.SUCCESS
        and "arXiv id: 1810.04805v2" in first.format_result()
    )
    assert second.state == ActionStatusCode.ARGS_ERROR
    # The model reads the exact guidance as the tool's response on its next turn.
    expected = guidance_of(spec, "arxiv_query", query="bert", max_results=500)
    assert model.prompts[2][-1]["content"] == f"Response:{expected}\n"


def test_the_readme_example_runs_offline(capsys):
    text = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    section = text.split("\n### Use it from Lagent\n", 1)[1]
    section = re.split(r"\n##+ ", section, maxsplit=1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    shown = capsys.readouterr().out
    assert "'Arxiv.read_stored_papers'" in shown and "Title: Attention Is All You Need" in shown


def test_without_lagent_the_error_names_the_extra():
    code = (
        "import sys; sys.modules['lagent.actions'] = None\n"
        "from toolspecs.adapters.lagent import to_lagent_action\n"
        "from toolspecs.specs.arxiv import ArxivToolSpec\n"
        "to_lagent_action(ArxivToolSpec())\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1
    assert 'lagent.actions is not installed: pip install "toolspecs-core[lagent]"' in run.stderr


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ('{"query": "bert", "max_results": ' + "9" * 5000 + "}",
         "hold a number too long to read (more than 4,300 digits)"),
        ('{"query": ' + "[" * 100_000 + "]" * 100_000 + "}", "are nested too deeply to read"),
    ],
)  # fmt: skip
def test_json_python_will_not_read_is_an_args_error_not_a_crash(arxiv, executor, arguments, says):
    ret = executor("Arxiv.arxiv_query", arguments)
    assert ret.state == ActionStatusCode.ARGS_ERROR and ret.result is None
    assert ret.errmsg.startswith(f"The arguments of Arxiv.arxiv_query {says}")
    assert ret.errmsg.endswith('such as {"query": "..."}.')
    assert arxiv.requests == []  # nothing was asked of arXiv
    ret = executor("Arxiv.arxiv_query", '{"query": "bert"}')  # the executor is still whole
    assert ret.state == ActionStatusCode.SUCCESS


def test_a_value_python_cannot_show_is_echoed_in_the_guidance(executor):
    ret = executor("Arxiv.arxiv_query", {"query": "bert", "max_results": 10**5000})
    assert ret.state == ActionStatusCode.ARGS_ERROR
    assert "max_results: <a number of about 5001 digits> is above the maximum" in ret.errmsg
