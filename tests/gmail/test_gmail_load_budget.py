"""Whole messages are read within a byte budget per call: large ones are listed, to be read
one at a time, instead of being held all at once (issue 22, item 11)."""

from __future__ import annotations

from email.message import EmailMessage

from toolspecs.loaders.google.gmail import BATCH_BYTES, MAX_MESSAGE_BYTES
from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.loaders.google.testing.gmail import huge_message
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.gmail import base as gmail_spec


def big_mail(index: int, size: int) -> bytes:
    """A mail from Ada with a body of about ``size`` characters and a word to find."""
    mail = EmailMessage()
    mail["From"] = "Ada Lovelace <ada@example.com>"
    mail["To"] = "grace@example.org"
    mail["Subject"] = f"Big report {index}"
    mail["Date"] = f"Tue, {10 + index} Nov 2026 08:01:00 +0000"
    mail["Message-ID"] = f"<big-{index}@example.com>"
    mail.set_content(f"Marker{index} " + "figures and tables " * (size // 19))
    return mail.as_bytes()


def raw_reads(gmail) -> list[str]:
    """The message ids Gmail was asked for in full (``format=raw``)."""
    return [
        r.path.rsplit("/", 1)[-1]
        for r in gmail.calls()
        if r.path.startswith("/users/me/messages/") and r.query.get("format") == ["raw"]
    ]


def test_search_with_bodies_lists_a_message_over_the_per_message_cap_without_its_body():
    gmail = sample_mailbox()
    huge = gmail.add_message(huge_message(MAX_MESSAGE_BYTES + 2**20), labels=["INBOX"])["id"]
    tools = {t.metadata.name: t for t in GmailToolSpec(transport=gmail).to_tool_list()}
    out = tools["search_messages"].call(query="", max_results=20, include_body=True)
    assert out.is_error is False
    assert huge not in raw_reads(gmail)  # never fetched whole
    assert len(raw_reads(gmail)) == len(gmail.messages) - 1  # the others are
    assert "x" * 1000 not in out.content  # its snippet only
    assert "Huge text body" in out.content  # listed, with its summary
    assert "1 of " in out.content and "messages are listed without their body" in out.content
    assert f"get_message(message_id=...): {huge}." in out.content


def test_load_data_reads_whole_messages_only_within_the_call_budget(monkeypatch):
    monkeypatch.setattr(gmail_spec, "MAX_LOAD_BYTES", 3 * 2**20, raising=False)
    gmail = sample_mailbox()
    gmail.messages.clear()
    big = [gmail.add_message(big_mail(i, 2**20), labels=["INBOX"])["id"] for i in range(5)]
    spec = GmailToolSpec(transport=gmail, max_results=5)
    tools = {t.metadata.name: t for t in spec.to_tool_list()}
    out = tools["load_data"].call()
    assert out.is_error is False
    read = raw_reads(gmail)
    # Newest first (Marker4 ...): the first two fit in 3 MiB, the third would not.
    assert read == [big[4], big[3]]
    note = spec.load_data()
    text = "\n\n".join(doc.text for doc in note)
    assert "3 of 5 messages are listed without their body" in text
    assert "one call reads at most 3.0 MB" in text
    assert f"{big[2]}, {big[1]}, {big[0]}" in text
    assert ("figures and tables " * 1000) in text  # the read ones whole


def test_whole_messages_are_fetched_in_batches_of_bounded_bytes():
    gmail = sample_mailbox()
    gmail.messages.clear()
    size = BATCH_BYTES // 3
    for i in range(5):
        gmail.add_message(big_mail(i, size), labels=["INBOX"])
    tools = {t.metadata.name: t for t in GmailToolSpec(transport=gmail).to_tool_list()}
    out = tools["search_messages"].call(max_results=5, include_body=True)
    assert "listed without their body" not in out.content
    batches = [
        [p for p in r.parts if p.query.get("format") == ["raw"]] for r in gmail.requests if r.parts
    ]
    assert len(raw_reads(gmail)) == 5
    # At most BATCH_BYTES of messages in one batch answer (here two), not all five.
    assert [len(b) for b in batches if b] == [2, 2]
