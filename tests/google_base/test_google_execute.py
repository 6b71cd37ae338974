"""The one boundary every Google request goes through (``toolspecs.loaders.google.execute``):
retries within a deadline, Retry-After honoured, and answers that are not Google's JSON
turned into the loader's error, then into guidance for Calendar and Gmail alike."""

from __future__ import annotations

import time

import pytest

from toolspecs.core import RetryLater
from toolspecs.loaders.google import (
    GoogleApiError,
    GoogleCalendarReader,
    GoogleResponseError,
    build_service,
    execute,
)
from toolspecs.loaders.google.testing import HTML_PAGE, FakeCalendar, sample_mailbox
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec


def events_list(google: FakeCalendar):
    return build_service("calendar", "v3", transport=google).events().list(calendarId="primary")


# -- back-off within the deadline ----------------------------------------------------------


def test_5xx_retries_end_within_the_deadline(no_backoff_sleep):
    # Before: googleapiclient's num_retries=3 waited up to 2+4+8 s whatever the deadline.
    google = FakeCalendar()
    google.fail[("GET", "/events")] = [(503, "backendError", "Backend Error")] * 50
    with pytest.raises(GoogleApiError) as caught:
        execute(events_list(google), deadline=1.5, num_retries=50)
    assert caught.value.status == 503
    assert sum(no_backoff_sleep) < 1.5
    assert len(google.requests) == len(no_backoff_sleep) + 1


def test_without_a_deadline_the_retries_are_counted(no_backoff_sleep):
    google = FakeCalendar()
    google.fail[("GET", "/events")] = [(500, "backendError", "boom")] * 10
    with pytest.raises(GoogleApiError):
        execute(events_list(google), deadline=None, num_retries=3)
    assert len(google.requests) == 4
    # Full jitter: try n+1 waits at most 2**(n-1) s.
    assert all(0 <= wait <= 2**n for n, wait in enumerate(no_backoff_sleep))


def test_retry_after_is_waited_when_it_fits(no_backoff_sleep):
    google = FakeCalendar()
    google.fail[("GET", "/events")] = [
        (429, "rateLimitExceeded", "Slow down", {"retry-after": "3"})
    ]
    assert execute(events_list(google), deadline=10)["items"] == []
    assert len(no_backoff_sleep) == 1
    assert 3 <= no_backoff_sleep[0] <= 10


def test_retry_after_past_the_deadline_ends_at_once(no_backoff_sleep):
    google = FakeCalendar()
    google.fail[("GET", "/events")] = [
        (429, "rateLimitExceeded", "Slow down", {"retry-after": "30"})
    ] * 5
    with pytest.raises(GoogleApiError) as caught:
        execute(events_list(google), deadline=10)
    assert caught.value.retry_after == 30.0
    assert no_backoff_sleep == []  # no wait it could not finish
    assert len(google.requests) == 1


def test_rate_limit_403_is_retried_but_a_permission_403_is_not(no_backoff_sleep):
    google = FakeCalendar()
    google.fail[("GET", "/events")] = [(403, "rateLimitExceeded", "slow")]
    assert execute(events_list(google), deadline=10) is not None
    google.fail[("GET", "/events")] = [(403, "forbidden", "no")] * 5
    with pytest.raises(GoogleApiError):
        execute(events_list(google), deadline=10)
    assert len(google.requests) == 3  # 403 rate limit, success, 403 forbidden
    assert len(no_backoff_sleep) == 1


def test_a_calendar_call_that_meets_503s_ends_in_retry_later_within_its_deadline(
    no_backoff_sleep,
):
    google = FakeCalendar()
    google.fail[("POST", "/events")] = [(503, "backendError", "Backend Error")] * 50
    spec = GoogleCalendarToolSpec(transport=google)
    spec.call_deadline = 3.0
    began = time.monotonic()
    out = spec.call_tool("create_event", title="x", start_datetime="2026-11-21 16:00")
    assert time.monotonic() - began < 3.0
    assert isinstance(out.exception, RetryLater)
    assert "server error (HTTP 503)" in out.content
    assert sum(no_backoff_sleep) < 3.0


# -- answers that are not Google's JSON ------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [(200, HTML_PAGE), (200, b""), (200, b"[]"), (200, b'"text"'), (200, b"\xff\xfe{")],
    ids=["html", "empty", "list", "string", "not-utf8"],
)
def test_a_body_that_is_not_a_json_object_is_a_response_error(answer):
    google = FakeCalendar()
    google.fail[("GET", "/events")] = [answer]
    with pytest.raises(GoogleResponseError) as caught:
        execute(events_list(google))
    assert caught.value.status == 200
    assert "not a JSON object" in caught.value.reason
    assert "sign in" not in caught.value.reason.lower()  # the page itself is not repeated


def test_a_response_error_is_not_retried(no_backoff_sleep):
    google = FakeCalendar()
    google.fail[("POST", "/events")] = [(200, HTML_PAGE)] * 5
    request = (
        build_service("calendar", "v3", transport=google)
        .events()
        .insert(calendarId="primary", body={"summary": "x"}, sendUpdates="none")
    )
    with pytest.raises(GoogleResponseError):
        execute(request)
    assert len(google.requests) == 1  # a write that may have been done is not sent again
    assert no_backoff_sleep == []


def test_an_error_page_with_a_5xx_status_is_still_an_api_error(no_backoff_sleep):
    google = FakeCalendar()
    google.fail[("GET", "/events")] = [(502, HTML_PAGE)] * 10
    with pytest.raises(GoogleApiError) as caught:
        execute(events_list(google), deadline=None)
    assert caught.value.status == 502


def test_a_reader_asks_for_the_time_left_before_each_request(no_backoff_sleep):
    google = FakeCalendar()
    google.fail[("GET", "/events")] = [(503, "backendError", "x")] * 50
    asked: list[str] = []

    def time_left() -> float:
        asked.append("asked")
        return 0.5

    reader = GoogleCalendarReader(transport=google, time_left=time_left)
    with pytest.raises(GoogleApiError):
        reader.load_data(start_date="2026-11-21")
    assert len(asked) == 2  # the calendar's timezone, the listing
    assert sum(no_backoff_sleep) < 0.5


def test_gmail_tools_get_the_same_guidance_for_an_html_answer():
    # Gmail's requests go through the same execute: a portal page is RetryLater there too.
    gmail = sample_mailbox()
    gmail.fail[("GET", "/messages")] = [(200, HTML_PAGE)]
    out = GmailToolSpec(transport=gmail).call_tool("search_messages", query="from:ada")
    assert out.is_error is True
    assert isinstance(out.exception, RetryLater)
    assert "could not be read" in out.content


def test_a_gmail_call_waits_only_within_its_own_deadline(no_backoff_sleep):
    from toolspecs.loaders.google.testing import sample_mailbox
    from toolspecs.specs.gmail import GmailToolSpec

    gmail = sample_mailbox()
    busy = (503, "backendError", "Backend Error", {"retry-after": "2"})
    gmail.fail[("GET", "/messages")] = [busy] * 50
    spec = GmailToolSpec(transport=gmail)
    spec.call_deadline = 5.0
    out = spec.call_tool("search_messages", query="is:unread")
    assert isinstance(out.exception, RetryLater)
    # Google asked for 2 s between tries: one wait fits in the call's 5 s, two do not
    # (the reader's own default deadline, 30 s, would have allowed three).
    assert no_backoff_sleep == [2.0]


def test_a_send_that_met_a_server_error_is_not_sent_again(no_backoff_sleep):
    # Google may have sent the mail before failing: a second try could send it twice.
    from toolspecs.loaders.google.testing import sample_mailbox
    from toolspecs.specs.gmail import GmailToolSpec

    gmail = sample_mailbox()
    spec = GmailToolSpec(transport=gmail)
    spec.call_tool("create_draft", to="ada@example.com", subject="s", message="m")
    (draft_id,) = gmail.drafts
    gmail.fail[("POST", "/drafts/send")] = [(503, "backendError", "Backend Error")]
    out = spec.call_tool("send_draft", draft_id=draft_id)
    assert isinstance(out.exception, RetryLater)
    assert gmail.sent == [] and not no_backoff_sleep
    posts = [r for r in gmail.requests if r.method == "POST" and r.path.endswith("/send")]
    assert len(posts) == 1


def test_an_insert_refused_by_a_rate_limit_is_retried(no_backoff_sleep):
    google = FakeCalendar()
    google.fail[("POST", "/events")] = [(429, "rateLimitExceeded", "Rate Limit Exceeded")]
    spec = GoogleCalendarToolSpec(transport=google)
    out = spec.call_tool("create_event", title="x", start_datetime="2026-11-21 16:00")
    assert out.is_error is False, out.content
    assert len(no_backoff_sleep) == 1 and len(google.events) == 1


@pytest.mark.parametrize("tool", ["update_draft", "get_draft", "send_draft"])
def test_a_draft_answer_without_the_draft_is_guidance_and_nothing_is_written(tool):
    # Found by bench/fuzz_tools.py: {} for the draft made update_draft raise KeyError.
    from toolspecs.loaders.google.testing import sample_mailbox
    from toolspecs.specs.gmail import GmailToolSpec

    gmail = sample_mailbox()
    spec = GmailToolSpec(transport=gmail)
    spec.call_tool("create_draft", to="ada@example.com", subject="s", message="m")
    (draft_id,) = gmail.drafts
    gmail.fail[("GET", f"/drafts/{draft_id}")] = [(200, b"{}")]
    extra = {"subject": "new"} if tool == "update_draft" else {}
    out = spec.call_tool(tool, draft_id=draft_id, **extra)
    assert isinstance(out.exception, RetryLater), out.content
    assert not [r for r in gmail.requests if r.method in ("PUT", "POST") and "drafts/" in r.path]
