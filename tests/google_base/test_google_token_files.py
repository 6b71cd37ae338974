"""Token files: LlamaHub's ``token.json`` is used when it holds the scopes needed, and a
token granted other scopes is never used nor overwritten (the spec keeps its own file).

Real ``google.oauth2.credentials.Credentials`` JSON files, in an empty folder; the OAuth
flow is google_auth_oauthlib's own console flow, with only its token request faked.
"""

from __future__ import annotations

import json
import stat

import pytest
from google.auth.exceptions import RefreshError

from toolspecs.core import AskUser
from toolspecs.loaders.google import GoogleAuth
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

CAL = ["https://www.googleapis.com/auth/calendar"]  # LlamaHub's
# What Calendar's default tools (load_data, create_event, get_date) ask for: no more.
CAL_ASKED = [
    "https://www.googleapis.com/auth/calendar.readonly",
    "https://www.googleapis.com/auth/calendar.events",
]
GMAIL = [
    "https://www.googleapis.com/auth/gmail.compose",
    "https://www.googleapis.com/auth/gmail.readonly",
]


def token(scopes: list[str] | None, access: str, expired: bool = False) -> str:
    """A token file as google-auth writes it (``Credentials.to_json()``)."""
    info = {
        "token": access, "refresh_token": f"refresh-{access}", "client_id": "cid",
        "client_secret": "secret", "token_uri": "https://oauth2.googleapis.com/token",
        "expiry": "2020-01-01T00:00:00Z" if expired else "2999-01-01T00:00:00Z",
    }  # fmt: skip
    if scopes is not None:
        info["scopes"] = scopes
    return json.dumps(info)


@pytest.fixture
def sign_in(in_empty_dir, monkeypatch):
    """The console sign-in, for real but for Google's token endpoint.

    Returns the addresses read back, one per sign-in.
    """
    (in_empty_dir / "credentials.json").write_text(json.dumps({"installed": {
        "client_id": "cid.apps.googleusercontent.com", "client_secret": "s",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
        "redirect_uris": ["http://localhost"],
    }}))  # fmt: skip
    signed: list[str] = []

    def fetch_token(self, **kwargs):
        signed.append(kwargs["authorization_response"])
        self.oauth2session.token = {
            "access_token": "new",
            "refresh_token": "r",
            "expires_at": 4102444800,
        }

    monkeypatch.setattr("google_auth_oauthlib.flow.Flow.fetch_token", fetch_token)
    return signed


def console(spec):
    spec.auth.auth_flow = "console"
    spec.auth.prompt = lambda _: "http://localhost:8080/?state=x&code=abc"
    return spec


@pytest.mark.parametrize("scopes", [CAL, CAL + GMAIL, None], ids=["same", "more", "unsaid"])
def test_a_llamahub_token_json_holding_the_scopes_is_used(in_empty_dir, scopes):
    # "unsaid": read as LlamaHub reads it (with the scopes asked for); see below for why
    # it is never rewritten.
    # Before: Calendar looked only for token.calendar.json and asked to authorize again.
    (in_empty_dir / "token.json").write_text(token(scopes, "llamahub"))
    spec = GoogleCalendarToolSpec()
    assert spec._get_credentials().token == "llamahub"
    assert spec.authorize() == "Authorized; the token is in token.json."
    assert sorted(p.name for p in in_empty_dir.iterdir()) == ["token.json"]


def test_a_token_json_that_does_not_say_its_scopes_is_never_rewritten(
    in_empty_dir, mocked_responses
):
    # Before: refreshed, then rewritten with Calendar's scopes: Gmail's token, taken over.
    unsaid = token(None, "gmail?", expired=True)
    (in_empty_dir / "token.json").write_text(unsaid)
    mocked_responses.post(
        "https://oauth2.googleapis.com/token", json={"access_token": "fresh", "expires_in": 3600}
    )
    assert GoogleCalendarToolSpec()._get_credentials().token == "fresh"
    assert (in_empty_dir / "token.json").read_text() == unsaid
    assert sorted(p.name for p in in_empty_dir.iterdir()) == ["token.json"]


def test_a_refused_refresh_of_a_token_json_that_does_not_say_signs_in_beside_it(
    in_empty_dir, sign_in, mocked_responses
):
    # Before: "delete token.json and authorize again", when it may be Gmail's token.
    unsaid = token(None, "gmail?", expired=True)
    (in_empty_dir / "token.json").write_text(unsaid)
    mocked_responses.post(
        "https://oauth2.googleapis.com/token",
        status=400,
        json={"error": "invalid_scope", "error_description": "Bad Request"},
    )
    spec = console(GoogleCalendarToolSpec())
    assert spec.authorize() == "Authorized; the token is in token.calendar.json."
    assert len(sign_in) == 1
    assert (in_empty_dir / "token.json").read_text() == unsaid
    assert json.loads((in_empty_dir / "token.calendar.json").read_text())["scopes"] == CAL_ASKED
    # Next time the file that says it holds Calendar's scopes comes first: no refresh.
    assert GoogleCalendarToolSpec()._get_credentials().token == "new"


def test_a_sign_in_never_overwrites_a_token_json_that_does_not_say(in_empty_dir, sign_in):
    # Expired, and no refresh token to renew it with: a sign-in is the only way.
    before = json.dumps({**json.loads(token(None, "x", expired=True)), "refresh_token": None})
    (in_empty_dir / "token.json").write_text(before)
    assert console(GoogleCalendarToolSpec()).authorize() == (
        "Authorized; the token is in token.calendar.json."
    )
    assert (in_empty_dir / "token.json").read_text() == before


def test_a_refreshed_authorized_user_info_is_not_written(in_empty_dir, mocked_responses):
    # Before: written to ./token.json, refresh token and client secret included.
    info = json.loads(token(CAL, "old", expired=True))
    mocked_responses.post(
        "https://oauth2.googleapis.com/token", json={"access_token": "fresh", "expires_in": 3600}
    )
    assert GoogleCalendarToolSpec(authorized_user_info=info)._get_credentials().token == "fresh"
    assert list(in_empty_dir.iterdir()) == []


def test_a_refreshed_authorized_user_info_beside_another_token_json_is_used(
    in_empty_dir, mocked_responses
):
    # Before: GoogleAuthError "holds other Google scopes", after the refresh had worked.
    gmail_token = token(GMAIL, "gmail")
    (in_empty_dir / "token.json").write_text(gmail_token)
    info = json.loads(token(CAL, "old", expired=True))
    mocked_responses.post(
        "https://oauth2.googleapis.com/token", json={"access_token": "fresh", "expires_in": 3600}
    )
    spec = GoogleCalendarToolSpec(authorized_user_info=info)
    assert spec._get_credentials().token == "fresh"
    assert (in_empty_dir / "token.json").read_text() == gmail_token
    assert sorted(p.name for p in in_empty_dir.iterdir()) == ["token.json"]


def test_a_first_sign_in_writes_token_json_owner_only(in_empty_dir, sign_in, capsys):
    spec = console(GoogleCalendarToolSpec())
    assert spec.authorize() == "Authorized; the token is in token.json."
    assert sign_in and "accounts.google.com" in capsys.readouterr().out
    written = in_empty_dir / "token.json"
    assert json.loads(written.read_text())["scopes"] == CAL_ASKED
    assert stat.S_IMODE(written.stat().st_mode) == 0o600


def test_a_token_json_granted_other_scopes_is_not_used_nor_overwritten(in_empty_dir, sign_in):
    gmail_token = token(GMAIL, "gmail")
    (in_empty_dir / "token.json").write_text(gmail_token)
    spec = console(GoogleCalendarToolSpec())
    assert spec.authorize() == "Authorized; the token is in token.calendar.json."
    assert len(sign_in) == 1  # Gmail's token was not taken for Calendar's
    assert (in_empty_dir / "token.json").read_text() == gmail_token
    own = in_empty_dir / "token.calendar.json"
    assert json.loads(own.read_text())["scopes"] == CAL_ASKED
    assert stat.S_IMODE(own.stat().st_mode) == 0o600
    # Next time, each spec finds its own token without signing in.
    assert GoogleCalendarToolSpec()._get_credentials().token == "new"
    assert GmailToolSpec()._get_credentials().token == "gmail"
    assert len(sign_in) == 1


def test_an_earlier_per_scope_token_is_still_found(in_empty_dir):
    (in_empty_dir / "token.gmail.json").write_text(token(GMAIL, "ours"))
    assert GmailToolSpec()._get_credentials().token == "ours"


def test_a_token_granted_more_scopes_is_refreshed_but_never_narrowed(in_empty_dir, monkeypatch):
    both = token(CAL + GMAIL, "old", expired=True)
    (in_empty_dir / "token.json").write_text(both)
    asked = []

    def refresh(self, request):
        asked.append(list(self.scopes))
        self.token, self.expiry = "fresh", None

    monkeypatch.setattr("google.oauth2.credentials.Credentials.refresh", refresh)
    assert GoogleCalendarToolSpec()._get_credentials().token == "fresh"
    assert asked == [CAL]
    assert (in_empty_dir / "token.json").read_text() == both  # Gmail's grant kept
    assert sorted(p.name for p in in_empty_dir.iterdir()) == ["token.json"]


def test_a_token_holding_exactly_the_scopes_is_rewritten_after_a_refresh(in_empty_dir, monkeypatch):
    (in_empty_dir / "token.json").write_text(token(CAL, "old", expired=True))
    monkeypatch.setattr(
        "google.oauth2.credentials.Credentials.refresh",
        lambda self, request: setattr(self, "token", "fresh"),
    )
    GoogleCalendarToolSpec()._get_credentials()
    assert json.loads((in_empty_dir / "token.json").read_text())["token"] == "fresh"


def test_a_refused_refresh_names_the_file_that_was_read(in_empty_dir, monkeypatch):
    (in_empty_dir / "token.json").write_text(token(GMAIL, "gmail"))
    (in_empty_dir / "token.calendar.json").write_text(token(CAL, "cal", expired=True))

    def refuse(self, request):
        raise RefreshError("invalid_grant: Token has been expired or revoked.", {"secret": 1})

    monkeypatch.setattr("google.oauth2.credentials.Credentials.refresh", refuse)
    out = GoogleCalendarToolSpec().call_tool("load_data")
    assert isinstance(out.exception, AskUser)
    assert "delete token.calendar.json and authorize again" in out.content
    assert "invalid_grant" not in out.content and "token.json" not in out.content


def test_a_token_path_named_for_the_scopes_but_holding_others_is_not_overwritten(in_empty_dir):
    from toolspecs.loaders.google import GoogleAuthError

    odd = in_empty_dir / "token.calendar.json"
    odd.write_text(token(GMAIL, "gmail"))
    with pytest.raises(GoogleAuthError, match="holds other Google scopes"):
        GoogleAuth(scopes=CAL, token_path=str(odd)).credentials()
    assert json.loads(odd.read_text())["token"] == "gmail"


def test_the_spec_attributes_are_the_auth_settings():
    spec = GmailToolSpec(token_path="a.json")
    spec.token_path = "b.json"
    spec.is_cloud = True
    assert (spec.auth.token_path, spec.auth.is_cloud) == ("b.json", True)
    spec.auth.credentials_path = "client.json"
    assert spec.credentials_path == "client.json"


@pytest.mark.parametrize("spec_class", [GoogleCalendarToolSpec, GmailToolSpec])
def test_a_token_refresh_waits_no_longer_than_the_call_has_left(
    in_empty_dir, mocked_responses, spec_class
):
    # Before: google-auth's own 120 s per request, whatever the call's deadline (30 s), so a
    # stalled token server held the spec's client long after the agent was answered.
    from toolspecs.core import deadline

    scopes = CAL if spec_class is GoogleCalendarToolSpec else GMAIL
    (in_empty_dir / "token.json").write_text(token(scopes, "old", expired=True))
    mocked_responses.post(
        "https://oauth2.googleapis.com/token", json={"access_token": "fresh", "expires_in": 3600}
    )
    spec = spec_class()
    with deadline.running(5):
        assert spec._get_credentials().token == "fresh"
    (refresh,) = mocked_responses.calls
    assert 1 <= refresh.request.req_kwargs["timeout"] <= 5
