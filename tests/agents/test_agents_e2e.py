"""End to end: the real llama-index OpenAI class over a fake OpenAI, our tools over fake services.

Each test runs the LlamaHub blog's snippet with only the import changed
(`OpenAIAgent.from_tools(spec.to_tool_list(), verbose=True)` then `agent.chat(...)`),
or a plain `FunctionAgent`, and checks three things: what OpenAI received (our tool
schemas, the tool results), what reached the service, and the answer.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import pytest
from agent_payloads import (
    assert_tools_sent,
    blog_agent,
    no_bugs,
    run_function_agent,
    tool_message,
    tools_of,
)
from toolsets import offered

from toolspecs.agents.testing import FakeOpenAI, last_tool_output

H1_PAPER = "Multi-Electron Production at High Transverse Momenta in ep Collisions at HERA"


def answer_with_tool_output(request) -> str:
    return "Here is what I found:\n" + last_tool_output(request)


def test_blog_snippet_with_arxiv(arxiv, mocked_responses, capsys):
    arguments = {"query": "electron", "sort_by": "newest", "max_results": "1"}
    fake = FakeOpenAI([[("arxiv_query", arguments)], answer_with_tool_output])
    agent = blog_agent([arxiv], fake)

    response = agent.chat("Find the newest paper about electrons")

    assert assert_tools_sent(fake, [arxiv]) == offered(arxiv)  # its default set
    result = tool_message(fake, 1, "call_1_0")["content"]
    assert f"Title: {H1_PAPER}" in result
    assert "arXiv id: hep-ex/0307015v1" in result
    assert str(response) == f"Here is what I found:\n{result}"
    (source,) = response.sources
    assert (source.tool_name, source.is_error) == ("arxiv_query", False)
    sent = parse_qs(urlparse(mocked_responses.calls[0].request.url).query)
    assert sent["search_query"] == ["electron"]
    assert sent["sortBy"] == ["submittedDate"]  # "newest" read as arXiv's "recent"
    assert sent["max_results"] == ["1"]
    out = capsys.readouterr().out
    assert out.startswith(
        "=== Calling Function ===\n"
        f"Calling function: arxiv_query with args: {json.dumps(arguments)}\n"
        f"Got output: Title: {H1_PAPER}\n"
    )
    assert out.endswith("\n========================\n\n")


def test_blog_snippet_with_wolfram_alpha(wolfram, wolfram_alpha, capsys):
    fake = FakeOpenAI(
        [
            [("wolfram_alpha_query", {"query": "(7 * 12 ^ 10) / 321"})],
            lambda request: (
                "It is 144473849856/107, about 1.35 * 10^9."
                if "144473849856/107" in last_tool_output(request)
                else "I could not compute it."
            ),
        ]
    )
    agent = blog_agent([wolfram], fake)

    response = agent.chat("What is (7 * 12 ^ 10) / 321?")

    assert assert_tools_sent(fake, [wolfram]) == offered(wolfram)  # its default set
    assert "Exact result:\n144473849856/107" in tool_message(fake, 1, "call_1_0")["content"]
    assert str(response) == "It is 144473849856/107, about 1.35 * 10^9."
    (request,) = wolfram_alpha.requests
    assert request.params["input"] == "(7 * 12 ^ 10) / 321"
    assert request.app_id == "TEST-APPID"  # sent as "Authorization: Bearer TEST-APPID"
    assert "Calling function: wolfram_alpha_query with args:" in capsys.readouterr().out


@pytest.mark.dates
def test_blog_snippet_with_google_calendar(calendar, google, capsys):
    fake = FakeOpenAI(
        [
            [("get_date", {})],
            [
                (
                    "create_event",
                    {
                        "title": "Tea with Ada",
                        "start_datetime": "2026-11-21 16:00",
                        "attendees": "ada@example.com",  # a string where a list is typed
                    },
                )
            ],
            answer_with_tool_output,
        ]
    )
    agent = blog_agent([calendar], fake)

    response = agent.chat("Put tea with ada@example.com on my calendar, Nov 21 at 4pm")

    assert "create_event" in assert_tools_sent(fake, [calendar])
    assert "America/New_York (UTC-0" in tool_message(fake, 1, "call_1_0")["content"]
    created = tool_message(fake, 2, "call_2_0")["content"]
    assert created.startswith("Event created with id evt0001")
    assert "Saturday 2026-11-21 16:00 -05:00 (America/New_York)" in created
    assert str(response).endswith(created)
    (post,) = [r for r in google.requests if r.method == "POST"]
    assert post.body["start"] == {
        "dateTime": "2026-11-21T16:00:00-05:00",
        "timeZone": "America/New_York",
    }
    assert post.body["attendees"] == [{"email": "ada@example.com"}]
    assert [s.tool_name for s in response.sources] == ["get_date", "create_event"]
    assert capsys.readouterr().out.count("=== Calling Function ===") == 2


def add_charles(request):
    created = last_tool_output(request)
    draft_id = created.split("Draft created with id ")[1].split(" ")[0]
    return [("update_draft", {"draft_id": draft_id, "cc": "charles@example.com"})]


def test_blog_snippet_with_gmail(capsys):
    from toolspecs.loaders.google.testing import sample_mailbox
    from toolspecs.specs.gmail import GmailToolSpec

    gmail = sample_mailbox()
    spec = GmailToolSpec(transport=gmail)
    ada = next(
        m
        for m in gmail.messages
        if gmail.parsed(m).header("message-id") == "<CAplain001@mail.example.com>"
    )
    fake = FakeOpenAI(
        [
            [("search_messages", {"query": "from:ada lunch"})],
            [("create_draft", {"reply_to_message_id": ada, "message": "Yes, 12:30 works."})],
            add_charles,  # the model reads the new draft id from the tool answer
            answer_with_tool_output,
        ]
    )

    def draft_id():
        created = tool_message(fake, 2, "call_2_0")["content"]
        return created.split("Draft created with id ")[1].split(" ")[0]

    agent = blog_agent([spec], fake)
    response = agent.chat("Reply to Ada's lunch mail that 12:30 works, cc Charles")

    names = assert_tools_sent(fake, [spec])
    assert {"search_messages", "create_draft", "update_draft", "send_draft"} <= set(names)
    hits = tool_message(fake, 1, "call_1_0")["content"]
    assert f"[id: {ada} | thread: {ada}]" in hits and "Snippet (quoted mail): «Hi Grace" in hits
    updated = tool_message(fake, 3, "call_3_0")["content"]
    assert updated.startswith(f"Draft updated with id {draft_id()} in thread {ada} (a reply)")
    mime = gmail.draft_mime(draft_id())
    assert (mime["To"], mime["Cc"], mime["Subject"]) == (
        "Ada Lovelace <ada@example.com>", "charles@example.com", "Re: Lunch on Tuesday?",
    )  # fmt: skip
    assert mime.get_content().strip() == "Yes, 12:30 works."  # kept through the update
    assert gmail.sent == []  # drafting only: nothing was sent
    assert str(response).endswith(updated)
    no_bugs(response.sources)
    assert capsys.readouterr().out.count("=== Calling Function ===") == 3


def test_bad_arguments_get_guidance_and_the_model_recovers(calendar, google):
    fake = FakeOpenAI(
        [
            [
                (
                    "create_event",
                    {
                        "title": "Review",
                        "start_datetime": "2026-11-21 16:00",
                        "end_datetime": "2026-11-21 15:00",
                        "attendee": "bob@example.com",
                    },
                )
            ],
            [
                (
                    "create_event",
                    {
                        "title": "Review",
                        "start_datetime": "2026-11-21 15:00",
                        "end_datetime": "2026-11-21 16:00",
                        "attendees": ["bob@example.com"],
                    },
                )
            ],
            answer_with_tool_output,
        ]
    )
    agent = blog_agent([calendar], fake)

    response = agent.chat("Book a review with bob@example.com on Nov 21, 3 to 4pm")

    guidance = tool_message(fake, 1, "call_1_0")["content"]
    assert "create_event was called wrongly: unknown argument 'attendee'" in guidance
    assert "attendees" in guidance  # the fix is named
    first, second = response.sources
    assert first.is_error is True
    assert second.is_error is False
    no_bugs(response.sources)
    (post,) = [
        r for r in google.requests if r.method == "POST"
    ]  # the bad call never reached Google
    assert post.body["attendees"] == [{"email": "bob@example.com"}]
    assert "Event created with id evt0001" in str(response)


async def test_plain_function_agent_with_several_specs(arxiv, wolfram, calendar, google):
    specs = [arxiv, wolfram, calendar]
    fake = FakeOpenAI(
        [
            [  # parallel calls, as OpenAI makes them
                ("arxiv_query", {"query": "electron", "max_results": 1}),
                ("wolfram_alpha_query", {"query": "(7 * 12 ^ 10) / 321"}),
            ],
            [("create_event", {"title": "Read H1 paper", "start_datetime": "2026-11-23 09:00"})],
            answer_with_tool_output,
        ]
    )

    output, results = await run_function_agent(specs, fake, "Find, compute, then plan")

    names = assert_tools_sent(fake, specs)
    assert names == offered(*specs)  # each default set, in order (and its reader)
    assert all(request["stream"] is True for request in fake.requests)
    arxiv_result = tool_message(fake, 1, "call_1_0")["content"]
    wolfram_result = tool_message(fake, 1, "call_1_1")["content"]
    assert "arXiv id: hep-ex/0307015v1" in arxiv_result
    assert "Exact result:\n144473849856/107" in wolfram_result
    parallel, last = results[:2], results[2]  # parallel calls finish in any order
    assert sorted(r.tool_name for r in parallel) == ["arxiv_query", "wolfram_alpha_query"]
    assert last.tool_name == "create_event"
    assert str(output).startswith("Here is what I found:\nEvent created with id evt0001")
    assert google.events["evt0001"]["summary"] == "Read H1 paper"


def test_all_four_specs_in_one_agent(arxiv, wolfram, calendar, google, capsys):
    from toolspecs.loaders.google.testing import FakeGmail
    from toolspecs.specs.gmail import GmailToolSpec

    gmail = FakeGmail()
    # Gmail and Calendar both have LlamaHub's load_data: one of them takes a prefix.
    specs = [arxiv, wolfram, calendar, (GmailToolSpec(transport=gmail), "gmail_")]
    names = [t.metadata.name for t in tools_of(specs)]
    assert {
        "load_data",
        "read_stored_events",
        "gmail_load_data",
        "gmail_read_stored_emails",
    } <= set(names)
    fake = FakeOpenAI(
        [
            [
                ("arxiv_query", {"query": "electron", "max_results": 1}),
                ("wolfram_alpha_query", {"query": "(7 * 12 ^ 10) / 321"}),
            ],
            [
                ("create_event", {"title": "H1 reading", "start_datetime": "2026-11-23 09:00"}),
                (
                    "gmail_create_draft",
                    {"to": "ada@example.com", "subject": "H1 paper", "message": "Read it Monday."},
                ),
            ],
            "Done: the event and the draft are ready.",
        ]
    )
    agent = blog_agent(specs, fake)

    response = agent.chat("Find the paper, compute, book a reading, and draft a note to Ada")

    assert len(assert_tools_sent(fake, specs)) == len(names)
    assert "arXiv id: hep-ex/0307015v1" in tool_message(fake, 1, "call_1_0")["content"]
    assert "144473849856/107" in tool_message(fake, 1, "call_1_1")["content"]
    assert "Event created with id evt0001" in tool_message(fake, 2, "call_2_0")["content"]
    draft_answer = tool_message(fake, 2, "call_2_1")["content"]
    assert "Draft created with id " in draft_answer and "gmail_send_draft(draft_id=" in draft_answer
    assert gmail.last_draft_mime()["To"] == "ada@example.com"
    assert google.events["evt0001"]["summary"] == "H1 reading"
    no_bugs(response.sources)
    assert str(response) == "Done: the event and the draft are ready."
    assert capsys.readouterr().out.count("=== Calling Function ===") == 4
