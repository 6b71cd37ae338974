"""Google on 127.0.0.1: the fakes served over real HTTP, with Google's OAuth endpoints.

:class:`FakeGoogleServer` serves a :class:`~.calendar.FakeCalendar`, a
:class:`~.gmail.FakeGmail` and a :class:`~.oauth.FakeGoogleOAuth` from a stdlib
``ThreadingHTTPServer`` in a daemon thread, on a free port of 127.0.0.1, so that a spec
built as a user builds it (``creds=``, a token file, a service account) reaches it through
google-auth, ``google_auth_httplib2``, googleapiclient (its batch code too) and httplib2::

    with FakeGoogleServer(gmail=sample_mailbox()) as google:
        refresh = google.oauth.grant("ada@example.com", GMAIL_SCOPES)
        creds = Credentials(None, refresh_token=refresh, token_uri=google.token_uri,
                            client_id=google.client_id, client_secret=google.client_secret)
        spec = GmailToolSpec(creds=creds, client_options=google.client_options)
        # or a token file: GmailToolSpec(token_path=..., token_uri=google.token_uri, ...)

Paths, as Google's hosts serve them (``client_options={"api_endpoint": server.url}``
points googleapiclient here):

- ``/calendar/v3/...`` and ``/batch/calendar/v3``: the calendar;
- ``/gmail/v1/...``, ``/upload/gmail/v1/...``, ``/batch/gmail/v1`` and ``/batch`` (Gmail's
  ``batchPath``): the mailbox;
- ``POST /token`` (:attr:`FakeGoogleServer.token_uri`: in ``Credentials`` and service
  account keys made for this server, or the specs' ``token_uri=`` for a token file, whose
  own ``token_uri`` google-auth ignores; a refresh-token grant, checked against the OAuth
  client, or a service account's JWT-bearer grant) and ``POST /revoke``:
  :class:`~.oauth.FakeGoogleOAuth`.

Each call, each call of a batch included, is checked as Google checks it, before the fake
answers: its ``Authorization: Bearer`` token must be one the OAuth fake gave or accepts
(:meth:`~.oauth.FakeGoogleOAuth.bearer`), else Google's 401 (``UNAUTHENTICATED``, reason
``authError``); its scopes must include one the discovery document lists for the method,
else Google's 403 (``insufficientPermissions``). A service account acting as itself (a
token got without a subject) has no mailbox and no calendar of the user's:

- Gmail answers every call with 400 ``failedPrecondition`` "Precondition check failed.",
  as Gmail does;
- Calendar serves it the calendars shared with it (:attr:`FakeGoogleServer.shared_calendars`,
  by id; default the fake's own user's, ``ada@example.com``) and nothing else: any other
  calendar, ``primary`` included (the fake keeps no calendar of the account's own), is
  404 ``notFound``; its calendar list (``calendarList.list``) is empty, since sharing a
  calendar with an account does not add it to that account's list. Free/busy is answered.

A sandbox (``toolspecs serve --sandbox`` with ``--google-sign-in`` or ``--google-delegate``)
signs people in at another Google (the real one, or a test's fake) and sends their tokens
here with the sample data: :attr:`FakeGoogleServer.other_tokens` takes a bearer token the
OAuth fake never gave nor was told of, as such a Google's, unchecked (its scopes are that
Google's to check). A token the fake knows is checked as above, whatever the setting.

:meth:`FakeGoogleServer.user_credentials` gives google-auth ``Credentials`` as a user holds
them after signing in: an access token the server takes for an hour, and a refresh token
renewed at :attr:`~FakeGoogleServer.token_uri`.

A request the fake refuses as a bug of the caller (a body that does not match the
discovery document: :class:`~.http.SchemaError`) is answered 400 and kept in
:attr:`FakeGoogleServer.errors`, for the test to assert empty.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from toolspecs.loaders.google.testing.calendar import FakeCalendar
from toolspecs.loaders.google.testing.gmail import FakeGmail
from toolspecs.loaders.google.testing.http import FakeGoogleHttp, Reply
from toolspecs.loaders.google.testing.oauth import FakeGoogleOAuth

__all__ = ["FakeGoogleServer"]

CLIENT_ID = "1234567890-fake.apps.googleusercontent.com"
CLIENT_SECRET = "GOCSPX-fake-secret"
UNAUTHENTICATED = (
    "Request had invalid authentication credentials. Expected OAuth 2 access token, login "
    "cookie or other valid authentication credential. See "
    "https://developers.google.com/identity/sign-in/web/devconsole-project."
)
BEARER_REFUSED = 'Bearer realm="https://accounts.google.com/", error="invalid_token"'


def google_error(
    fake: FakeGoogleHttp,
    status: int,
    reason: str,
    message: str,
    state: str,
    headers: dict[str, str] | None = None,
) -> Reply:
    """An error as Google's APIs send it, its ``status`` (``UNAUTHENTICATED``) included."""
    body = {
        "error": {
            "code": status,
            "message": message,
            "errors": [{"message": message, "domain": "global", "reason": reason}],
            "status": state,
        }
    }
    return fake.reply(status, body, headers)


class FakeGoogleServer:
    """The Google fakes on 127.0.0.1 (see the module docstring); start it, or use ``with``.

    Args:
        calendar: The calendar served (default an empty ``FakeCalendar``).
        gmail: The mailbox served (default an empty ``FakeGmail``).
        oauth: Google's OAuth endpoints (default one OAuth client, :data:`CLIENT_ID`).

    Attributes:
        shared_calendars: The calendars a service account acting as itself may read.
        other_tokens: Take a bearer token the OAuth fake does not know, as another
            Google's (a sandbox behind a sign-in elsewhere); default ``False``: Google's 401.
        errors: The requests the fake refused as a caller's bug.
    """

    def __init__(
        self,
        calendar: FakeCalendar | None = None,
        gmail: FakeGmail | None = None,
        oauth: FakeGoogleOAuth | None = None,
    ) -> None:
        self.shared_calendars: set[str] = {"ada@example.com"}
        # A bearer token the OAuth fake does not know: another Google's (see the module).
        self.other_tokens = False
        self._serial = itertools.count(1)
        self.errors: list[BaseException] = []
        self._web: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.calendar = calendar or FakeCalendar()
        self.gmail = gmail or FakeGmail()
        self.oauth = oauth or FakeGoogleOAuth(CLIENT_ID, CLIENT_SECRET)
        self.use(self.calendar, self.gmail, self.oauth)

    # -- what is served ------------------------------------------------------------------

    def use(
        self,
        calendar: FakeCalendar | None = None,
        gmail: FakeGmail | None = None,
        oauth: FakeGoogleOAuth | None = None,
    ) -> None:
        """Serve these fakes from now on (new ones: a test's own data, the port kept)."""
        if calendar is not None:
            calendar.gate = lambda m, p, h: self._gate(calendar, m, p, h)
            self.calendar = calendar
        if gmail is not None:
            gmail.gate = lambda m, p, h: self._gate(gmail, m, p, h)
            self.gmail = gmail
        if oauth is not None:
            self.oauth = oauth
            self._point(oauth)
        self.errors = []

    @property
    def client_id(self) -> str:
        """The OAuth client of the OAuth fake."""
        return self.oauth.client_id

    @property
    def client_secret(self) -> str:
        """Its secret."""
        return self.oauth.client_secret

    # -- where -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>/``: Google's API root here (the server must be started)."""
        if self._web is None:
            raise RuntimeError("the FakeGoogleServer is not started: call start() or use `with`")
        return f"http://127.0.0.1:{self._web.server_address[1]}/"

    @property
    def client_options(self) -> dict[str, str]:
        """What a spec or reader is given to send its requests here."""
        return {"api_endpoint": self.url}

    @property
    def token_uri(self) -> str:
        """The token endpoint, for token files, ``authorized_user_info`` and keys."""
        return f"{self.url}token"

    @property
    def revoke_uri(self) -> str:
        """The revoke endpoint."""
        return f"{self.url}revoke"

    def user_credentials(self, email: str, scopes: Sequence[str]) -> Any:
        """google-auth ``Credentials`` of ``email``, as held after signing in for ``scopes``.

        The OAuth fake is told of the consent (a refresh token for ``scopes``) and of an
        access token it gave for an hour; the credentials carry both, the OAuth client
        and :attr:`token_uri`, so a refresh (the hour gone, a 401) is asked of this server.
        The server must be started.

        Returns:
            A ``google.oauth2.credentials.Credentials``.
        """
        from google.oauth2.credentials import Credentials

        refresh = self.oauth.grant(email, list(scopes))
        token = f"ya29.fake-signed-in-{next(self._serial)}"
        given = self.oauth.accept(token, email, list(scopes), expires_in=3600)
        # When the fake stops taking it, as google-auth keeps an expiry: naive UTC.
        expiry = dt.datetime.fromtimestamp(given.expires, dt.timezone.utc).replace(tzinfo=None)
        return Credentials(  # type: ignore[no-untyped-call]
            token,
            refresh_token=refresh,
            token_uri=self.token_uri,
            client_id=self.client_id,
            client_secret=self.client_secret,
            scopes=list(scopes),
            expiry=expiry,
        )

    def _point(self, oauth: FakeGoogleOAuth) -> None:
        if self._web is not None:
            oauth.token_url = self.token_uri
            oauth.revoke_url = self.revoke_uri

    # -- running -----------------------------------------------------------------------

    def start(self) -> FakeGoogleServer:
        """Listen on a free port of 127.0.0.1, answering from a daemon thread."""
        if self._web is not None:
            return self
        owner = self

        class Handler(_Handler):
            server_owner = owner

        self._web = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._web.daemon_threads = True
        # Polled every 0.1 s for stop(): a test's `with` ends without waiting half a second.
        self._thread = threading.Thread(
            target=self._web.serve_forever, args=(0.1,), name="fake-google", daemon=True
        )
        self._thread.start()
        self._point(self.oauth)
        return self

    def stop(self) -> None:
        """Stop listening (idempotent)."""
        web, self._web = self._web, None
        if web is not None:
            web.shutdown()
            web.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> FakeGoogleServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- answering ---------------------------------------------------------------------

    def answer(
        self, method: str, target: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        """One HTTP request: its status, headers and body."""
        path = urlsplit(target).path
        if path in ("/token", "/revoke"):
            url = (self.token_uri if path == "/token" else self.revoke_uri) + (
                "?" + urlsplit(target).query if urlsplit(target).query else ""
            )
            status, answer = self.oauth.answer(method, url, body, headers)
            data = json.dumps(answer).encode()
            return status, {"content-type": "application/json; charset=utf-8"}, data
        fake = self._fake_for(path)
        if fake is None:
            return 404, {"content-type": "text/html; charset=UTF-8"}, b"<h1>Not Found</h1>"
        uri = f"{self.url.rstrip('/')}{target}"
        try:
            response, content = fake.request(uri, method, body or None, headers)
        except Exception as exc:
            self.errors.append(exc)
            response, content = fake.error(400, "invalid", f"The fake refused it: {exc}")
        fields = {
            str(k).lower(): str(v)
            for k, v in response.items()
            if k != "status" and not str(k).startswith("-")
        }
        return int(response.status), fields, content

    def _fake_for(self, path: str) -> FakeGoogleHttp | None:
        if path.startswith("/calendar/v3/") or path == "/batch/calendar/v3":
            return self.calendar
        if path.startswith(("/gmail/v1/", "/upload/gmail/v1/")) or path in (
            "/batch",
            "/batch/gmail/v1",
        ):
            return self.gmail
        return None

    def _gate(
        self, fake: FakeGoogleHttp, method: str, path: str, headers: dict[str, str]
    ) -> Reply | None:
        """Google's checks of one call's credentials (see the module docstring)."""
        auth = headers.get("authorization", "")
        token = auth[7:].strip() if auth[:7].lower() == "bearer " else ""
        found = self.oauth.bearer(token) if token else None
        if found is None and token and self.other_tokens and not self._known(token):
            return None  # another Google's token: that Google checked it
        if found is None:
            refused = {"www-authenticate": BEARER_REFUSED}
            return google_error(fake, 401, "authError", UNAUTHENTICATED, "UNAUTHENTICATED", refused)
        accepted = fake.scopes_accepted(method, path)
        if accepted is not None and not set(accepted) & set(found.scopes):
            return google_error(
                fake,
                403,
                "insufficientPermissions",
                "Request had insufficient authentication scopes.",
                "PERMISSION_DENIED",
            )
        if found.service_account:
            return self._as_service_account(fake, method, path)
        return None

    def _known(self, token: str) -> bool:
        """Whether the OAuth fake gave ``token``, was told of it, or refuses it."""
        return token in self.oauth.tokens or token in self.oauth.revoked

    def _as_service_account(self, fake: FakeGoogleHttp, method: str, path: str) -> Reply | None:
        """A service account acting as itself: no mailbox, only calendars shared with it."""
        if fake is self.gmail:
            return google_error(
                fake, 400, "failedPrecondition", "Precondition check failed.", "FAILED_PRECONDITION"
            )
        parts = path.strip("/").split("/")
        if path == "/users/me/calendarList":
            return fake.reply(200, {"kind": "calendar#calendarList", "items": []})
        if (
            len(parts) >= 2
            and parts[0] == "calendars"
            and unquote(parts[1]) in self.shared_calendars
        ):
            return None
        if path == "/freeBusy":
            return None
        return google_error(fake, 404, "notFound", "Not Found", "NOT_FOUND")


class _Handler(BaseHTTPRequestHandler):
    """Hands each request to its :class:`FakeGoogleServer`, keeping connections alive."""

    protocol_version = "HTTP/1.1"
    server_owner: FakeGoogleServer
    timeout = 60  # an idle kept-alive connection is closed after a minute
    # Headers and body leave in one segment, at once: written apart, Nagle's algorithm
    # held the body back until the client's delayed ACK (40 ms a response).
    disable_nagle_algorithm = True
    wbufsize = 1 << 16

    def _any(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        status, fields, content = self.server_owner.answer(self.command, self.path, headers, body)
        self.send_response(status)
        for name, value in fields.items():
            if name not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(content)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read :attr:`FakeGoogleHttp.requests`, not a log."""
