"""No reply or guidance of any spec names a tool the agent was not given.

Each tool of every sandboxed spec is offered alone (with its reader, when it stores
results) under the prefix ``zz_``, and called as an agent would: with nothing, with
arguments that name nothing the service has, and with the sample calls below (their
ids taken from what earlier calls answered). Its text must name no other tool of the
spec, neither as ``zz_list_drafts`` (our words, through ``ref``) nor as a bare
``list_drafts`` (a template that skipped ``ref``). Under ``TOOLSPECS_STRICT`` a ``ref()``
of a tool not offered raises :class:`~toolspecs.core.prefixed.NotOffered` as well.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from toolspecs.core.declare import function_name
from toolspecs.core.registry import list_sandboxes, load_spec, sandbox_arguments

PREFIX = "zz_"

# Ids that replies show, by the placeholder a sample call asks for.
FOUND = {
    "message": re.compile(r"\[id: (\w+) \| thread:"),
    "thread": re.compile(r"\| thread: (\w+)\]"),
    "draft": re.compile(r"Draft (?:created with )?id:? (\w+)"),
    "event": re.compile(r"\[id: (sbx\w+)\]"),
}

# Calls that reach the replies of a success, in order: "{message}" is an id found above.
SAMPLES: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "arxiv": [
        ("arxiv_query", {"query": "attention"}),
        ("arxiv_query", {"query": "zzqx nothing matches this"}),
        ("arxiv_paper_text", {"paper_id": "1706.03762"}),
        ("arxiv_paper_outline", {"paper_id": "1706.03762"}),
        ("arxiv_paper_section", {"paper_id": "1706.03762", "section": "3"}),
        ("arxiv_paper_section", {"paper_id": "1706.03762", "section": "Nowhere"}),
        ("arxiv_paper_section", {"paper_id": "1706.03762", "section": "30"}),
        ("arxiv_bibtex", {"paper_ids": ["1706.03762", "2401.99999"]}),
        ("arxiv_paper_text", {"paper_id": "2401.99999"}),
    ],
    "gmail": [
        ("load_data", {}),
        ("search_messages", {"query": ""}),
        ("search_messages", {"query": "zzqx nothing matches this"}),
        ("get_message", {"message_id": "{message}"}),
        ("get_thread", {"thread_id": "{thread}"}),
        ("list_labels", {}),
        ("modify_labels", {"message_ids": ["{message}"], "add": ["STARRED"]}),
        ("modify_labels", {"message_ids": ["{message}"], "add": ["TRASH"]}),
        ("list_drafts", {}),
        ("create_draft", {"to": ["ada@example.com"], "subject": "Hi", "message": "Hello"}),
        ("create_draft", {"reply_to_message_id": "{message}", "message": "Thanks"}),
        ("create_draft", {"forward_message_id": "{message}", "to": ["ada@example.com"]}),
        ("update_draft", {"draft_id": "{draft}", "subject": "Hello"}),
        ("update_draft", {"draft_id": "{draft}"}),
        ("get_draft", {"draft_id": "{draft}"}),
        ("list_drafts", {}),
        ("send_draft", {"draft_id": "{draft}", "recipients": ["grace@example.com"]}),
        ("send_draft", {"draft_id": "{draft}"}),
        ("read_attachment", {"message_id": "{message}", "attachment_id": "nothing"}),
        ("create_draft", {"message": "No one to send it to"}),
        ("send_draft", {"draft_id": "{draft}"}),
    ],
    "google_calendar": [
        ("get_date", {}),
        ("list_calendars", {}),
        ("load_data", {"number_of_results": 3}),
        ("search_events", {"query": "standup", "number_of_results": 2}),
        ("search_events", {"query": "zzqx nothing matches this"}),
        ("find_free_time", {}),
        ("create_event", {"title": "Focus", "start_datetime": "tomorrow 7am"}),
        ("update_event", {"event_id": "{event}", "title": "Moved"}),
        ("update_event", {"event_id": "{event}"}),
        ("respond_to_event", {"event_id": "{event}", "response": "accepted"}),
        ("respond_to_event", {"event_id": "nothing-here", "response": "accepted"}),
        ("delete_event", {"event_id": "{event}"}),
    ],
    "wolfram_alpha": [
        ("wolfram_alpha_query", {"query": "2+2"}),
        ("wolfram_alpha_pods", {"query": "2+2"}),
        ("wolfram_alpha_pods", {"query": "2+2", "pod": "Nowhere", "steps": True}),
    ],
}


def sandboxed(name: str) -> Any:
    spec = load_spec(name, **sandbox_arguments(name))
    spec.allow_destructive = spec.allow_send = True  # every tool, the opt-in ones too
    return spec


def tool_names(spec: Any) -> set[str]:
    return {function_name(entry) for entry in spec.all_functions} | {spec.reader_name}


def odd_arguments(tool: Any) -> Iterator[dict[str, Any]]:
    """Nothing; then every argument set to something the service does not have."""
    yield {}
    odd: dict[str, Any] = {}
    for field, info in tool.metadata.fn_schema.model_json_schema()["properties"].items():
        kinds = {info.get("type")} | {k.get("type") for k in info.get("anyOf", [])}
        if "array" in kinds:
            odd[field] = ["nothing-here"]
        elif "string" in kinds:
            odd[field] = "nothing-here"
    yield odd


def filled(arguments: dict[str, Any], found: dict[str, str]) -> dict[str, Any]:
    def fill(value: Any) -> Any:
        if isinstance(value, list):
            return [fill(v) for v in value]
        if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
            return found[value[1:-1]]
        return value

    return {key: fill(value) for key, value in arguments.items()}


def named_tools(text: str, names: set[str]) -> set[str]:
    """The tools of ``names`` that ``text`` names, prefixed or bare."""
    return {n for n in names if re.search(rf"(?<![\w.])(?:{PREFIX})?{re.escape(n)}(?!\w)", text)}


def test_every_sandboxed_spec_has_samples():
    assert set(SAMPLES) == set(list_sandboxes())


@pytest.mark.dates
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_reply_names_only_the_tools_the_agent_has(name):
    spec = sandboxed(name)
    everything = tool_names(spec)
    found: dict[str, str] = {}

    def call_alone(function: str, arguments: dict[str, Any] | None) -> None:
        tools = spec.to_tool_list([function], prefix=PREFIX)
        offered = {t.metadata.name.removeprefix(PREFIX) for t in tools}
        tool = tools[0]
        calls = odd_arguments(tool) if arguments is None else iter([arguments])
        for given in calls:
            out = tool.call(**given)
            named = named_tools(out.content, everything - offered)
            assert not named, f"{function}({given}) names {named}:\n{out.content}"
            for key, pattern in FOUND.items():
                hit = pattern.search(out.content)
                if hit:
                    found[key] = hit[1]

    for function, arguments in SAMPLES[name]:
        call_alone(function, filled(arguments, found))
    for function in sorted(everything - {spec.reader_name}):
        call_alone(function, None)
