"""get_date answers without Google credentials, says which zone it used and why, and never
starts a sign-in; signed in, it reads the calendar's own zone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolspecs.loaders.google.testing import FakeCalendar
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

NOT_READ = "the calendar's own zone was not read"
CLIENT = {"installed": {
    "client_id": "cid.apps.googleusercontent.com", "client_secret": "s",
    "auth_uri": "https://accounts.google.com/o/oauth2/auth",
    "token_uri": "https://oauth2.googleapis.com/token", "redirect_uris": ["http://localhost"],
}}  # fmt: skip


@pytest.fixture
def nowhere(tmp_path, monkeypatch):
    """An empty working directory, and no TOOLSPECS_TIMEZONE."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLSPECS_TIMEZONE", raising=False)
    return tmp_path


@pytest.fixture
def no_sign_in(monkeypatch):
    """A sign-in that starts fails the test (browser or console)."""

    def started(*args, **kwargs):
        raise AssertionError("get_date started a Google sign-in")

    monkeypatch.setattr("google_auth_oauthlib.flow.InstalledAppFlow.run_local_server", started)
    monkeypatch.setattr("google_auth_oauthlib.flow.Flow.authorization_url", started)


@pytest.mark.dates
@pytest.mark.faketime
def test_without_any_credentials_it_answers_in_the_local_zone(nowhere):
    # Before: "Google Calendar cannot be used until the user sets up Google access ..."
    spec = GoogleCalendarToolSpec()  # no transport, no credentials.json, no token
    out = spec.call_tool("get_date")
    assert out.is_error is False, out.content
    assert "The time is" in out.content and "in UTC (UTC+00:00)" in out.content
    assert out.content.endswith(
        f"(timezone: UTC, from this machine's local zone; {NOT_READ}: no Google sign-in)"
    )
    assert isinstance(spec.get_date(), str)  # called directly, as LlamaHub's
    assert list(nowhere.iterdir()) == []  # nothing written


@pytest.mark.dates
@pytest.mark.parametrize("flow", ["local", "console", "none"])
def test_with_an_oauth_client_file_it_never_starts_a_sign_in(nowhere, no_sign_in, flow):
    # Before: auth_flow="local" opened a browser and waited on port 8080.
    (nowhere / "credentials.json").write_text(json.dumps(CLIENT))
    out = GoogleCalendarToolSpec(auth_flow=flow).call_tool("get_date")
    assert out.is_error is False, out.content
    assert f"{NOT_READ}: no Google sign-in" in out.content
    assert sorted(p.name for p in nowhere.iterdir()) == ["credentials.json"]


@pytest.mark.dates
def test_the_timezone_setting_needs_no_google(nowhere, no_sign_in):
    out = GoogleCalendarToolSpec(timezone="Asia/Kolkata").call_tool("get_date")
    assert "in Asia/Kolkata (UTC+05:30)" in out.content
    assert out.content.endswith("(timezone: Asia/Kolkata, from the timezone setting)")


@pytest.mark.dates
def test_the_environment_zone_is_named_as_such(nowhere, monkeypatch):
    monkeypatch.setenv("TOOLSPECS_TIMEZONE", "Asia/Tokyo")
    out = GoogleCalendarToolSpec().call_tool("get_date")
    assert "(timezone: Asia/Tokyo, from TOOLSPECS_TIMEZONE; " in out.content
    assert f"{NOT_READ}: no Google sign-in)" in out.content


@pytest.mark.dates
def test_signed_in_it_reads_the_calendars_own_zone(nowhere):
    google = FakeCalendar()  # a calendar in America/New_York
    out = GoogleCalendarToolSpec(transport=google).call_tool("get_date")
    assert "in America/New_York (UTC-0" in out.content
    assert out.content.endswith("(timezone: America/New_York, the calendar's own)")
    assert [(r.method, r.path) for r in google.requests] == [("GET", "/calendars/primary")]


@pytest.mark.dates
def test_a_token_that_cannot_be_used_is_said_and_the_local_zone_given(nowhere, no_sign_in):
    (nowhere / "token.json").write_text(json.dumps({"token": "x"}))  # no refresh token
    out = GoogleCalendarToolSpec().call_tool("get_date")
    assert out.is_error is False, out.content
    assert "(timezone: UTC, from this machine's local zone; " in out.content
    assert f"{NOT_READ}: Google Calendar cannot be used until" in out.content
    assert "the token file 'token.json' is not a Google authorized-user token" in out.content


@pytest.mark.dates
def test_google_refusing_the_credentials_is_said(nowhere):
    google = FakeCalendar()
    google.fail[("GET", "/calendars/primary")] = [(401, "authError", "Invalid Credentials")]
    out = GoogleCalendarToolSpec(transport=google).call_tool("get_date")
    assert out.is_error is False, out.content
    assert f"{NOT_READ}: Google Calendar rejected the credentials (HTTP 401)" in out.content


@pytest.mark.parametrize("package", ["google_calendar", "gmail"])
def test_auth_guidance_points_at_the_specs_own_readme_section(nowhere, package):
    # Before: "(see the toolspecs README, 'Authorize Google')", a section the root README has not.
    from toolspecs.specs.gmail import GmailToolSpec

    spec = GmailToolSpec() if package == "gmail" else GoogleCalendarToolSpec()
    tool = "list_drafts" if package == "gmail" else "load_data"
    out = spec.call_tool(tool)
    assert out.is_error is True
    name = spec.package
    assert f"(see 'Authorize Google' in the README of {name})" in out.content
    readme = Path(__file__).parents[2] / "specs" / package / "README.md"
    assert f'name = "{name}"' in (readme.parent / "pyproject.toml").read_text()
    assert "\n## Authorize Google\n" in readme.read_text()
