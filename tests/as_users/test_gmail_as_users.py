"""Every Gmail tool, for every way of building the spec, over the wire (issue 37).

Each case builds ``GmailToolSpec`` as one kind of user does (``as_users_modes``), offers
every tool (``allow_modify=True``, an ``attachment_dir``), calls one tool through
``tool.call`` with what an agent sends (several recipients, ids from the mailbox, a
thread, an attachment) and checks the answer against the fake mailbox: ids, subjects,
what a draft holds, what was sent, the labels changed. Searches and threads of several
mails run googleapiclient's batch code; ``creds_refused`` meets a 401 on its first
request and renews the token.

Where a way of signing in cannot do a tool, the expected answer is guidance that asks
the person: a service account acting as itself has no mailbox; LlamaHub's ``token.json``
was granted ``gmail.compose`` but not ``gmail.readonly``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from as_users_calls import Calls, asks_the_user, built, tallied
from as_users_modes import MODES, Setting

from toolspecs.loaders.google.testing.gmail import long_message
from toolspecs.specs.gmail import GmailToolSpec

ADA = "<CAplain001@mail.example.com>"  # "Lunch on Tuesday?"
REPORT = "<attach-0001@mail.example.com>"  # "Report and diagram", two attachments
THREAD = "<thread-start@example.org>"  # "Compiler review", two mails


def gmail_spec(setting: Setting, mode: str) -> GmailToolSpec:
    outbox = setting.folder / "outbox"
    outbox.mkdir(exist_ok=True)
    (outbox / "agenda.txt").write_text("Agenda: lunch, then the compiler review.\n")
    return built(setting, mode, GmailToolSpec, allow_modify=True, attachment_dir=str(outbox))


def message_id(s: Setting, header: str) -> str:
    gmail = s.server.gmail
    return next(m for m in gmail.messages if gmail.mime(m)["Message-ID"] == header)


def draft(run: Calls, s: Setting) -> str:
    """A draft made through create_draft (two recipients, a file attached): its id."""
    text = run.ok(
        "create_draft",
        to=["ada@example.com", "alan@example.com"],
        subject="Lunch",
        message="Tuesday works for me.",
        attachments=["agenda.txt"],
    )
    (draft_id,) = s.server.gmail.drafts
    assert text.startswith("Draft created") and f"with id {draft_id}:" in text
    return draft_id


# -- the cases ---------------------------------------------------------------------------


def load_data(run: Calls, s: Setting) -> None:
    text = run.ok("load_data")
    for subject in ("Lunch on Tuesday?", "Report and diagram", "Re: Compiler review"):
        assert f"Subject: {subject}" in text
    assert f"Message id: {message_id(s, ADA)}" in text


def search_messages(run: Calls, s: Setting) -> None:
    text = run.ok("search_messages", query="from:ada@example.com")
    assert len(text.split("\n\n")) == 3
    for header in (ADA, REPORT, "<thread-reply@example.com>"):
        assert f"[id: {message_id(s, header)} " in text
    batches = [r for r in s.server.gmail.requests if r.parts]
    assert batches and len(batches[-1].parts) == 3  # the three gets, as one batch


def get_message(run: Calls, s: Setting) -> None:
    report = message_id(s, REPORT)
    text = run.ok("get_message", message_id=report)
    assert f"Message id: {report}" in text and "Subject: Report and diagram" in text
    assert "Q4 report.pdf (application/pdf, 3 KB) [attachment_id: 1]" in text


def read_attachment(run: Calls, s: Setting) -> None:
    report = message_id(s, REPORT)
    text = run.ok("read_attachment", message_id=report, attachment_id="1")
    assert "Q4 report.pdf" in text, text


def list_drafts(run: Calls, s: Setting) -> None:
    draft_id = draft(run, s)
    text = run.ok("list_drafts")
    assert f"Draft id: {draft_id}" in text and "To: ada@example.com, alan@example.com" in text


def create_draft(run: Calls, s: Setting) -> None:
    draft(run, s)
    mime = s.server.gmail.last_draft_mime()
    assert mime["To"] == "ada@example.com, alan@example.com" and mime["Subject"] == "Lunch"
    names = [part.get_filename() for part in mime.iter_attachments()]
    assert names == ["agenda.txt"]


def reply_draft(run: Calls, s: Setting) -> None:
    ada = message_id(s, ADA)
    text = run.ok("create_draft", message="Yes, 12:30 is fine.", reply_to_message_id=ada)
    mime = s.server.gmail.last_draft_mime()
    assert mime["In-Reply-To"] == ADA and mime["To"].endswith("<ada@example.com>")
    assert "Re: Lunch on Tuesday?" in text


def update_draft(run: Calls, s: Setting) -> None:
    draft_id = draft(run, s)
    text = run.ok("update_draft", draft_id=draft_id, subject="Lunch moved")
    assert text.startswith("Draft updated") and f"with id {draft_id}:" in text
    mime = s.server.gmail.draft_mime(draft_id)
    assert mime["Subject"] == "Lunch moved"
    assert mime["To"] == "ada@example.com, alan@example.com"  # kept, as LlamaHub's did
    assert "Tuesday works for me." in mime.get_body(("plain",)).get_content()


def get_draft(run: Calls, s: Setting) -> None:
    draft_id = draft(run, s)
    text = run.ok("get_draft", draft_id=draft_id)
    assert f"Draft id: {draft_id}" in text and "Subject: Lunch" in text
    assert "Tuesday works for me." in text


def send_draft(run: Calls, s: Setting) -> None:
    draft_id = draft(run, s)
    text = run.ok("send_draft", draft_id=draft_id)
    (sent,) = s.server.gmail.sent
    assert text.startswith(f"Draft {draft_id} sent") and f"as message {sent} " in text
    assert s.server.gmail.mime(sent)["To"] == "ada@example.com, alan@example.com"
    assert not s.server.gmail.drafts


def get_thread(run: Calls, s: Setting) -> None:
    first = message_id(s, THREAD)
    thread = s.server.gmail.messages[first]["threadId"]
    text = run.ok("get_thread", thread_id=thread)
    assert f"Thread {thread}: 2 message(s)" in text
    assert (
        f"[id: {first}]" in text and f"[id: {message_id(s, '<thread-reply@example.com>')}]" in text
    )


def list_labels(run: Calls, s: Setting) -> None:
    text = run.ok("list_labels")
    assert "- Receipts [Label_1]" in text and "- Projects/Engine [Label_2]" in text


def modify_labels(run: Calls, s: Setting) -> None:
    ids = [message_id(s, ADA), message_id(s, REPORT)]
    text = run.ok("modify_labels", message_ids=ids, add=["Receipts"], remove=["UNREAD"])
    assert "2 message(s)" in text and "Receipts" in text
    for one in ids:
        labels = s.server.gmail.messages[one]["labelIds"]
        assert "Label_1" in labels and "UNREAD" not in labels


def read_stored_emails(run: Calls, s: Setting) -> None:
    for index in range(3):  # three long reports: too long to show, so load_data stores them
        s.server.gmail.add_message(long_message(index))
    preview = run.ok("load_data")
    assert "read_stored_emails" in preview, preview[:500]
    text = run.ok("read_stored_emails", query="engine ran 14 cycles")
    assert "Weekly report 2" in text or "report-2" in text or "14 cycles" in text, text


CASES: dict[str, Callable[[Calls, Setting], None]] = {
    "load_data": load_data,
    "search_messages": search_messages,
    "get_message": get_message,
    "read_attachment": read_attachment,
    "list_drafts": list_drafts,
    "create_draft": create_draft,
    "create_draft_reply": reply_draft,
    "update_draft": update_draft,
    "get_draft": get_draft,
    "send_draft": send_draft,
    "get_thread": get_thread,
    "list_labels": list_labels,
    "modify_labels": modify_labels,
    "read_stored_emails": read_stored_emails,
}


def cases() -> list[Any]:
    params = []
    for mode in MODES:
        if mode in ("service_account", "llamahub_token_json"):
            continue  # they cannot read mail: tested below
        for case in CASES:
            params.append(pytest.param(mode, case, id=f"{mode}-{case}"))
    return params


@pytest.mark.parametrize(("mode", "case"), cases())
def test_every_gmail_tool(setting: Setting, mode: str, case: str, request) -> None:
    run = Calls(gmail_spec(setting, mode), f"gmail/{mode}")
    tallied(request, f"gmail/{mode} {case}", lambda: CASES[case](run, setting))


# -- a service account acting as itself: no mailbox --------------------------------------

# Each tool with arguments an agent would send (ids as the fake mailbox has them).
ALONE: dict[str, Callable[[Setting], dict[str, Any]]] = {
    "load_data": lambda s: {},
    "search_messages": lambda s: {"query": "from:ada@example.com"},
    "get_message": lambda s: {"message_id": message_id(s, ADA)},
    "read_attachment": lambda s: {"message_id": message_id(s, REPORT), "attachment_id": "1"},
    "list_drafts": lambda s: {},
    "create_draft": lambda s: {"to": ["ada@example.com"], "subject": "Hi", "message": "Hello"},
    "update_draft": lambda s: {"draft_id": "r123", "subject": "Hi again"},
    "get_draft": lambda s: {"draft_id": "r123"},
    "send_draft": lambda s: {"draft_id": "r123"},
    "get_thread": lambda s: {"thread_id": message_id(s, THREAD)},
    "list_labels": lambda s: {},
    "modify_labels": lambda s: {"message_ids": [message_id(s, ADA)], "add": ["Receipts"]},
}


@pytest.mark.parametrize("tool", list(ALONE))
def test_a_service_account_alone_is_told_to_ask_the_user(setting: Setting, tool: str, request):
    run = Calls(gmail_spec(setting, "service_account"), "gmail/service_account")
    out = run(tool, **ALONE[tool](setting))

    def check() -> None:
        assert out.is_error is True, out.content
        assert asks_the_user(str(out.content)), out.content
        assert not setting.server.gmail.drafts and not setting.server.gmail.sent

    tallied(request, f"gmail/service_account {tool}", check)


# -- LlamaHub's token.json, granted calendar and gmail.compose: no gmail.readonly ---------


@pytest.mark.parametrize("tool", list(ALONE))
def test_llamahub_token_json_without_gmail_readonly_asks_the_user(setting, tool, request):
    # Every Gmail tool reads mail (a draft's recipients, a reply's thread), so each needs
    # gmail.readonly: refused before any Gmail request, with the person's next step.
    run = Calls(gmail_spec(setting, "llamahub_token_json"), "gmail/llamahub_token_json")
    out = run(tool, **ALONE[tool](setting))

    def check() -> None:
        assert out.is_error is True, out.content
        lacking = "gmail.modify" if tool == "modify_labels" else "gmail.readonly"
        assert asks_the_user(str(out.content)), out.content
        assert f"lacks the scope {lacking}" in str(out.content), out.content
        assert not [r for r in setting.server.gmail.requests]

    tallied(request, f"gmail/llamahub_token_json {tool}", check)
