"""Sign-in: our consent page, and each sign-in bound to the browser that began it.

Why ours (issue 38): registration is open, so anyone may register a client whose redirect
is their own site. Were ``/authorize`` to send every client straight on to Google, the
person would agree to this server and our callback would send their code to that site
(the MCP best practices' "confused deputy"); and were the callback to find a sign-in by
its ``state`` alone, another person's consent could finish a sign-in someone forwarded.
So the page names the client and where it sends the person back, binds the trip to this
browser (a random cookie, its hash kept, the form's CSRF token derived from it), and the
callback completes only a trip this browser approved. FastMCP's ``OAuthProxy`` does the
same on its own server stack and storage. The page is plain HTML under a strict CSP;
nothing here logs a cookie, token, code or query string.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import logging
import re
import secrets
from collections.abc import Callable, Sequence
from typing import Any, Protocol
from urllib.parse import parse_qs, urlencode, urlsplit

from mcp.server.auth import provider
from starlette import responses, routing

from toolspecs.server.signin_state import SignInState

__all__ = ["CONSENT_PATH", "SignInConsent", "Upstream"]

logger = logging.getLogger(__name__)

CONSENT_PATH = "/oauth/consent"
_COOKIE = "toolspecs-signin-"
_MAX_FORM = 4096  # bytes of a posted form: ours is under 300

_STYLE = (
    "body{font:16px/1.5 system-ui,sans-serif;max-width:36em;margin:2em auto;padding:0 1em;"
    "color:#1f1f1f}code{word-break:break-all;background:#f1f3f4;padding:0 .2em}"
    "form{display:flex;gap:1em;margin-top:1.5em}button{font:inherit;padding:.5em 1.5em;"
    "border-radius:4px;border:1px solid #5f6368;background:#fff}"
    "button[value=approve]{background:#1a73e8;border-color:#1a73e8;color:#fff}"
    ".note{color:#5f6368;font-size:.9em}"
)
_STYLE_HASH = base64.b64encode(hashlib.sha256(_STYLE.encode()).digest()).decode()
_LOOPBACK = re.compile(r"^(localhost|127(\.\d{1,3}){3}|\[?::1\]?)$")
_ORIGIN = re.compile(r"^[a-z][a-z0-9+.-]*://[A-Za-z0-9.\-\[\]:]+$")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*$")

EXPIRED = "This sign-in expired or was already used: start again from your client."
ELSEWHERE = "This sign-in was started in another browser: start again from your client."
NOT_YOURS = (
    "This answer did not come from the sign-in page this browser was shown (its sign-in "
    "cookie or form token is missing or wrong), so nothing was approved. Start again from "
    "your client; if your browser blocks cookies, allow them for this site."
)
NOT_APPROVED = (
    "This sign-in was not approved in this browser, so it was not completed. If you did not "
    "start it yourself, close this page; otherwise start again from your client."
)


class Upstream(Protocol):
    """The identity provider people sign in with, as the page names it."""

    @property
    def name(self) -> str:
        """Its name, as people know it (``Google``)."""
        ...

    @property
    def authorize_url(self) -> str:
        """Its consent's address: Approve sends the browser there (the page's CSP allows it)."""
        ...

    @property
    def requested(self) -> list[str]:
        """The scopes asked at its consent."""
        ...

    def scope_words(self, scopes: Sequence[str]) -> list[str]:
        """Each scope as a person reads it."""
        ...


class ConsentHost(Protocol):
    """What the page needs of its sign-in provider (:mod:`toolspecs.server.signin_app`)."""

    issuer: str
    state: SignInState
    clock: Callable[[], float]

    @property
    def settings(self) -> Upstream: ...  # whom people sign in with

    async def kept(self, method: Callable[..., Any], *args: Any) -> Any: ...

    async def get_client(self, client_id: str) -> Any: ...

    async def trip(self, state: str) -> dict[str, Any] | None: ...

    def upstream_url(self, state: str, trip: dict[str, Any]) -> str: ...


def _sha(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _csrf(binding: str) -> str:
    """The form token of a browser's trip: derived from its cookie, readable only by it."""
    digest = hashlib.sha256(b"toolspecs consent form\0" + binding.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


def _where(uri: str) -> tuple[str, str | None]:
    """Where a redirect goes, as shown (host, and a word on it), and its CSP source."""
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):
        host = parts.netloc.rpartition("@")[2]
        origin = f"{scheme}://{host}"
        shown = (
            f"{host} (a program on this computer)"
            if _LOOPBACK.match(parts.hostname or "")
            else host
        )
        return shown, origin if _ORIGIN.match(origin) else None
    unsafe = scheme in ("javascript", "data", "file", "blob", "filesystem")
    source = f"{scheme}:" if _SCHEME.match(scheme) and not unsafe else None
    return f"an app on this device ({scheme}:)", source


def _headers(form_sources: Sequence[str] = ()) -> dict[str, str]:
    actions = " ".join(["'self'", *form_sources])
    return {
        "Content-Security-Policy": (
            f"default-src 'none'; style-src 'sha256-{_STYLE_HASH}'; frame-ancestors 'none'; "
            f"form-action {actions}; base-uri 'none'"
        ),
        "X-Frame-Options": "DENY",
        "Cache-Control": "no-store",
        "Pragma": "no-cache",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
    }


def _document(title: str, body: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>"
        f"<body><main>{body}</main></body></html>"
    )


def refusal(message: str, status_code: int = 400, headers: dict[str, str] | None = None) -> Any:
    """A page saying ``message`` (400 unless told, with the page's security headers)."""
    body = f"<h1>Sign-in stopped</h1><p>{html.escape(message)}</p>"
    return responses.HTMLResponse(
        _document("Sign-in stopped", body),
        status_code=status_code,
        headers={**_headers(), **(headers or {})},
    )


class SignInConsent:
    """The consent page's endpoints, and the binding check of the upstream's callback."""

    def __init__(self, host: ConsentHost) -> None:
        self.host = host

    @property
    def secure(self) -> bool:
        """Whether the issuer is https (``__Host-`` Secure cookies)."""
        return self.host.issuer.startswith("https://")

    def url(self, state: str) -> str:
        """The consent page of the trip ``state`` names."""
        return f"{self.host.issuer}{CONSENT_PATH}?{urlencode({'trip': state})}"

    def busy(self, why: str, headers: dict[str, str]) -> Any:
        """The 429 page of ``/authorize`` past its limit (see :mod:`.request_limits`)."""
        return refusal(f"Sign-in is busy: {why}.", 429, headers)

    def routes(self) -> list[Any]:
        """The Starlette routes: the page (``GET``) and the person's answer (``POST``)."""
        return [
            routing.Route(CONSENT_PATH, self.show, methods=["GET"]),
            routing.Route(CONSENT_PATH, self.decide, methods=["POST"]),
        ]

    def _cookie(self, state: str) -> str:
        name = _COOKIE + _sha(f"cookie {state}")[:16]
        return f"__Host-{name}" if self.secure else name

    async def _record(self, method: Callable[..., Any], state: str, *args: Any) -> Any:
        return await self.host.kept(method, "consent", _sha(state), *args)

    async def show(self, request: Any) -> Any:
        """``GET``: the page; the trip's first one binds it to this browser."""
        state = str(request.query_params.get("trip", ""))
        trip = await self.host.trip(state) if state else None
        left = float(trip.get("until", 0)) - self.host.clock() if trip else 0.0
        client = await self.host.get_client(str(trip["client_id"])) if trip else None
        if trip is None or client is None or left <= 0:
            return refusal(EXPIRED)
        binding = secrets.token_urlsafe(32)
        # One per trip, over when it is: the trips' bound is theirs (bound 0: none by count).
        bound = {"binding": _sha(binding)}
        fresh = await self._record(self.host.state.add, state, bound, left, 0)
        if not fresh:  # bound already: this browser's reload, or another browser
            record = await self._record(self.host.state.get, state) or {}
            binding = request.cookies.get(self._cookie(state)) or ""
            if not binding or not _same(_sha(binding), str(record.get("binding", ""))):
                logger.warning("a sign-in's consent page was opened in a second browser")
                return refusal(ELSEWHERE)
        page, sources = self._page(state, trip, client, binding)
        answer = responses.HTMLResponse(page, headers=_headers(sources))
        if fresh:
            answer.set_cookie(
                self._cookie(state),
                binding,
                max_age=max(1, int(left)),
                path="/",
                secure=self.secure,
                httponly=True,
                samesite="lax",
            )
        return answer

    def _page(
        self, state: str, trip: dict[str, Any], client: Any, binding: str
    ) -> tuple[str, list[str]]:
        back = str(trip["params"]["redirect_uri"])
        shown, source = _where(back)
        name = str(getattr(client, "client_name", None) or "").strip()
        who = f"<strong>{html.escape(name)}</strong>" if name else "An unnamed client"
        upstream = self.host.settings
        words = upstream.scope_words(upstream.requested)
        scopes = "".join(f"<li>{html.escape(said)}</li>" for said in words)
        server = urlsplit(self.host.issuer).netloc
        them = html.escape(upstream.name)
        body = (
            f"<h1>Sign in to {html.escape(server)}</h1>"
            f"<p>{who} wants to use this server's tools with your {them} account.</p>"
            f"<p>Approving sends you to {them}, then back to "
            f"<strong>{html.escape(shown)}</strong>:<br><code>{html.escape(back)}</code></p>"
            f"<p>With your {them} account it will be able to:</p><ul>{scopes}</ul>"
            '<p class="note">The name above is the one the client gave itself. If you did not '
            "start this sign-in, or do not know the address above, choose Deny.</p>"
            f'<form method="post" action="{html.escape(self.host.issuer + CONSENT_PATH)}">'
            f'<input type="hidden" name="trip" value="{html.escape(state)}">'
            f'<input type="hidden" name="csrf" value="{_csrf(binding)}">'
            '<button type="submit" name="decision" value="approve">Approve</button>'
            '<button type="submit" name="decision" value="deny">Deny</button></form>'
        )
        title = f"Sign in to {server}: approve {name or 'an unnamed client'}?"
        consent = "{0.scheme}://{0.netloc}".format(urlsplit(upstream.authorize_url))
        return _document(title, body), [consent, *([source] if source else [])]

    async def decide(self, request: Any) -> Any:
        """``POST``: Approve goes on to the upstream, Deny answers the client ``access_denied``."""
        form = await _form(request)
        state = form.get("trip", "")
        trip = await self.host.trip(state) if state else None
        record = await self._record(self.host.state.get, state) if trip else None
        left = float(trip.get("until", 0)) - self.host.clock() if trip else 0.0
        if trip is None or record is None or left <= 0:
            return refusal(EXPIRED)
        binding = request.cookies.get(self._cookie(state))
        if not binding or not (
            _same(_sha(binding), str(record.get("binding", "")))
            and _same(form.get("csrf"), _csrf(binding))
        ):
            logger.warning("a consent answer without this trip's cookie or token: refused")
            return refusal(NOT_YOURS)
        decision = form.get("decision")
        if decision == "approve":
            consented = {**record, "consented": True}
            await self._record(self.host.state.put, state, consented, left, 0)
            return responses.RedirectResponse(
                self.host.upstream_url(state, trip), status_code=303, headers=_headers()
            )
        if decision != "deny":
            return refusal("Choose Approve or Deny.")
        await self.host.kept(self.host.state.take, "trip", _sha(state))
        await self._record(self.host.state.take, state)
        params = trip["params"]
        denied = provider.construct_redirect_uri(
            str(params["redirect_uri"]),
            error="access_denied",
            error_description="the person denied this client at the consent page",
            state=params.get("state"),
        )
        answer = responses.RedirectResponse(denied, status_code=303, headers=_headers())
        return self.done(answer, state)

    async def refused(self, request: Any, state: str, trip: dict[str, Any] | None) -> Any:
        """The upstream's callback: ``None`` if this browser approved the trip, else a 400 page."""
        record = await self._record(self.host.state.take, state) if state else None
        if trip is None:
            return refusal(EXPIRED)
        binding = request.cookies.get(self._cookie(state))
        if (
            record is None
            or record.get("consented") is not True
            or not binding
            or not _same(_sha(binding), str(record.get("binding", "")))
        ):
            logger.warning(
                "%s's callback for a sign-in this browser did not approve: refused",
                self.host.settings.name,
            )
            return refusal(NOT_APPROVED)
        return None

    def done(self, response: Any, state: str) -> Any:
        """``response``, dropping the trip's cookie (the trip is over)."""
        response.delete_cookie(
            self._cookie(state), path="/", secure=self.secure, httponly=True, samesite="lax"
        )
        return response


async def _form(request: Any) -> dict[str, str]:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > _MAX_FORM:
            return {}
    try:
        fields = parse_qs(body.decode("utf-8", "replace"), max_num_fields=16)
    except ValueError:  # more fields than ours
        return {}
    return {key: values[0] for key, values in fields.items()}
