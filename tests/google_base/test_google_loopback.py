"""A sign-in another program shows: ``GoogleAuth.sign_in_elsewhere`` and its loopback port.

The person's browser is played by the test: it agrees at the fake Google
(``FakeGoogleOAuth.consent``, which checks the client, PKCE and the redirect) and goes
back to the address Google sends it to, a port of 127.0.0.1 this process listens on. The
code's exchange (``requests``, as google_auth_oauthlib sends it) is answered by the
fake's token endpoint through ``responses``. No network.
"""

from __future__ import annotations

import contextlib
import json
import socket
import stat
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from toolspecs.loaders.google import GoogleAuth, GoogleAuthError
from toolspecs.loaders.google.testing.oauth import AUTHORIZE_URL, TOKEN_URL, FakeGoogleOAuth

READONLY = ["https://www.googleapis.com/auth/gmail.readonly"]
ALICE = "alice@example.org"


@pytest.fixture
def google() -> Iterator[FakeGoogleOAuth]:
    fake = FakeGoogleOAuth("desk.apps.googleusercontent.com", "desk-secret")
    fake.add_user(ALICE)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:

        def token(request):
            status, body = fake.answer("POST", TOKEN_URL, request.body, request.headers)
            return status, {"Content-Type": "application/json"}, json.dumps(body)

        mock.add_callback(responses.POST, TOKEN_URL, callback=token)
        mock.add_passthru("http://127.0.0.1")  # the browser's way back to our port
        yield fake


@pytest.fixture
def auth(google, tmp_path) -> GoogleAuth:
    client = google.client_file(tmp_path / "credentials.json")
    return GoogleAuth(
        scopes=READONLY,
        credentials_path=client,
        token_path=str(tmp_path / "token.json"),
        auth_flow="none",
    )


def browse(url: str) -> int:
    """The person's browser opening ``url``: its HTTP status."""
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return refused.code


def test_the_person_signs_in_at_the_address_and_the_token_is_kept(auth, google, tmp_path):
    with pytest.raises(GoogleAuthError, match="auth_flow='none'"):
        auth.credentials()  # a server: no login of its own
    pending = auth.sign_in_elsewhere()
    assert pending.url.startswith(AUTHORIZE_URL + "?")
    back = google.consent(pending.url, ALICE)
    assert urlsplit(back).hostname == "127.0.0.1"
    assert browse(back) == 200
    pending.wait(5)
    token = tmp_path / "token.json"
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    saved = json.loads(token.read_text())
    assert saved["token"] == google.users[ALICE].access_tokens[-1]
    assert saved["scopes"] == READONLY
    creds = auth.credentials(sign_in=False)  # the next call reads it, no sign-in
    assert creds.token == saved["token"] and auth.granted == READONLY
    assert pending.closed


def test_a_request_without_the_sign_ins_state_is_refused_and_the_wait_goes_on(auth, google):
    pending = auth.sign_in_elsewhere()
    back = google.consent(pending.url, ALICE)
    port = urlsplit(back).port
    forged = f"http://127.0.0.1:{port}/?code=4/attacker-code&state=guessed"
    assert browse(forged) == 400
    assert browse(f"http://127.0.0.1:{port}/favicon.ico") == 400
    assert not pending.closed
    assert browse(back) == 200
    pending.wait(5)  # the person's code, not the forged one, was exchanged
    assert ("POST", TOKEN_URL) in google.requests


def test_a_refusal_at_google_is_a_clear_error_and_nothing_is_kept(auth, google, tmp_path):
    pending = auth.sign_in_elsewhere()
    state = parse_qs(urlsplit(pending.url).query)["state"][0]
    port = urlsplit(google.consent(pending.url, ALICE)).port
    # The browser's page says it did not work; the assistant says why.
    assert browse(f"http://127.0.0.1:{port}/?error=access_denied&state={state}") == 400
    with pytest.raises(GoogleAuthError, match="did not allow it \\(access_denied\\)"):
        pending.wait(5)
    assert not (tmp_path / "token.json").exists()


def test_no_browser_in_time_then_closed_frees_the_port(auth):
    pending = auth.sign_in_elsewhere()
    port = urlsplit(parse_qs(urlsplit(pending.url).query)["redirect_uri"][0]).port
    with pytest.raises(GoogleAuthError, match=r"not finished within 0\.1 s"):
        pending.wait(0.1)
    pending.close()
    with pytest.raises(GoogleAuthError, match="closed before the browser came back"):
        pending.wait(5)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                break
        time.sleep(0.05)
    else:
        pytest.fail("the sign-in's port is still open after close()")


def test_given_credentials_have_no_sign_in_to_start(tmp_path):
    auth = GoogleAuth(scopes=READONLY, authorized_user_info={"refresh_token": "r"})
    with pytest.raises(GoogleAuthError, match="given"):
        auth.sign_in_elsewhere()


def test_the_token_is_kept_when_the_browser_comes_back_whoever_waits(auth, google, tmp_path):
    pending = auth.sign_in_elsewhere()
    assert browse(google.consent(pending.url, ALICE)) == 200  # nobody is waiting
    assert json.loads((tmp_path / "token.json").read_text())["token"]
    assert pending.closed and pending.wait(0).token == pending.wait(5).token


def test_an_idle_connection_blocks_neither_the_browser_nor_close(auth, google):
    pending = auth.sign_in_elsewhere()
    back = google.consent(pending.url, ALICE)
    with socket.create_connection(("127.0.0.1", urlsplit(back).port)):  # says nothing
        assert browse(back) == 200
        pending.wait(5)


def test_each_waiter_keeps_its_own_time(auth):
    pending = auth.sign_in_elsewhere()
    late: list[float] = []

    def wait_long() -> None:
        with contextlib.suppress(GoogleAuthError):
            pending.wait(2)

    other = threading.Thread(target=wait_long)
    other.start()
    started = time.monotonic()
    with pytest.raises(GoogleAuthError, match="not finished"):
        pending.wait(0.1)
    late.append(time.monotonic() - started)
    pending.close()
    other.join(5)
    assert late[0] < 1.5  # not queued behind the other waiter's 2 s
