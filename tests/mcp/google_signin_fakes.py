"""What the Sign in with Google tests share: a fake Google, mailboxes, a server thread.

:class:`FakeGoogleAndMail` is ``FakeGoogleOAuth`` knowing each person, each with a fake
Gmail mailbox holding a message only they should read (:func:`secret_of`), and the
``httpx2.MockTransport`` the provider reaches Google through. :func:`refreshed_by_google`
answers google-auth's refresh (``requests``) with the fake's token endpoint;
:func:`served_google` serves the fake on 127.0.0.1 for other processes;
:func:`on_uvicorn` runs an app under uvicorn on a thread, on a socket already bound.
No network.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2
import responses
import uvicorn

from toolspecs.loaders.google.testing import FakeGmail
from toolspecs.loaders.google.testing.oauth import AUTHORIZE_URL, TOKEN_URL, FakeGoogleOAuth

CLIENT_ID, CLIENT_SECRET = "fake-client.apps.googleusercontent.com", "fake-secret"
SCOPES = ["https://www.googleapis.com/auth/gmail.readonly"]
SIGN_IN_ENV = {  # what `toolspecs serve --google-sign-in` reads, no shared token
    "TOOLSPECS_GOOGLE_CLIENT_ID": CLIENT_ID,
    "TOOLSPECS_GOOGLE_CLIENT_SECRET": CLIENT_SECRET,
    "TOOLSPECS_SERVE_TOKEN": "",
}


def mail(to: str, subject: str) -> bytes:
    return (
        f"From: Friend <friend@example.net>\r\nTo: {to}\r\nSubject: {subject}\r\n"
        "Date: Mon, 02 Nov 2026 09:00:00 +0000\r\nMessage-ID: <m@example.net>\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\nSee you at the quokka meeting.\r\n"
    ).encode()


def secret_of(email: str) -> str:
    return f"quokka plans of {email.split('@')[0]}"


class FakeGoogleAndMail:
    """The fake Google knowing ``people``, and each one's mailbox with their secret."""

    def __init__(self, people: Iterable[str]) -> None:
        self.google = FakeGoogleOAuth(CLIENT_ID, CLIENT_SECRET)
        self.mailboxes: dict[str, FakeGmail] = {}
        for email in people:
            self.google.add_user(email)
            box = self.mailboxes[email] = FakeGmail(email)
            box.add_message(mail(email, secret_of(email)))

    def transport(self) -> httpx2.MockTransport:
        def handle(request: httpx2.Request) -> httpx2.Response:
            status, body = self.google.answer(
                request.method, str(request.url), request.read(), request.headers
            )
            return httpx2.Response(status, json=body)

        return httpx2.MockTransport(handle)


def what_tokens_get(base: str, access: str, refresh: str, client_id: str) -> tuple[int, str]:
    """What a client's tokens get at the server at ``base``: the status of an initialize at
    ``/mcp`` with ``access``, and ``/token``'s error for a refresh with ``refresh`` (or "")."""
    with httpx2.Client(timeout=30) as http:
        called = http.post(
            f"{base}/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "a client", "version": "1"},
                },
            },
            headers={
                "Authorization": f"Bearer {access}",
                "Accept": "application/json, text/event-stream",
            },
        )
        refreshed = http.post(
            f"{base}/token",
            data={"grant_type": "refresh_token", "refresh_token": refresh, "client_id": client_id},
        )
    error = refreshed.json().get("error", "") if refreshed.status_code == 400 else ""
    return called.status_code, error


@contextlib.contextmanager
def refreshed_by_google(google: FakeGoogleOAuth) -> Iterator[responses.RequestsMock]:
    """google-auth's refresh (``requests``) answered by the fake's token endpoint."""
    mock = responses.RequestsMock(assert_all_requests_are_fired=False)

    def token(request: Any) -> tuple[int, dict, str]:
        status, body = google.answer("POST", TOKEN_URL, request.body, request.headers)
        return status, {"Content-Type": "application/json"}, json.dumps(body)

    mock.add_callback(responses.POST, TOKEN_URL, callback=token)
    with mock:
        yield mock


@contextlib.contextmanager
def on_uvicorn(app: Any, listening: socket.socket) -> Iterator[uvicorn.Server]:
    """``app`` served on ``listening`` by uvicorn on a thread (started within 30 s)."""
    web = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=web.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not web.started:
        assert time.monotonic() < deadline and thread.is_alive()
        time.sleep(0.05)
    try:
        yield web
    finally:
        web.should_exit = True
        thread.join(timeout=30)
        listening.close()


@contextlib.contextmanager
def served_google(google: FakeGoogleOAuth, consent_as: str | None = None) -> Iterator[str]:
    """``google`` on 127.0.0.1, for a server in another process: its base URL.

    ``POST /token`` is its token endpoint (``google.token_url`` is set to it, as a key or
    client file names it); ``GET /auth`` its consent page, where ``consent_as`` agrees and
    the browser is sent back (without ``consent_as``: 404).
    """

    class Google(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if consent_as is None:
                self.send_error(404)
                return
            query = self.path.partition("?")[2]
            self.send_response(302)
            self.send_header("Location", google.consent(f"{AUTHORIZE_URL}?{query}", consent_as))
            self.end_headers()

        def do_POST(self) -> None:
            body = self.rfile.read(min(int(self.headers.get("Content-Length", 0)), 65536))
            status, answer = google.answer("POST", google.token_url, body, self.headers)
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    web = ThreadingHTTPServer(("127.0.0.1", 0), Google)
    thread = threading.Thread(target=web.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{web.server_address[1]}"
    google.token_url = f"{base}/token"
    try:
        yield base
    finally:
        web.shutdown()
        thread.join(timeout=30)
        web.server_close()


class _Form(HTMLParser):
    """The one form of a page: its action, its hidden fields, its buttons' values."""

    def __init__(self) -> None:
        super().__init__()
        self.action = ""
        self.fields: dict[str, str] = {}
        self.buttons: dict[str, tuple[str, str]] = {}  # value -> (name, value)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        got = {k: v or "" for k, v in attrs}
        if tag == "form":
            assert got.get("method") == "post"
            self.action = got["action"]
        elif tag == "input" and got.get("type") == "hidden":
            self.fields[got["name"]] = got.get("value", "")
        elif tag == "button":
            self.buttons[got["value"]] = (got["name"], got["value"])


def consent_form(page: httpx2.Response, decision: str = "approve") -> tuple[str, dict[str, str]]:
    """Where a click on the consent page's ``decision`` button posts, and what it posts."""
    assert page.status_code == 200, page.text
    form = _Form()
    form.feed(page.text)
    name, value = form.buttons[decision]
    return form.action, {**form.fields, name: value}
