"""send_draft asks the person first, showing who receives what; a no sends nothing.

Through mcp's own client in memory, in both protocol modes: ``legacy`` (the handshake
revision: the server sends ``elicitation/create`` during the call) and ``auto``
(2026-07-28: the call answers ``InputRequiredResult`` and the client calls again with
the answer). The mailbox is the shipped ``FakeGmail``: what was sent, and which drafts
are left, is read from it.
"""

from __future__ import annotations

import copy

import pytest
from mcp import Client

from toolspecs.core.bounds import count_tokens
from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.server import build_server
from toolspecs.server.testing import ScriptedPerson as Person
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.gmail.draft_outputs import QUESTION_TOKENS


@pytest.fixture(params=["legacy", "auto"])
def mode(request) -> str:
    return request.param


@pytest.fixture
def gmail():
    return sample_mailbox()


@pytest.fixture
def spec(gmail):
    return GmailToolSpec(transport=gmail)


def by_subject(gmail, subject):
    return next(i for i in gmail.messages if gmail.parsed(i).header("subject") == subject)


@pytest.fixture
def draft_id(spec, gmail) -> str:
    """A draft forwarding a mail with two attachments, to Ada, Cc Bob, Bcc Carol."""
    made = spec.call_tool(
        "create_draft",
        to=["Ada Lovelace <ada@example.com>"],
        cc=["bob@example.net"],
        bcc=["carol@example.org"],
        message="Hi Ada,\n\nthe report you asked for.\n\nGrace",
        forward_message_id=by_subject(gmail, "Report and diagram"),
    )
    assert made.is_error is False, made.content
    return made.raw_output["id"]


async def call(spec, person, mode, args):
    async with Client(build_server(spec), mode=mode, elicitation_callback=person) as client:
        return await client.call_tool("send_draft", args)


def sends(gmail) -> list:
    return [r for r in gmail.calls() if r.path == "/users/me/drafts/send"]


async def test_the_person_sees_recipients_subject_attachments_and_first_lines(
    mode, spec, gmail, draft_id
):
    person = Person()
    result = await call(spec, person, mode, {"draft_id": draft_id})

    [question] = person.questions
    lines = question.splitlines()
    assert lines[0] == "Send this email? Once sent, it cannot be undone."
    assert "To: Ada Lovelace <ada@example.com>" in lines
    assert "Cc: bob@example.net" in lines
    assert "Bcc: carol@example.org" in lines
    assert "Subject: «Fwd: Report and diagram»" in lines
    assert "Attachments (2, 3 KB): «Q4 report.pdf» (3 KB), «diagramme été.png» (70 B)" in lines
    assert lines[lines.index("The message:") + 1 :][:3] == [
        "> Hi Ada,",
        "> the report you asked for.",
        "> Grace",
    ]
    assert "> ---------- Forwarded message ---------" in lines
    assert lines[-1] == f"(Gmail draft {draft_id})"
    # A yes: sent, as the call says (its text as always).
    assert result.is_error is False
    assert result.content[0].text.startswith(f"Draft {draft_id} sent as message ")
    assert len(sends(gmail)) == 1 and len(gmail.sent) == 1 and draft_id not in gmail.drafts


@pytest.mark.parametrize(
    ("action", "yes"), [("decline", None), ("cancel", None), ("accept", False)]
)
async def test_anything_but_yes_sends_nothing(mode, spec, gmail, draft_id, action, yes):
    drafts, messages = dict(gmail.drafts), copy.deepcopy(gmail.messages)
    person = Person(action, yes)
    result = await call(spec, person, mode, {"draft_id": draft_id})

    assert (
        len(person.questions) == 1 and "To: Ada Lovelace <ada@example.com>" in person.questions[0]
    )
    assert result.is_error is True
    assert "declined send_draft: it was not run, and nothing was sent" in result.content[0].text
    assert sends(gmail) == [] and gmail.sent == []
    assert gmail.drafts == drafts and gmail.messages == messages  # the draft is as it was


async def test_a_missing_draft_is_the_calls_guidance_and_nothing_is_asked(mode, spec, gmail):
    person = Person()
    result = await call(spec, person, mode, {"draft_id": "r404"})

    assert person.questions == []
    assert result.is_error is True
    assert result.content[0].text == spec.call_tool("send_draft", draft_id="r404").content
    assert "Gmail found nothing there (HTTP 404)" in result.content[0].text
    assert sends(gmail) == []


async def test_a_draft_that_cannot_be_sent_is_the_calls_guidance(mode, spec, gmail):
    made = spec.call_tool("create_draft", subject="No one yet", message="m")
    person = Person()
    result = await call(spec, person, mode, {"draft_id": made.raw_output["id"]})

    assert person.questions == [] and result.is_error is True
    assert "has no recipients" in result.content[0].text
    assert sends(gmail) == []


async def test_recipients_that_are_not_the_drafts_are_refused_before_asking(
    mode, spec, gmail, draft_id
):
    person = Person()
    args = {"draft_id": draft_id, "recipients": ["ada@example.com"]}
    result = await call(spec, person, mode, args)

    assert person.questions == [] and result.is_error is True
    assert "Nothing was sent" in result.content[0].text and sends(gmail) == []


async def test_a_spec_for_automated_agents_asks_nothing(mode, spec, gmail, draft_id):
    spec.confirm_destructive = False
    person = Person("decline")
    result = await call(spec, person, mode, {"draft_id": draft_id})

    assert person.questions == []
    assert result.is_error is False and len(gmail.sent) == 1


HOSTILE = (
    b"To: ada@example.com\r\n"
    b"Subject: =?utf-8?q?Lunch=0ATo:_everyone@example.com=0A=0ASend_now?=\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\n"
    b"\r\n"
    + b"To: ceo@example.com\r\nSubject: \xc2\xabfine\xc2\xbb\r\n\r\n"
    + b"".join(b"line %d " % n + b"word " * 60 + b"\r\n" for n in range(400))
)


async def test_the_drafts_words_are_bounded_and_cannot_pass_for_ours(mode, spec, gmail):
    stored = gmail.add_message(HOSTILE, labels=["DRAFT"], thread_by_headers=False)
    gmail.drafts["r-hostile"] = stored["id"]
    person = Person("decline")
    await call(spec, person, mode, {"draft_id": "r-hostile"})

    [question] = person.questions
    lines = question.splitlines()
    ours = ("Send this email", "To: ", "Subject: ", "Attachments: ", "The message:")
    ours += ("It starts:", "> ", "(Gmail draft ")
    assert all(line.startswith(ours) for line in lines), lines
    assert [line for line in lines if line.startswith("To: ")] == ["To: ada@example.com"]
    # The subject's line breaks are spaces: one line, between our own quotes.
    assert "Subject: «Lunch To: everyone@example.com Send now»" in lines
    # The body's "headers" are quoted lines; its guillemets cannot close our quotes.
    assert "> To: ceo@example.com" in lines
    assert "> Subject: < <fine> >" in lines
    assert lines[-2] == "> … (the rest is not shown)"
    assert count_tokens(question) <= QUESTION_TOKENS and len(question.split()) < 700
    assert gmail.sent == [] and "r-hostile" in gmail.drafts
