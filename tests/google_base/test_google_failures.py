"""The Google specs' failure table (toolspecs-google-base): what the loader and the libraries
under it raise becomes guidance of the right kind. The tests run with TOOLSPECS_STRICT=1
(tests/conftest.py), so a failure the table does not map raises here instead of passing."""

from __future__ import annotations

import json

import httplib2
import pytest
from google.auth.exceptions import RefreshError, TransportError
from googleapiclient.errors import HttpError

from toolspecs.core import AskUser, ConfigurationError, FixArguments, RetryLater
from toolspecs.loaders.google.testing import FakeCalendar, sample_mailbox
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_base import GOOGLE_FAILURES, GoogleToolSpec, google_reason
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec


def tools_of(spec):
    return {t.metadata.name: t for t in spec.to_tool_list()}


# -- a person's misconfiguration met during a call: ask the user, say what to set -----------


@pytest.mark.parametrize(
    ("make", "tool", "args"),
    [
        (GoogleCalendarToolSpec, "load_data", {}),
        (GmailToolSpec, "search_messages", {"query": "from:ada"}),
    ],
    ids=["calendar", "gmail"],
)
def test_a_missing_service_account_key_file_asks_the_user(tmp_path, make, tool, args):
    spec = make(service_account_key_path=str(tmp_path / "missing-sa.json"))
    out = tools_of(spec)[tool].call(**args)
    assert out.is_error is True
    assert isinstance(out.exception, AskUser)
    assert "missing-sa.json" in out.content
    assert "set service_account_key_path" in out.content
    assert "call the tool again" not in out.content


@pytest.mark.parametrize(
    ("make", "tool", "args"),
    [
        (
            GoogleCalendarToolSpec,
            "create_event",
            {"title": "x", "start_datetime": "2026-11-21T16:00:00Z"},
        ),
        (GmailToolSpec, "list_drafts", {}),
    ],
    ids=["calendar", "gmail"],
)
@pytest.mark.parametrize(
    "content", ["{not json", '{"web_app": {}}'], ids=["not-json", "not-a-client"]
)
def test_a_malformed_client_file_without_a_token_asks_the_user(
    in_empty_dir, make, tool, args, content
):
    (in_empty_dir / "credentials.json").write_text(content)
    out = tools_of(make())[tool].call(**args)
    assert out.is_error is True
    assert isinstance(out.exception, AskUser)
    assert "'credentials.json' is not a Google OAuth client" in out.content
    assert "credentials_path" in out.content
    assert "Do not retry" in out.content


@pytest.mark.parametrize("make", [GoogleCalendarToolSpec, GmailToolSpec], ids=["calendar", "gmail"])
def test_a_bad_service_account_key_dict_asks_the_user(make, service_account_info):
    broken = {**service_account_info, "private_key": "not a key"}
    tool = "load_data"
    out = tools_of(make(service_account_key=broken))[tool].call()
    assert out.is_error is True
    assert isinstance(out.exception, AskUser)
    assert "not a usable Google service account key" in out.content
    assert "set service_account_key to the JSON key" in out.content


def test_a_malformed_token_file_asks_the_user(in_empty_dir):
    (in_empty_dir / "token.gmail.json").write_text(json.dumps({"token": "x"}))
    out = tools_of(GmailToolSpec())["get_draft"].call(draft_id="r-1")
    assert isinstance(out.exception, AskUser)
    assert "token.gmail.json" in out.content and "authorize again" in out.content


def test_authorize_raises_for_the_person(in_empty_dir):
    from toolspecs.loaders.google import GoogleAuthError

    with pytest.raises(GoogleAuthError, match="no OAuth client file"):
        GmailToolSpec().authorize()


# -- constructors given a bad value: a ValueError for the person ----------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda tz: GoogleCalendarToolSpec(timezone=tz, transport=FakeCalendar()),
        lambda tz: GmailToolSpec(timezone=tz, transport=sample_mailbox()),
    ],
    ids=["calendar", "gmail"],
)
def test_a_bad_timezone_setting_is_a_value_error_for_the_person(make):
    with pytest.raises(ValueError) as caught:
        make("Mars/Olympus")
    assert isinstance(caught.value, ConfigurationError)
    message = str(caught.value)
    assert "'Mars/Olympus'" in message and "'Europe/Paris'" in message
    assert "call the tool again" not in message and "tool" not in message
    assert make("Europe/Paris").spec_timezone().key == "Europe/Paris"


# -- Google's answers ---------------------------------------------------------------------


@pytest.mark.dates
def test_a_rate_limit_with_retry_after_says_how_long_to_wait(no_backoff_sleep):
    google = FakeCalendar()
    google.fail[("GET", "/events")] = [
        (429, "rateLimitExceeded", "Rate Limit Exceeded", {"retry-after": "30"})
    ] * 5
    out = tools_of(GoogleCalendarToolSpec(transport=google))["load_data"].call()
    assert isinstance(out.exception, RetryLater)
    assert out.exception.retry_after == 30.0
    assert "rate-limiting requests (HTTP 429), even after retries" in out.content
    assert "Wait 30 seconds" in out.content


@pytest.mark.parametrize(
    ("status", "reason", "message", "kind", "phrases"),
    [
        (410, "deleted", "Resource has been deleted", FixArguments, ["HTTP 410", "Get event ids"]),
        (
            403,
            "forbidden",
            "You need writer access",
            AskUser,
            ["refused access (HTTP 403)", "no access"],
        ),
        (
            403,
            "ACCESS_TOKEN_SCOPE_INSUFFICIENT",
            "Request had insufficient authentication scopes.",
            AskUser,
            ["lacks a needed permission", "authorize again"],
        ),
        (403, "quotaExceeded", "Quota exceeded", RetryLater, ["rate-limiting"]),
    ],
)
def test_google_answers_become_guidance(status, reason, message, kind, phrases):
    google = FakeCalendar()
    google.fail[("POST", "/events")] = [(status, reason, message)] * 5
    out = tools_of(GoogleCalendarToolSpec(transport=google))["create_event"].call(
        title="x", start_datetime="2026-11-21T16:00:00Z"
    )
    assert isinstance(out.exception, kind)
    assert message in out.content
    for phrase in phrases:
        assert phrase in out.content


@pytest.mark.dates
def test_reauthorizing_a_service_account_points_at_its_key(service_account_info):
    google = FakeCalendar()
    google.fail[("GET", "/events")] = [(401, "authError", "Invalid Credentials")]
    spec = GoogleCalendarToolSpec(service_account_key=service_account_info, transport=google)
    out = tools_of(spec)["load_data"].call()
    assert isinstance(out.exception, AskUser)
    assert "check the service account key" in out.content
    assert "token.calendar.json" not in out.content


@pytest.mark.parametrize(
    ("error", "kind", "phrase"),
    [
        (
            RefreshError("invalid_grant: Token has been expired or revoked."),
            AskUser,
            "delete token.json and authorize again",  # the file Gmail would read
        ),
        (TransportError("connection reset"), RetryLater, "Could not reach Gmail (TransportError"),
        (
            httplib2.ServerNotFoundError("Unable to find the server at gmail.googleapis.com"),
            AskUser,
            "could not resolve gmail.googleapis.com (no network, or no DNS)",
        ),
        (
            TimeoutError("timed out"),
            RetryLater,
            "Gmail could not be reached: no answer from gmail.googleapis.com in time",
        ),
    ],
    ids=["refresh", "transport", "httplib2", "timeout"],
)
def test_failures_met_while_a_request_runs(in_empty_dir, monkeypatch, error, kind, phrase):
    gmail = sample_mailbox()

    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(gmail, "request", fail)
    out = tools_of(GmailToolSpec(transport=gmail))["list_drafts"].call()
    assert isinstance(out.exception, kind)
    assert phrase in out.content


def test_a_raw_http_error_is_mapped_like_the_loaders():
    # A subclass calling request.execute() itself lets googleapiclient's own error out.
    body = json.dumps({"error": {"code": 403, "message": "Slow down", "errors": [
        {"reason": "userRateLimitExceeded", "message": "Slow down"}]}}).encode()  # fmt: skip
    raw = HttpError(httplib2.Response({"status": "403"}), body, uri="https://x")
    assert google_reason(raw) == "userRateLimitExceeded"
    guidance = GOOGLE_FAILURES.guidance(raw, "Google Drive")
    assert isinstance(guidance, RetryLater)
    assert "Google Drive is rate-limiting requests (HTTP 403)" in guidance.text


def test_the_google_specs_use_the_table_and_do_not_override_guidance_for():
    for spec in (GoogleCalendarToolSpec, GmailToolSpec):
        assert issubclass(spec, GoogleToolSpec)
        assert spec.failures is GOOGLE_FAILURES
        assert "guidance_for" not in vars(spec) and "guidance_for" not in vars(GoogleToolSpec)


def test_a_404_names_where_ids_come_from_with_the_tools_the_agent_has():
    spec = GmailToolSpec(transport=sample_mailbox())
    alone = spec.to_tool_list(["get_message"], prefix="g_")[0]  # and its reader
    out = alone.call(message_id="nothing-here").content
    assert "HTTP 404" in out and "search_messages" not in out and "list_drafts" not in out
    assert out.endswith("Check the id (ids come from the listing tools) and call the tool again.")
    tools = {
        t.metadata.name: t
        for t in spec.to_tool_list(["search_messages", "get_message"], prefix="g_")
    }
    out = tools["g_get_message"].call(message_id="nothing-here").content
    assert out.endswith("Message ids come from g_search_messages ([id: ...]).")


def test_a_spec_s_ids_hint_is_given_only_when_the_agent_has_the_tools_it_names():
    from toolspecs.core.context import ToolNames
    from toolspecs.core.prefixed import naming

    class Hinted(GoogleCalendarToolSpec):
        ids_hint = "Ids come from search_events."

    spec = Hinted(transport=FakeCalendar())
    hint = GoogleToolSpec.where_ids_come_from  # the default, which Calendar's overrides
    with naming(ToolNames("c_", frozenset({"search_events", "delete_event"}))):
        assert hint(spec) == "Ids come from c_search_events."
    with naming(ToolNames("c_", frozenset({"delete_event"}))):
        assert (
            hint(spec) == "Check the id (ids come from the listing tools) and call the tool again."
        )
