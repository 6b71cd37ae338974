"""A sign-in whose consent page another program shows: the address now, the token later.

For a process that cannot open a browser (an MCP server whose client shows the address).
It listens on a free port of 127.0.0.1 (the loopback redirect Google allows Desktop
clients) and exchanges the code (PKCE) when the browser comes back.

Security: only the answer carrying this sign-in's ``state`` is taken (another page or a
forged redirect is refused and the wait goes on); each connection has its own thread and
5 s to send its request, so an idle one blocks nothing; the request line (it carries
the code) is never logged; the port closes once answered, on ``close()``, or after
:data:`LIFETIME` seconds. It works where the browser runs on the serving machine; a
networked server signs users in with Google instead (``--google-sign-in``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from toolspecs.loaders.google.errors import GoogleAuthError, GoogleUnreachable, unreachable

# Seconds a started sign-in waits for the browser at most, whoever waits for it.
LIFETIME = 600.0
# Seconds the code's exchange at Google's token endpoint may take.
EXCHANGE_SECONDS = 10.0

_DONE_PAGE = (
    b"<!doctype html><title>Signed in</title>"
    b"<p>Signed in. You can close this window and go back to your assistant.</p>"
)
_FAILED_PAGE = (
    b"<!doctype html><title>Not signed in</title>"
    b"<p>The sign-in did not work. Go back to your assistant: it says what happened.</p>"
)


class LoopbackSignIn:
    """One started sign-in: :attr:`url` for the person, :meth:`wait` for its credentials.

    The code is exchanged and ``keep`` called as soon as the browser comes back (whoever
    waits), and the browser's page says whether that worked.
    """

    def __init__(self, flow: Any, keep: Callable[[Any], Any], port: int = 0) -> None:
        self._flow = flow
        self._keep = keep
        self._done = threading.Event()  # the answer taken (or closed without one)
        self._closed = threading.Event()
        self._taking = threading.Lock()  # one answer is taken, whatever comes at once
        self._creds: Any = None
        self._error: BaseException | None = None
        # A thread per connection, each bounded in time: an idle one blocks nothing.
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self._server.block_on_close = False
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
        """Wait up to ``seconds`` for the browser: the credentials, already kept."""
        if not self._done.wait(seconds):
            raise GoogleAuthError(
                f"the Google sign-in was not finished within {seconds:g} s: open the "
                "sign-in address and allow access, then try again",
                "auth_flow",
            )
        if self._error is not None:
            raise self._error
        if self._creds is None:
            raise GoogleAuthError(
                "the Google sign-in was closed before the browser came back: start it again",
                "auth_flow",
            )
        return self._creds

    def _take(self, answer: dict[str, str]) -> None:
        try:
            self._creds = self._exchange(answer)
        except (GoogleAuthError, GoogleUnreachable) as exc:
            self._error = exc
        finally:
            self._done.set()
            self.close()

    def _exchange(self, answer: dict[str, str]) -> Any:
        if "code" not in answer:
            said = re.sub(r"[^A-Za-z0-9_.-]", "", answer.get("error", "no code"))[:60]
            raise GoogleAuthError(
                f"Google gave no access: the person did not allow it ({said})", "auth_flow"
            )
        import requests
        from oauthlib.oauth2.rfc6749.errors import OAuth2Error

        try:
            self._flow.fetch_token(code=answer["code"], timeout=EXCHANGE_SECONDS)
        except requests.RequestException as exc:  # read as every Google request's is
            uri = str(self._flow.client_config.get("token_uri") or "https://oauth2.googleapis.com")
            host = urlsplit(uri).hostname or "Google"
            raise unreachable(exc, uri) or GoogleUnreachable(host, resolved=True) from exc
        except OAuth2Error as exc:  # never its body: it is the token endpoint's answer
            raise GoogleAuthError(
                f"Google refused the sign-in's code ({exc.error}): sign in again", "auth_flow"
            ) from exc
        creds = self._flow.credentials
        self._keep(creds)
        return creds

    def close(self) -> None:
        """Stop listening (idempotent); a :meth:`wait` still waiting gives up."""
        if self._closed.is_set():
            return
        self._closed.set()
        self._timer.cancel()
        self._done.set()  # wakes a waiter: with no answer, it says it was closed
        threading.Thread(target=self._stop, daemon=True).start()

    def _stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Redirect(BaseHTTPRequestHandler):
            timeout = 5  # seconds a connection may take to send its request

            def do_GET(self) -> None:
                query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
                if query.get("state") != owner._state or not owner._taking.acquire(False):
                    self.send_error(400, "Not the sign-in this server is waiting for")
                    return
                if owner._done.is_set():  # closed, or given up, before it came
                    self.send_error(410, "This sign-in is over: start it again")
                    return
                owner._take(query)  # exchanged before the page says how it went
                self._page(owner._error)

            def _page(self, error: BaseException | None) -> None:
                body = _DONE_PAGE if error is None else _FAILED_PAGE
                self.send_response(200 if error is None else 400)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the request line carries the code: never logged

        return Redirect
