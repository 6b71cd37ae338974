"""The loader's drafts client: every draft request the Gmail spec makes, as plain data."""

from __future__ import annotations

import pytest

from toolspecs.loaders.google import GmailReader, GoogleApiError, GoogleResponseError
from toolspecs.loaders.google.mail import decode_raw

MIME = b"To: ada@example.com\r\nSubject: Hello\r\n\r\nHi Ada.\r\n"


@pytest.fixture
def drafts(gmail):
    return GmailReader(transport=gmail).drafts


def test_a_draft_is_created_read_updated_listed_and_sent(drafts, gmail, ids):
    created = drafts.create(MIME)
    draft_id = created["id"]
    assert gmail.draft_mime(draft_id)["Subject"] == "Hello"
    stored = drafts.get(draft_id)
    assert decode_raw(stored["message"]["raw"]).endswith(b"Hi Ada.\r\n")
    updated = drafts.update(draft_id, MIME.replace(b"Hello", b"Hello again"))
    assert updated["id"] == draft_id
    assert gmail.draft_mime(draft_id)["Subject"] == "Hello again"
    assert [d["id"] for d in drafts.list(5)] == [draft_id]
    sent = drafts.send(draft_id)
    assert sent["id"] in gmail.messages and draft_id not in gmail.drafts
    assert drafts.list() == []


def test_a_reply_draft_joins_the_thread_it_names(drafts, gmail, ids):
    thread = gmail.messages[ids["thread_1"]]["threadId"]
    subject = gmail.mime(ids["thread_1"])["Subject"].encode()
    mime = MIME.replace(b"Hello", b"Re: " + subject).replace(
        b"\r\n\r\n", b"\r\nIn-Reply-To: <thread-start@example.org>\r\n\r\n"
    )
    created = drafts.create(mime, thread_id=thread)
    assert created["message"]["threadId"] == thread


def test_a_missing_draft_is_the_loaders_error(drafts):
    with pytest.raises(GoogleApiError) as caught:
        drafts.get("r-nope")
    assert caught.value.status == 404


def test_an_answer_without_a_draft_id_is_not_taken_for_a_draft(drafts, gmail):
    draft_id = drafts.create(MIME)["id"]
    gmail.fail[("GET", f"/drafts/{draft_id}")] = [(200, "", "", {})]
    with pytest.raises(GoogleResponseError):
        drafts.get(draft_id)
