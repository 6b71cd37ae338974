"""Drafts: what create/update/get/send_draft write to Gmail, parsed back from the raw MIME
the fake received (bodies checked against the bundled gmail.v1 discovery document)."""

from __future__ import annotations

import base64
from email import message_from_bytes, policy

import pytest

from toolspecs.core import AskUser, FixArguments
from toolspecs.loaders.google.testing import SchemaError
from toolspecs.specs.gmail import GmailToolSpec


def draft_requests(gmail, method="POST"):
    return [r for r in gmail.requests if r.method == method and r.path == "/users/me/drafts"]


def sent_mime(request):
    raw = request.body["message"]["raw"]
    return message_from_bytes(base64.urlsafe_b64decode(raw), policy=policy.default)


# -- LlamaHub usage, unchanged ---------------------------------------------------------


def test_llamahub_usage_works_unchanged(spec, gmail):
    names = [t.metadata.name for t in spec.to_tool_list()]
    for llamahub_name in (
        "load_data", "search_messages", "create_draft", "update_draft", "get_draft", "send_draft",
    ):  # fmt: skip
        assert llamahub_name in names
    docs = spec.load_data()
    assert len(docs) == 9 and docs[0].metadata["id"]
    hits = spec.search_messages("from:ada", 2)
    assert len(hits) == 2 and hits[0].metadata["threadId"]
    draft = spec.create_draft(["ada@example.com"], "Lunch", "Tuesday works.")
    draft_id = draft["id"]  # LlamaHub returned the API dict; indexing it still works
    assert draft["message"]["id"] in gmail.messages
    updated = spec.update_draft(None, "Lunch on Tuesday", None, draft_id)
    assert updated["id"] == draft_id
    assert spec.get_draft(draft_id)["id"] == draft_id
    sent = spec.send_draft(draft_id)
    assert sent["labelIds"] == ["SENT"]
    assert gmail.mime(sent["id"]).get_content().strip() == "Tuesday works."


def test_the_token_is_llamahubs_with_a_file_per_scope_set_beside_it():
    assert GmailToolSpec().auth.token_path == "token.json"
    assert GmailToolSpec().auth.own_token_path == "token.gmail.json"


# -- LlamaHub's faults, each fixed --------------------------------------------------------


def test_to_none_writes_no_to_header(tools, gmail):
    out = tools["create_draft"].call(subject="Notes", message="For later.")
    assert out.is_error is False
    mime = gmail.last_draft_mime()
    assert "To" not in mime and "None" not in mime.as_string()
    assert "to nobody yet" in out.content


def test_update_with_only_a_subject_keeps_body_recipients_and_thread(tools, gmail, ids):
    created = tools["create_draft"].call(
        cc="charles@example.com", bcc=["boss@example.com"], message="Happy to help.\nAda",
        html="<p>Happy to <b>help</b>.</p><p>Ada</p>", reply_to_message_id=ids["thread_1"],
    )  # fmt: skip
    draft_id = created.raw_output["id"]
    out = tools["update_draft"].call(draft_id=draft_id, subject="Re: Compiler review")
    assert out.is_error is False, out.content
    update = [r for r in gmail.requests if r.method == "PUT"][-1]
    assert update.body["message"]["threadId"] == ids["thread_1"]
    mime = gmail.draft_mime(draft_id)
    assert mime["To"] == "Grace Hopper <grace@example.org>"
    assert mime["Cc"] == "charles@example.com" and mime["Bcc"] == "boss@example.com"
    assert mime["In-Reply-To"] == "<thread-start@example.org>"
    assert mime.get_body(("plain",)).get_content().strip() == "Happy to help.\nAda"
    assert "<b>help</b>" in mime.get_body(("html",)).get_content()
    assert gmail.messages[gmail.drafts[draft_id]]["threadId"] == ids["thread_1"]


def test_update_never_drops_an_argument_it_cannot_take(tools, gmail, ids):
    # in_reply_to is create_draft's alias for reply_to_message_id; update_draft has no such
    # parameter, so the reply must be named as unusable, not silently dropped.
    draft_id = tools["create_draft"].call(to="ada@example.com", message="Hi").raw_output["id"]
    before = [r for r in gmail.requests if r.method == "PUT"]
    out = tools["update_draft"].call(
        draft_id=draft_id, subject="Re: Compiler review", in_reply_to=ids["thread_1"]
    )
    assert out.is_error is True
    assert "unknown argument 'in_reply_to'" in out.content
    assert "Draft updated" not in out.content
    assert [r for r in gmail.requests if r.method == "PUT"] == before


def test_drafts_come_back_as_summaries_not_api_dicts(tools, gmail):
    draft_id = (
        tools["create_draft"]
        .call(to="ada@example.com", subject="Hi", message="Hello")
        .raw_output["id"]
    )
    out = tools["get_draft"].call(draft_id=draft_id)
    assert out.content.startswith(f"Draft id: {draft_id} (message ")
    assert "To: ada@example.com\nSubject: Hi\n" in out.content
    assert "Hello" in out.content
    for api_debris in ("'payload'", "'raw'", "labelIds", "{"):
        assert api_debris not in out.content


# -- recipients ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "to",
    [
        ["ada@example.com", "Grace Hopper <grace@example.org>"],
        "ada@example.com, Grace Hopper <grace@example.org>",
        "ada@example.com; Grace Hopper <grace@example.org>",
        '["ada@example.com", "Grace Hopper <grace@example.org>"]',
    ],
)
def test_recipients_in_every_form(tools, gmail, to):
    out = tools["create_draft"].call(to=to, subject="x", message="y")
    assert out.is_error is False, out.content
    assert gmail.last_draft_mime()["To"].addresses[1].display_name == "Grace Hopper"
    assert [a.addr_spec for a in gmail.last_draft_mime()["To"].addresses] == [
        "ada@example.com", "grace@example.org",
    ]  # fmt: skip


def test_a_single_address_string(tools, gmail):
    tools["create_draft"].call(to="ada@example.com", subject="x", message="y")
    assert gmail.last_draft_mime()["To"] == "ada@example.com"


def test_no_recipient_is_lost_after_a_non_ascii_name(tools, gmail):
    # CPython's header folding drops "bob@x.org" here if the message is built naively.
    tools["create_draft"].call(
        to=['"Lovelace, Ada" <ada@example.com>', "René <rene@example.fr>", "bob@x.org"],
        subject="Réunion — plan", message="Bonjour",
    )  # fmt: skip
    mime = gmail.last_draft_mime()
    assert [(a.display_name, a.addr_spec) for a in mime["To"].addresses] == [
        ("Lovelace, Ada", "ada@example.com"), ("René", "rene@example.fr"), ("", "bob@x.org"),
    ]  # fmt: skip
    assert mime["Subject"] == "Réunion — plan"


def test_invalid_addresses_are_named_and_nothing_is_saved(tools, gmail):
    out = tools["create_draft"].call(
        to=["ada@example", "ok@example.com", "bob"], cc="x@", message="m"
    )
    assert out.is_error is True
    assert isinstance(out.exception, FixArguments)
    assert "'ada@example'" in out.content and "'bob'" in out.content
    assert "ok@example.com" not in out.content.split("Send")[0]
    assert draft_requests(gmail) == []


def test_draft_aliases_llms_use(tools, gmail):
    out = tools["create_draft"].call(recipients="ada@example.com", title="T", body="B")
    assert out.is_error is False, out.content
    mime = gmail.last_draft_mime()
    assert (mime["To"], mime["Subject"], mime.get_content().strip()) == (
        "ada@example.com",
        "T",
        "B",
    )


# -- bodies ---------------------------------------------------------------------------------


def test_html_goes_as_multipart_alternative_with_a_plain_part(tools, gmail):
    tools["create_draft"].call(
        to="ada@example.com", subject="Menu",
        html="<h1>Menu</h1><ul><li>Soup</li><li>Bread</li></ul>",
    )  # fmt: skip
    mime = gmail.last_draft_mime()
    assert mime.get_content_type() == "multipart/alternative"
    assert mime.get_body(("plain",)).get_content().strip() == "Menu\n\n- Soup\n- Bread"
    assert "<li>Soup</li>" in mime.get_body(("html",)).get_content()


def test_a_new_text_body_replaces_a_stale_html_part(tools, gmail):
    draft_id = (
        tools["create_draft"]
        .call(to="a@example.com", message="old", html="<p>old</p>")
        .raw_output["id"]
    )
    tools["update_draft"].call(draft_id=draft_id, message="new text")
    mime = gmail.draft_mime(draft_id)
    assert mime.get_content_type() == "text/plain"
    assert mime.get_content().strip() == "new text"


def test_non_ascii_bodies_round_trip(tools, gmail):
    tools["create_draft"].call(to="r@example.fr", message="À bientôt, café ☕\n日本語")
    assert gmail.last_draft_mime().get_content().strip() == "À bientôt, café ☕\n日本語"


# -- replies ----------------------------------------------------------------------------------


def test_reply_mode_threads_the_draft(tools, gmail, ids):
    out = tools["create_draft"].call(reply_to_message_id=ids["thread_2"], message="Thanks, Ada!")
    assert out.is_error is False, out.content
    request = draft_requests(gmail)[-1]
    assert request.body["message"]["threadId"] == ids["thread_1"]
    mime = sent_mime(request)
    assert mime["Subject"] == "Re: Compiler review"  # not "Re: Re:"
    assert mime["In-Reply-To"] == "<thread-reply@example.com>"
    assert mime["References"] == "<thread-start@example.org> <thread-reply@example.com>"
    assert mime["To"] == "Ada Lovelace <ada@example.com>"
    # Gmail kept it in the thread (its rule: reply headers and the same subject).
    assert f"in thread {ids['thread_1']} (a reply)" in out.content
    assert gmail.messages[gmail.drafts[out.raw_output["id"]]]["threadId"] == ids["thread_1"]


def test_reply_with_a_new_subject_is_warned(tools, gmail, ids):
    out = tools["create_draft"].call(reply_to_message_id=ids["plain"], subject="Other", message="x")
    assert "may show it as a new conversation" in out.content
    assert "(a reply)" not in out.content


def test_reply_to_an_unknown_message_says_where_ids_come_from(tools):
    out = tools["create_draft"].call(reply_to_message_id="0000", message="x")
    assert out.is_error is True
    assert "HTTP 404" in out.content and "search_messages" in out.content


# -- update, get, list, send --------------------------------------------------------------


def test_update_without_a_draft_id_is_guidance(tools, gmail):
    out = tools["update_draft"].call(subject="x")
    assert out.is_error is True
    assert "draft_id" in out.content and "list_drafts" in out.content
    assert [r for r in gmail.requests if r.method == "PUT"] == []


def test_update_with_nothing_to_change(tools):
    draft_id = tools["create_draft"].call(to="a@example.com", message="m").raw_output["id"]
    out = tools["update_draft"].call(draft_id=draft_id)
    assert out.is_error is True and "nothing to change" in out.content


def test_update_can_clear_cc(tools, gmail):
    draft_id = (
        tools["create_draft"]
        .call(to="a@example.com", cc="c@example.com", message="m")
        .raw_output["id"]
    )
    tools["update_draft"].call(draft_id=draft_id, cc=[])
    assert "Cc" not in gmail.draft_mime(draft_id)


def test_mutations_return_the_id_and_the_next_step(tools):
    out = tools["create_draft"].call(to="a@example.com", subject="S", message="m")
    draft_id = out.raw_output["id"]
    assert out.content.startswith(
        f"Draft created with id {draft_id}: to a@example.com; subject: S."
    )
    assert f"send_draft(draft_id='{draft_id}')" in out.content
    assert f"update_draft(draft_id='{draft_id}', ...)" in out.content


def test_the_reply_says_which_field_each_recipient_is_in(tools):
    # An agent that adds a Cc reads it back as a Cc; a Bcc is never said as a "to".
    made = tools["create_draft"].call(to="ada@example.com", subject="S", message="m")
    draft_id = made.raw_output["id"]
    out = tools["update_draft"].call(
        draft_id=draft_id, cc=["charles@example.com"], bcc=["alan@example.com"]
    )
    assert (
        "to ada@example.com; cc charles@example.com; bcc alan@example.com; subject: S."
        in out.content
    )
    assert out.structured["cc"] == [{"email": "charles@example.com"}]


def test_list_drafts_shows_ids_and_first_lines(tools):
    first = tools["create_draft"].call(
        to="a@example.com", subject="One", message="Line 1\nLine 2\nLine 3"
    )
    tools["create_draft"].call(subject="Two", message="Short")
    out = tools["list_drafts"].call().content
    assert out.startswith("2 draft(s), newest first:")
    assert out.index("Subject: Two") < out.index("Subject: One")
    assert f"Draft id: {first.raw_output['id']}" in out
    assert "Starts: Line 1 / Line 2 ..." in out
    assert "Line 3" not in out


def test_a_short_draft_with_blank_lines_is_not_marked_as_cut(tools):
    tools["create_draft"].call(to="a@example.com", message="Hi Ada,\n\nSee you.\n")
    assert "Starts: Hi Ada, / See you.\n" in tools["list_drafts"].call().content + "\n"


def test_no_drafts(tools):
    assert tools["list_drafts"].call().content == "There are no drafts. create_draft makes one."


def test_send(tools, gmail):
    draft_id = (
        tools["create_draft"].call(to="ada@example.com", subject="Go", message="m").raw_output["id"]
    )
    out = tools["send_draft"].call(draft_id=draft_id)
    assert out.is_error is False
    assert out.content.startswith(f"Draft {draft_id} sent as message ")
    assert gmail.sent and draft_id not in gmail.drafts
    assert [r.body for r in gmail.requests if r.path == "/users/me/drafts/send"] == [
        {"id": draft_id}
    ]


def test_send_without_recipients_is_guidance_before_gmail(tools, gmail):
    draft_id = tools["create_draft"].call(subject="Go", message="m").raw_output["id"]
    out = tools["send_draft"].call(draft_id=draft_id)
    assert out.is_error is True and "has no recipients" in out.content
    assert gmail.sent == []


def test_sending_can_be_turned_off(gmail):
    spec = GmailToolSpec(transport=gmail, allow_send=False)
    names = [t.metadata.name for t in spec.to_tool_list()]
    assert "send_draft" not in names and "create_draft" in names
    # A filter over the marks: sending reaches other people; drafts stay in the mailbox.
    send = GmailToolSpec(transport=gmail).to_tool_list()[-2]  # the reader comes last
    assert send.metadata.name == "send_draft" and send.marks.open_world
    out = spec.call_tool("create_draft", to="ada@example.com", message="m")
    assert "send_draft" not in out.content and "the user sends it from Gmail" in out.content
    with pytest.raises(AskUser, match="allow_send=False"):
        spec.send_draft(out.raw_output["id"])
    assert gmail.sent == []


def test_unknown_draft_id(tools):
    out = tools["get_draft"].call(draft_id="r-404")
    assert out.is_error is True
    assert "HTTP 404" in out.content and "list_drafts" in out.content


# -- the fake checks request bodies against gmail.v1 -------------------------------------


def test_the_fake_rejects_a_body_gmail_would_reject(spec):
    bad = {"message": {"raw": "ok", "threadID": "t"}}  # threadID: not a Message field
    with pytest.raises(SchemaError, match="unknown field 'threadID'"):
        spec.service.users().drafts().create(userId="me", body=bad).execute()


@pytest.mark.parametrize("brk", ["\r\n", "\n", "\r", "\u2028"])
def test_a_line_break_in_a_header_value_never_starts_a_new_header(tools, gmail, brk):
    out = tools["create_draft"].call(
        to="ada@example.com", subject=f"x{brk}Bcc: evil@example.com", message="Hi"
    )
    assert out.is_error is False, out.content
    raw = base64.urlsafe_b64decode(draft_requests(gmail)[-1].body["message"]["raw"])
    head = raw.split(b"\n\n", 1)[0]
    assert not [line for line in head.splitlines() if line.lower().startswith(b"bcc")]
    mime = sent_mime(draft_requests(gmail)[-1])
    assert mime["Bcc"] is None
    assert str(mime["Subject"]) == "x Bcc: evil@example.com"  # kept, on its own line


def test_a_line_break_in_a_display_name_stays_in_the_name(tools, gmail):
    out = tools["create_draft"].call(
        to='"Ada\\r\\nBcc: evil@example.com" <ada@example.com>', message="Hi"
    )
    assert out.is_error is False, out.content
    mime = sent_mime(draft_requests(gmail)[-1])
    assert mime["Bcc"] is None
    assert mime["To"].addresses[0].addr_spec == "ada@example.com"


# -- update_draft edits the stored MIME: nothing it was not asked to change is lost --------


def stored_draft(spec, gmail):
    """A draft written by a mail program: an attachment, Reply-To, a reply's headers."""
    from email.message import EmailMessage

    mail = EmailMessage()
    mail["From"] = "grace@example.org"
    mail["To"] = "Ada Lovelace <ada@example.com>"
    mail["Reply-To"] = "Team <team@example.org>"
    mail["Subject"] = "Re: Report and diagram"
    mail["In-Reply-To"] = "<attach-0001@mail.example.com>"
    mail["References"] = "<attach-0001@mail.example.com>"
    mail["X-Priority"] = "1"
    mail.set_content("Thanks, here is my version.\nGrace")
    mail.add_attachment(
        b"%PDF-1.4 grace's version", maintype="application", subtype="pdf", filename="v2.pdf"
    )
    raw = base64.urlsafe_b64encode(mail.as_bytes()).decode()
    created = spec.service.users().drafts().create(userId="me", body={"message": {"raw": raw}})
    return created.execute()["id"]


@pytest.mark.parametrize(
    "change",
    [
        {"message": "A new body.\nGrace"},
        {"subject": "Re: Report and diagram, v2"},
        {"to": ["charles@example.com"]},
        {"cc": ["charles@example.com"], "html": "<p>A <b>new</b> body.</p>"},
    ],
    ids=["body", "subject", "to", "cc-and-html"],
)
def test_update_keeps_attachments_and_every_header_not_changed(spec, tools, gmail, change):
    draft_id = stored_draft(spec, gmail)
    before = gmail.draft_mime(draft_id)
    out = tools["update_draft"].call(draft_id=draft_id, **change)
    assert out.is_error is False, out.content
    after = gmail.draft_mime(draft_id)
    [attachment] = list(after.iter_attachments())
    assert attachment.get_filename() == "v2.pdf"
    assert attachment.get_content() == b"%PDF-1.4 grace's version"
    for name in ("Reply-To", "In-Reply-To", "References", "X-Priority", "From", "Message-ID"):
        assert after[name] == before[name], name
    for name, argument in (("Subject", "subject"), ("To", "to")):
        if argument not in change:
            assert after[name] == before[name], name
    body = after.get_body(("plain",)).get_content().strip()
    if "message" in change:
        assert body == "A new body.\nGrace"
    elif "html" in change:
        assert body == "A new body."  # the plain part follows the new HTML
        assert "<b>new</b>" in after.get_body(("html",)).get_content()
    else:
        assert body == "Thanks, here is my version.\nGrace"
    if "to" in change:
        assert after["To"] == "charles@example.com"
    if "cc" in change:
        assert after["Cc"] == "charles@example.com"


def test_a_draft_shows_its_attachments_and_reply_to(spec, tools, gmail):
    draft_id = stored_draft(spec, gmail)
    shown = tools["get_draft"].call(draft_id=draft_id).content
    assert "Reply-To: Team <team@example.org>" in shown
    assert "Attachments: v2.pdf (application/pdf, 24 B)" in shown
    assert f"<<< draft body of draft {draft_id}: quoted third-party text" in shown


def test_a_draft_too_deep_to_read_whole_is_not_rewritten(spec, tools, gmail):
    from toolspecs.loaders.google.testing import nested_message

    raw = base64.urlsafe_b64encode(nested_message(200)).decode()
    created = spec.service.users().drafts().create(userId="me", body={"message": {"raw": raw}})
    draft_id = created.execute()["id"]
    out = tools["update_draft"].call(draft_id=draft_id, subject="x")
    assert isinstance(out.exception, AskUser)
    assert "edit this draft in Gmail" in out.content
    assert not [r for r in gmail.requests if r.method == "PUT"]


# -- every agent-given header value is one line -------------------------------------------

INJECTED = {
    "subject": "x\r\nBcc : evil@example.com",
    "to": ['"Ada\r\nBcc: evil@example.com" <ada@example.com>'],
    "cc": ['"Cc\nBcc: evil@example.com" <cc@example.com>'],
    "bcc": ['"B\rBcc: evil@example.com" <b@example.com>'],
}


def header_lines(raw_bytes):
    head = raw_bytes.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]
    return [line for line in head.split(b"\n") if not line[:1].isspace()]


@pytest.mark.parametrize("field", list(INJECTED))
@pytest.mark.parametrize("tool", ["create_draft", "update_draft"])
def test_no_agent_given_header_value_starts_a_header(spec, tools, gmail, field, tool):
    # A line break in a value is folded to a space: a name stays a name, a subject a subject.
    arguments = {"to": "ada@example.com", "message": "Hi", field: INJECTED[field]}
    if tool == "update_draft":
        arguments = {"draft_id": stored_draft(spec, gmail), field: INJECTED[field]}
    out = tools[tool].call(**arguments)
    assert out.is_error is False, out.content
    saved = [r for r in gmail.requests if r.method in ("POST", "PUT")][-1]
    raw = base64.urlsafe_b64decode(saved.body["message"]["raw"])
    names = [line.split(b":", 1)[0].strip().lower() for line in header_lines(raw)]
    expected_bcc = 1 if field == "bcc" else 0
    assert names.count(b"bcc") == expected_bcc, names
    parsed = message_from_bytes(raw, policy=policy.default)
    recipients = [
        address.addr_spec
        for name in ("To", "Cc", "Bcc")
        if parsed[name] is not None
        for address in parsed[name].addresses
    ]
    assert "evil@example.com" not in recipients  # the name stays a name, on one line
