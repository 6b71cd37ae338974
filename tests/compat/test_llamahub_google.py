"""LlamaHub's own Google tests, run against our specs.

A rewrite, in our words, of ``tests/test_tools_google.py`` of llama-index-tools-google
0.8.0 (run-llama/llama_index): the same assertions and the same mocks (``unittest.mock``
here, as there; the one place our tests mock instead of faking the transport), with the
import changed to our packages.

One difference: LlamaHub's ``test_class`` also checks ``GoogleSearchToolSpec``, a spec we
do not ship; its assertions for the two classes we do ship are kept.

Each test runs in an empty working directory, as LlamaHub's run in a checkout without
``token.json`` or ``credentials.json``.
"""

from __future__ import annotations

from unittest.mock import Mock, mock_open, patch

import pytest
from llama_index.core.tools.tool_spec.base import BaseToolSpec

from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

CALENDAR = ["https://www.googleapis.com/auth/calendar"]
GMAIL = [
    "https://www.googleapis.com/auth/gmail.compose",
    "https://www.googleapis.com/auth/gmail.readonly",
]
SA_KEY = {"type": "service_account", "project_id": "test"}


@pytest.fixture(autouse=True)
def _empty_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def _is_a_tool_spec(cls: type) -> bool:
    return BaseToolSpec.__name__ in [base.__name__ for base in cls.__mro__]


def test_class():
    # LlamaHub checks GoogleSearchToolSpec here too: we do not ship one.
    assert _is_a_tool_spec(GoogleCalendarToolSpec)
    assert _is_a_tool_spec(GmailToolSpec)


# --- Google Calendar ---------------------------------------------------------------


def test_calendar_without_creds_has_none():
    assert GoogleCalendarToolSpec().creds is None


def test_calendar_keeps_the_creds_given():
    given = Mock()
    assert GoogleCalendarToolSpec(creds=given).creds is given


def test_calendar_get_credentials_returns_the_creds_given():
    given = Mock()
    assert GoogleCalendarToolSpec(creds=given)._get_credentials() is given


@patch("os.path.isfile")
@patch("google.oauth2.credentials.Credentials.from_authorized_user_file")
def test_calendar_reads_the_token_file_when_there_are_no_creds(from_file, isfile):
    # Only token.json "exists": no service account key file.
    isfile.side_effect = lambda path: path == "token.json"
    stored = Mock()
    stored.valid = True
    from_file.return_value = stored

    assert GoogleCalendarToolSpec()._get_credentials() is stored
    from_file.assert_called_once_with("token.json", CALENDAR)


@patch("os.path.isfile", return_value=False)
@patch("google.oauth2.service_account.Credentials.from_service_account_info")
def test_calendar_uses_a_service_account_key_dict(from_info, isfile):
    made = Mock()
    from_info.return_value = made

    spec = GoogleCalendarToolSpec(service_account_key=SA_KEY)
    assert spec._get_credentials() is made
    from_info.assert_called_once_with(SA_KEY, scopes=CALENDAR)


def test_calendar_creds_win_over_a_service_account():
    given = Mock()
    spec = GoogleCalendarToolSpec(creds=given, service_account_key=SA_KEY)
    assert spec._get_credentials() is given


def test_calendar_keeps_the_paths_given():
    spec = GoogleCalendarToolSpec(
        credentials_path="/custom/creds.json",
        token_path="/custom/token.json",
        service_account_key_path="/custom/sa.json",
    )
    assert spec.credentials_path == "/custom/creds.json"
    assert spec.token_path == "/custom/token.json"
    assert spec.service_account_key_path == "/custom/sa.json"


@patch("os.path.isfile", return_value=False)
@patch("google_auth_oauthlib.flow.InstalledAppFlow.from_client_secrets_file")
def test_calendar_in_the_cloud_writes_no_token(flow_from_file, isfile, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # ours: where a token.json would be written
    signed_in = Mock()
    signed_in.to_json.return_value = "{}"
    flow = Mock()
    flow.run_local_server.return_value = signed_in
    flow_from_file.return_value = flow

    spec = GoogleCalendarToolSpec(credentials_path="creds.json", is_cloud=True)
    with patch("builtins.open", mock_open()) as opened:
        creds = spec._get_credentials()
        opened.assert_not_called()
    assert creds is signed_in
    # Ours: tokens are written through mkstemp/os.fdopen, which open() above never sees.
    assert not list(tmp_path.iterdir())


# --- Gmail ---------------------------------------------------------------------------


def test_gmail_defaults_without_creds():
    spec = GmailToolSpec()
    assert spec.creds is None
    assert spec.credentials_path == "credentials.json"
    assert spec.token_path == "token.json"
    assert spec.is_cloud is False


def test_gmail_keeps_the_creds_given():
    given = Mock()
    assert GmailToolSpec(creds=given).creds is given


def test_gmail_get_credentials_returns_the_creds_given():
    given = Mock()
    assert GmailToolSpec(creds=given)._get_credentials() is given


@patch("os.path.isfile", return_value=False)
@patch("google.oauth2.service_account.Credentials.from_service_account_info")
def test_gmail_uses_a_service_account_key_dict(from_info, isfile):
    made = Mock()
    from_info.return_value = made

    assert GmailToolSpec(service_account_key=SA_KEY)._get_credentials() is made
    from_info.assert_called_once_with(SA_KEY, scopes=GMAIL)
