"""A sign-in whose consent page another program shows: the address now, the token later.

For a process that cannot open a browser itself (an MCP server: its client shows the
person the address, :mod:`toolspecs.mcp.client_signin`). :func:`start` reads the OAuth
client file, listens on a free port of 127.0.0.1 (the loopback redirect Google allows
for Desktop app clients, any port) and returns a :class:`LoopbackSignIn` whose ``url`` is
Google's consent page. When the person's browser comes back to the port with a code,
:meth:`LoopbackSignIn.wait` exchanges it (PKCE, as google_auth_oauthlib asks) and hands
the credentials to ``keep`` (``GoogleAuth`` saves them as any sign-in's).

Only the one answer Google sends back is taken: a request to the port without this
sign-in's ``state`` (another page, a forged redirect) is refused and the wait goes on.
The port is closed once the answer came, on :meth:`LoopbackSignIn.close`, or after
:data:`LIFETIME` seconds, whichever is first. This works where the person's browser runs
on the machine that serves (a desktop client starting a stdio server); a server that
others reach over the network signs its users in with Google instead
(``toolspecs serve --google-sign-in``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from toolspecs.loaders.google.errors import GoogleAuthError, GoogleUnreachable
from toolspecs.loaders.google.flow import client_flow

# Seconds a started sign-in waits for the browser at most, whoever waits for it.
LIFETIME = 600.0
# Seconds the code's exchange at Google's token endpoint may take.
EXCHANGE_SECONDS = 10.0

_DONE_PAGE = (
    b"<!doctype html><title>Signed in</title>"
    b"<p>Google answered. You can close this window and go back to your assistant.</p>"
)


class LoopbackSignIn:
    """One started sign-in: :attr:`url` for the person, :meth:`wait` for its credentials.

    Args:
        flow: google_auth_oauthlib's flow of the OAuth client, for the scopes asked.
        keep: Called with the new credentials (to save them) before :meth:`wait` returns.
        port: The port to listen on (0: a free one).
    """

    def __init__(self, flow: Any, keep: Callable[[Any], Any], port: int = 0) -> None:
        self._flow = flow
        self._keep = keep
        self._answered = threading.Event()
        self._closed = threading.Event()
        self._answer: dict[str, str] = {}
        self._lock = threading.Lock()
        self._creds: Any = None
        self._server = HTTPServer(("127.0.0.1", port), self._handler())
        flow.redirect_uri = f"http://127.0.0.1:{self._server.server_address[1]}/"
        self.url: str
        self.url, self._state = flow.authorization_url(access_type="offline", prompt="consent")
        threading.Thread(target=self._server.serve_forever, args=(0.2,), daemon=True).start()
        self._timer = threading.Timer(LIFETIME, self.close)
        self._timer.daemon = True
        self._timer.start()

    @property
    def closed(self) -> bool:
        """Whether it no longer waits for the browser (answered, closed or too late)."""
        return self._closed.is_set()

    def wait(self, seconds: float) -> Any:
        """Wait up to ``seconds`` for the browser, then the credentials (kept first).

        Called again after success, the same credentials.

        Raises:
            GoogleAuthError: When no answer came in time, the person refused at Google,
                or Google refused the code.
            GoogleUnreachable: When Google's token endpoint did not answer.
        """
        with self._lock:
            if self._creds is not None:
                return self._creds
            answered = self._answered.wait(seconds)
            if not self._answer:
                if not answered:
                    raise GoogleAuthError(
                        f"the Google sign-in was not finished within {seconds:g} s: open the "
                        "sign-in address and allow access, then try again",
                        "auth_flow",
                    )
                raise GoogleAuthError(
                    "the Google sign-in was closed before the browser came back: start it again",
                    "auth_flow",
                )
            try:
                return self._exchange()
            finally:
                self.close()

    def _exchange(self) -> Any:
        answer = self._answer
        if "code" not in answer:
            said = re.sub(r"[^A-Za-z0-9_.-]", "", answer.get("error", "no code"))[:60]
            raise GoogleAuthError(
                f"Google gave no access: the person did not allow it ({said})", "auth_flow"
            )
        import requests
        from oauthlib.oauth2.rfc6749.errors import OAuth2Error

        try:
            self._flow.fetch_token(code=answer["code"], timeout=EXCHANGE_SECONDS)
        except requests.RequestException as exc:
            resolved = not isinstance(exc, requests.ConnectionError) or "resolve" not in str(exc)
            raise GoogleUnreachable("oauth2.googleapis.com", resolved=resolved) from exc
        except OAuth2Error as exc:  # never its body: it is the token endpoint's answer
            raise GoogleAuthError(
                f"Google refused the sign-in's code ({exc.error}): sign in again", "auth_flow"
            ) from exc
        creds = self._flow.credentials
        self._keep(creds)
        self._creds = creds
        return creds

    def close(self) -> None:
        """Stop listening (idempotent); a :meth:`wait` still waiting gives up."""
        if self._closed.is_set():
            return
        self._closed.set()
        self._timer.cancel()
        self._answered.set()  # wakes a waiter: with no answer, it says it was closed
        threading.Thread(target=self._stop, daemon=True).start()

    def _stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Redirect(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
                if owner._answered.is_set() or query.get("state") != owner._state:
                    self.send_error(400, "Not the sign-in this server is waiting for")
                    return
                owner._answer = query
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(_DONE_PAGE)))
                self.end_headers()
                self.wfile.write(_DONE_PAGE)
                owner._answered.set()

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the request line carries the code: never logged

        return Redirect


def start(
    scopes: Sequence[str], credentials_path: str, keep: Callable[[Any], Any], port: int = 0
) -> LoopbackSignIn:
    """Start a sign-in for ``scopes`` with the OAuth client of ``credentials_path``.

    Raises:
        GoogleAuthError: No OAuth client file, or a malformed one.
        OSError: When ``port`` cannot be listened on.
    """
    return LoopbackSignIn(client_flow(scopes, credentials_path), keep, port)
