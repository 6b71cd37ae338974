"""GoogleAuth: the LlamaHub keywords, token files per scope set written 0600, no stray keys."""

from __future__ import annotations

import json
import stat

import pytest

from toolspecs.loaders.google import GoogleAuth, GoogleAuthError, scope_label

CAL = ["https://www.googleapis.com/auth/calendar"]
GMAIL = ["https://www.googleapis.com/auth/gmail.compose"]


def user_token(expired: bool) -> dict:
    return {
        "token": "access", "refresh_token": "refresh", "client_id": "cid",
        "client_secret": "secret", "token_uri": "https://oauth2.googleapis.com/token",
        "expiry": "2020-01-01T00:00:00Z" if expired else "2999-01-01T00:00:00Z",
        "scopes": CAL,
    }  # fmt: skip


def test_token_json_as_llamahub_and_a_file_of_its_own_per_scope_set():
    assert GoogleAuth(scopes=CAL).token_path == "token.json"
    assert GoogleAuth(scopes=CAL).own_token_path == "token.calendar.json"
    assert GoogleAuth(scopes=GMAIL).own_token_path == "token.gmail.json"
    assert GoogleAuth(scopes=CAL, token_path="/t/tok.json").own_token_path == "/t/tok.calendar.json"
    assert GoogleAuth(scopes=CAL, token_path="token.calendar.json").own_token_path == (
        "token.calendar.json"
    )
    assert scope_label(CAL + GMAIL) == "calendar+gmail"


def test_expired_tokens_refresh_and_are_written_owner_only(tmp_path, monkeypatch):
    path = tmp_path / "token.calendar.json"
    path.write_text(json.dumps(user_token(expired=True)))
    path.chmod(0o644)

    def refresh(self, request):
        self.token = "fresh"
        self.expiry = None

    monkeypatch.setattr("google.oauth2.credentials.Credentials.refresh", refresh)
    creds = GoogleAuth(scopes=CAL, token_path=str(path)).credentials()
    assert creds.token == "fresh"
    assert json.loads(path.read_text())["token"] == "fresh"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_is_cloud_writes_no_token(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(
        "google.oauth2.credentials.Credentials.refresh",
        lambda self, request: setattr(self, "expiry", None),
    )
    GoogleAuth(
        scopes=CAL, authorized_user_info=user_token(expired=True), is_cloud=True
    ).credentials()
    assert list(tmp_path.iterdir()) == []


def test_a_valid_token_is_used_as_it_is(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(user_token(expired=False)))
    assert GoogleAuth(scopes=CAL, token_path=str(path)).credentials().token == "access"


def test_ready_creds_win():
    marker = object()
    assert GoogleAuth(scopes=CAL, creds=marker).credentials() is marker


def test_service_account_acts_for_a_subject(service_account_info):
    creds = GoogleAuth(
        scopes=CAL, service_account_key=service_account_info, subject="ada@example.com"
    ).credentials()
    assert creds.service_account_email == "bot@p.iam.gserviceaccount.com"
    assert creds._subject == "ada@example.com"


def test_a_stray_key_file_is_not_picked_up(tmp_path, monkeypatch, caplog, service_account_info):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "service_account_key.json").write_text(json.dumps(service_account_info))
    with pytest.raises(GoogleAuthError, match="no OAuth client file"):
        GoogleAuth(scopes=CAL).credentials()
    assert "ignoring service_account_key.json" in caplog.text


def test_a_named_key_file_is_used(tmp_path, service_account_info):
    key = tmp_path / "sa.json"
    key.write_text(json.dumps(service_account_info))
    creds = GoogleAuth(scopes=CAL, service_account_key_path=str(key)).credentials()
    assert creds.service_account_email == "bot@p.iam.gserviceaccount.com"


def test_console_flow_reads_back_the_redirect(tmp_path, monkeypatch, capsys):
    client = tmp_path / "credentials.json"
    client.write_text(json.dumps({"installed": {
        "client_id": "cid.apps.googleusercontent.com", "client_secret": "s",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
        "redirect_uris": ["http://localhost"],
    }}))  # fmt: skip
    seen = {}

    def fetch_token(self, **kwargs):
        seen.update(kwargs)
        self.oauth2session.token = {
            "access_token": "a",
            "refresh_token": "r",
            "expires_at": 4102444800,
        }

    monkeypatch.setattr("google_auth_oauthlib.flow.Flow.fetch_token", fetch_token)
    auth = GoogleAuth(
        scopes=CAL,
        credentials_path=str(client),
        token_path=str(tmp_path / "tok.json"),
        auth_flow="console",
        prompt=lambda _: "http://localhost:8080/?state=x&code=abc&scope=calendar",
    )
    auth.credentials()
    assert "accounts.google.com/o/oauth2/auth" in capsys.readouterr().out
    assert seen["authorization_response"].startswith("https://localhost:8080/?state=x&code=abc")
    assert stat.S_IMODE((tmp_path / "tok.json").stat().st_mode) == 0o600


def test_the_token_is_written_whole_never_through_a_symlink(tmp_path):
    from toolspecs.loaders.google import write_private

    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("keep me")
    link = tmp_path / "tokens" / "token.gmail.json"
    link.parent.mkdir()
    link.symlink_to(elsewhere)
    write_private(link, '{"token": "t"}')
    assert elsewhere.read_text() == "keep me"  # the link was replaced, not followed
    assert not link.is_symlink() and link.read_text() == '{"token": "t"}'
    assert stat.S_IMODE(link.stat().st_mode) == 0o600
    assert sorted(p.name for p in link.parent.iterdir()) == ["token.gmail.json"]  # no temp left


def test_the_token_folder_is_created(tmp_path):
    from toolspecs.loaders.google import write_private

    path = tmp_path / "new" / "dir" / "token.calendar.json"
    write_private(path, "{}")
    assert path.read_text() == "{}" and stat.S_IMODE(path.stat().st_mode) == 0o600
