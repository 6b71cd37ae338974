"""Each tool's declared scopes are enough: Google's own answer, by its discovery documents.

The fakes act for a token granted only some scopes (``fake.granted``): a call whose
method accepts none of them gets Google's 403 ``insufficientPermissions``, as the
discovery documents bundled in google-api-python-client list the scopes each method
accepts. Every tool runs granted exactly the scopes it declares (``needs_scopes``), and
no request meets that 403; granted less, a writing tool meets it, and the agent reads the
failure table's ask-the-user row (the server-side case the spec cannot see beforehand).
"""

from __future__ import annotations

import pytest

from toolspecs.core import AskUser
from toolspecs.loaders.google.scopes import CALENDAR_READONLY, GMAIL_READONLY
from toolspecs.loaders.google.testing import FakeCalendar, sample_mailbox, timed_event
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_base.spec import declared_scopes
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

ME = {"email": "ada@example.com", "self": True, "responseStatus": "needsAction"}
GRACE = {"email": "grace@example.com", "responseStatus": "accepted"}


@pytest.fixture(autouse=True)
def _in_utc(server_in_utc):
    """The process runs in UTC; the fake calendar lives in New York."""


def calendar() -> FakeCalendar:
    return FakeCalendar(
        events={
            "e1": timed_event(
                "e1", "Budget review", "2026-11-24T14:00:00-05:00", "2026-11-24T14:45:00-05:00",
                organizer={"email": "grace@example.com"}, attendees=[GRACE, dict(ME)],
            ),
            "e2": timed_event(
                "e2", "Lunch", "2026-11-24T12:00:00-05:00", "2026-11-24T13:00:00-05:00",
                organizer={"email": "ada@example.com", "self": True},
            ),
        }
    )  # fmt: skip


CALENDAR_CALLS = {
    "get_date": {},
    "load_data": {"start_date": "2026-11-20"},
    "search_events": {"query": "budget", "start_date": "2026-11-01"},
    "list_calendars": {},
    "find_free_time": {
        "start_datetime": "2026-11-24T09:00",
        "end_datetime": "2026-11-24T17:00",
        "attendees": ["grace@example.com"],
    },
    "create_event": {"title": "Tea", "start_datetime": "2026-11-25T16:00"},
    "update_event": {"event_id": "e2", "title": "Long lunch"},
    "respond_to_event": {"event_id": "e1", "response": "accept"},
    "delete_event": {"event_id": "e2"},
}


def gmail_calls(ids: dict[str, str], draft: str) -> dict[str, dict]:
    return {
        "load_data": {},
        "search_messages": {"query": "lunch"},
        "get_message": {"message_id": ids["plain"]},
        "get_thread": {"thread_id": ids["thread"]},
        "read_attachment": {"message_id": ids["attachments"], "attachment_id": ids["attachment"]},
        "list_labels": {},
        "modify_labels": {"message_ids": [ids["plain"]], "add": ["star"]},
        "list_drafts": {},
        "get_draft": {"draft_id": draft},
        "create_draft": {"to": ["ada@example.com"], "subject": "Hi", "message": "Hello"},
        "update_draft": {"draft_id": draft, "subject": "Hello again"},
        "send_draft": {"draft_id": draft},
    }


def mailbox_ids(gmail) -> dict[str, str]:
    found = {}
    for message_id, message in gmail.messages.items():
        header = gmail.mime(message_id)["Message-ID"]
        if header == "<CAplain001@mail.example.com>":
            found["plain"] = message_id
        if header == "<thread-start@example.org>":
            found["thread"] = message["threadId"]
        if header == "<attach-0001@mail.example.com>":
            found["attachments"] = message_id
            found["attachment"] = "1"  # the agent may name an attachment by its number
    return found


@pytest.mark.dates
@pytest.mark.parametrize("function", list(CALENDAR_CALLS))
def test_each_calendar_tool_works_with_only_the_scopes_it_declares(function):
    google = calendar()
    google.granted = list(declared_scopes(GoogleCalendarToolSpec, function) or ())
    spec = GoogleCalendarToolSpec(transport=google, allow_destructive=True)
    tools = {t.metadata.name: t for t in spec.to_tool_list(spec_functions=[function])}
    out = tools[function].call(**CALENDAR_CALLS[function])
    assert out.is_error is False, out.content
    assert google.calls() or function == "get_date"


@pytest.mark.parametrize(
    "function",
    [
        "load_data",
        "search_messages",
        "get_message",
        "get_thread",
        "read_attachment",
        "list_labels",
        "modify_labels",
        "list_drafts",
        "get_draft",
        "create_draft",
        "update_draft",
        "send_draft",
    ],
)
def test_each_gmail_tool_works_with_only_the_scopes_it_declares(function):
    gmail = sample_mailbox()
    ids = mailbox_ids(gmail)
    # A draft to read, change and send, made while every scope is granted.
    draft = GmailToolSpec(transport=gmail).create_draft(["ada@example.com"], "Hi", "Hello")["id"]
    gmail.granted = list(declared_scopes(GmailToolSpec, function) or ())
    spec = GmailToolSpec(transport=gmail)
    tools = {t.metadata.name: t for t in spec.to_tool_list(spec_functions=[function])}
    out = tools[function].call(**gmail_calls(ids, draft)[function])
    assert out.is_error is False, out.content


def test_a_token_granted_less_meets_googles_403_and_the_user_is_asked():
    google = calendar()
    google.granted = [CALENDAR_READONLY]  # authorized for reading only
    spec = GoogleCalendarToolSpec(transport=google)
    tools = {t.metadata.name: t for t in spec.to_tool_list()}
    assert tools["load_data"].call(start_date="2026-11-20").is_error is False
    out = tools["create_event"].call(title="Tea", start_datetime="2026-11-25T16:00")
    assert isinstance(out.exception, AskUser)
    assert "lacks a needed permission (scope)" in out.content
    gmail = sample_mailbox()
    gmail.granted = [GMAIL_READONLY]
    tools = {t.metadata.name: t for t in GmailToolSpec(transport=gmail).to_tool_list()}
    out = tools["create_draft"].call(to=["ada@example.com"], subject="Hi", message="Hello")
    assert isinstance(out.exception, AskUser)
    assert "lacks a needed permission (scope)" in out.content
