"""The Google loader on its own: no toolspecs-core, its own errors with status, reason and
retry-after, ``transport=`` as the one seam, timezones checked for a person."""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from googleapiclient.errors import HttpError

from toolspecs.base.times import format_datetime
from toolspecs.core import format_datetime as core_format_datetime
from toolspecs.loaders.google import (
    GmailReader,
    GoogleApiError,
    GoogleAuth,
    GoogleAuthError,
    GoogleCalendarReader,
    GoogleLoaderError,
)
from toolspecs.loaders.google.testing import FakeCalendar, sample_mailbox

ROOT = Path(__file__).parents[2]
LOADER = ROOT / "loaders" / "google"
CAL = ["https://www.googleapis.com/auth/calendar"]


def test_the_loader_imports_without_toolspecs_core():
    code = (
        "import sys\n"
        "import toolspecs.loaders.google, toolspecs.loaders.google.testing\n"
        "from toolspecs.loaders.google.testing import FakeCalendar\n"
        "from toolspecs.loaders.google import GoogleCalendarReader\n"
        "docs = GoogleCalendarReader(transport=FakeCalendar()).load_data(start_date='2026-11-21')\n"
        "assert docs == [], docs\n"
        "core = sorted(m for m in sys.modules if m.startswith('toolspecs.core'))\n"
        "assert not core, core\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_loader_does_not_depend_on_toolspecs_core():
    requires = importlib.metadata.requires("toolspecs-loader-google") or []
    assert "google-api-python-client>=2.100" in requires
    # Of ours, only the bottom layer (toolspecs-base, with the shared network package), which
    # depends on no toolspecs package.
    ours = [r for r in requires if r.startswith("toolspecs")]
    assert sorted(r.split("<")[0].split(">")[0].split("[")[0] for r in ours) == [
        "toolspecs-base",
    ], requires
    for source in (LOADER / "src").rglob("*.py"):
        assert "toolspecs.core" not in source.read_text(encoding="utf-8"), source


@pytest.mark.dates
def test_the_loader_formats_times_as_the_core_does():
    for moment in (
        dt.datetime(2026, 11, 21, 16, 0, tzinfo=ZoneInfo("America/New_York")),
        dt.datetime(2026, 3, 29, 1, 30, tzinfo=ZoneInfo("Europe/Paris")),
        dt.datetime(2026, 11, 21, 9, 5, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30))),
    ):
        assert format_datetime(moment) == core_format_datetime(moment)
        assert format_datetime(moment, ZoneInfo("Asia/Kolkata")) == core_format_datetime(
            moment, ZoneInfo("Asia/Kolkata")
        )


# -- errors ------------------------------------------------------------------------------


def test_http_errors_carry_status_reason_and_retry_after(no_backoff_sleep):
    google = FakeCalendar()
    google.fail[("GET", "/events")] = [
        (429, "rateLimitExceeded", "Rate Limit Exceeded", {"retry-after": "30"})
    ] * 5
    reader = GoogleCalendarReader(transport=google)
    with pytest.raises(GoogleApiError) as caught:
        reader.load_data(start_date="2026-11-21")
    err = caught.value
    assert (err.status, err.reason, err.retry_after) == (429, "Rate Limit Exceeded", 30.0)
    assert err.google_reason == "rateLimitExceeded"
    assert isinstance(err, GoogleLoaderError)
    assert isinstance(err, HttpError)  # code written for googleapiclient keeps catching it
    assert err.resp.status == 429 and "Rate Limit Exceeded" in str(err)
    # Google asked for 30 s, the whole of the default deadline: no wait, no retry.
    assert no_backoff_sleep == []
    assert len(google.requests) == 2  # the calendar's timezone, then the one listing


def test_a_missing_message_is_a_404_with_googles_words():
    reader = GmailReader(transport=sample_mailbox())
    with pytest.raises(GoogleApiError) as caught:
        reader.message_document("nope")
    assert caught.value.status == 404
    assert caught.value.reason == "Requested entity was not found."
    assert caught.value.retry_after is None
    assert caught.value.google_reason == "notFound"


def test_the_fakes_are_their_own_transport():
    google = FakeCalendar()
    assert google.transport() is google
    reader = GoogleCalendarReader(transport=google.transport())
    assert reader.calendar_timezone() == ZoneInfo("America/New_York")


# -- what only the person can fix -----------------------------------------------------------


def test_a_missing_oauth_client_file_names_the_setting(in_empty_dir):
    with pytest.raises(GoogleAuthError) as caught:
        GoogleAuth(scopes=CAL).credentials()
    err = caught.value
    assert err.setting == "credentials_path"
    assert "no OAuth client file at 'credentials.json'" in err.reason
    assert "credentials_path" in err.reason
    assert (err.status, err.retry_after) == (None, None)


@pytest.mark.parametrize(
    "content",
    ["this is not JSON", {"web_app": {"client_id": "x"}}, {"installed": "not a dict"}],
    ids=["not-json", "not-a-client", "wrong-shape"],
)
def test_a_malformed_oauth_client_file_names_the_setting(in_empty_dir, write_json, content):
    path = write_json("credentials.json", content)
    with pytest.raises(GoogleAuthError) as caught:
        GoogleAuth(scopes=CAL, credentials_path=path).credentials()
    assert caught.value.setting == "credentials_path"
    assert "is not a Google OAuth client" in caught.value.reason
    assert "credentials_path" in caught.value.reason


def test_a_malformed_token_file_says_to_authorize_again(write_json):
    path = write_json("token.calendar.json", {"token": "x"})
    with pytest.raises(GoogleAuthError) as caught:
        GoogleAuth(scopes=CAL, token_path=path).credentials()
    assert caught.value.setting == "token_path"
    assert "delete it and authorize again" in caught.value.reason


def test_a_missing_service_account_key_file_names_the_setting(tmp_path):
    missing = tmp_path / "sa.json"
    with pytest.raises(GoogleAuthError) as caught:
        GoogleAuth(scopes=CAL, service_account_key_path=str(missing)).credentials()
    assert caught.value.setting == "service_account_key_path"
    assert "'sa.json' does not exist" in caught.value.reason
    assert "set service_account_key_path" in caught.value.reason
    # The reason (which guidance shows the agent) names the file; the person gets the path.
    assert str(tmp_path) not in caught.value.reason
    assert caught.value.path == str(missing) and str(missing) in str(caught.value)


def test_a_malformed_service_account_key_names_the_setting(write_json, service_account_info):
    path = write_json("sa.json", "{not json")
    with pytest.raises(GoogleAuthError, match="not readable JSON"):
        GoogleAuth(scopes=CAL, service_account_key_path=path).credentials()
    broken = {**service_account_info, "private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n"}
    for key in (broken, {"type": "service_account"}):
        with pytest.raises(GoogleAuthError) as caught:
            GoogleAuth(scopes=CAL, service_account_key=key).credentials()
        assert caught.value.setting == "service_account_key"
        assert "not a usable Google service account key" in caught.value.reason


def test_a_bad_auth_flow_is_a_value_error_for_the_person():
    with pytest.raises(
        ValueError, match="auth_flow must be 'local', 'console' or 'none', not 'web'"
    ):
        GoogleAuth(scopes=CAL, auth_flow="web")  # type: ignore[arg-type]


def test_reader_timezones_are_checked_for_the_person():
    with pytest.raises(ValueError) as caught:
        GmailReader(transport=sample_mailbox(), timezone="Mars/Olympus")
    assert "'Mars/Olympus'" in str(caught.value) and "Europe/Paris" in str(caught.value)
    reader = GmailReader(transport=sample_mailbox(), timezone="Asia/Kolkata")
    assert reader.tz == ZoneInfo("Asia/Kolkata")


def test_a_calendar_zone_this_machine_does_not_know_is_a_loader_error():
    reader = GoogleCalendarReader(transport=FakeCalendar(timezone="Mars/Olympus"))
    with pytest.raises(GoogleLoaderError, match="'Mars/Olympus' is not in this machine"):
        reader.calendar_timezone()


def test_the_loader_page_testing_example_runs(no_backoff_sleep):
    page = (LOADER / "README.md").read_text(encoding="utf-8")
    code = re.findall(r"```python\n(.*?)```", page, re.DOTALL)[-1]
    namespace: dict = {}
    exec(compile(code, "loaders/google/README.md", "exec"), namespace)
    assert namespace["gmail"].fail[("GET", "/messages")] == []  # every 429 was served
    assert len(no_backoff_sleep) == 3
    assert all(wait >= 2 for wait in no_backoff_sleep)  # Retry-After: 2 was honoured


def test_a_reader_says_which_scopes_its_credentials_hold():
    # The spec asks its reader (issue 39): the loader owns the client and the credentials.
    from google.oauth2.credentials import Credentials

    from toolspecs.loaders.google import GmailReader
    from toolspecs.loaders.google.testing import FakeGmail

    readonly = "https://www.googleapis.com/auth/gmail.readonly"
    signed_in = GmailReader(creds=Credentials(token="ya29.fake", scopes=[readonly]))
    assert signed_in.granted_scopes() == [readonly]  # valid as they are: nothing is sent
    assert GmailReader(transport=FakeGmail()).granted_scopes() is None  # a fake says nothing
