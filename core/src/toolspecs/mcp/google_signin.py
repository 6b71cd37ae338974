"""Sign in with Google: this server is the authorization server its MCP clients see.

For people with no authorization server of their own (``toolspecs serve --http
--google-sign-in``). mcp's SDK serves the OAuth 2.1 endpoints from our
:class:`GoogleSignInProvider` (its ``OAuthAuthorizationServerProvider`` interface):
RFC 8414 metadata at ``/.well-known/oauth-authorization-server``, ``/authorize`` (PKCE
S256 only), ``/token``, ``/revoke``, and dynamic client registration (RFC 7591) at
``/register``. The flow:

1. an MCP client registers, then sends the person to ``/authorize``;
2. we send them on to Google's consent (our own PKCE and a one-time ``state``), asking
   ``openid email`` and the least-privilege scopes of the tools served;
3. Google sends them back to :data:`CALLBACK_PATH`: we exchange Google's code, read who
   they are (``sub``, ``email``) at Google's userinfo endpoint, keep their Google tokens
   encrypted (:mod:`toolspecs.mcp.token_vault`), and send them back to the client with a
   code of ours;
4. the client exchanges it for our access token: opaque, one hour, bound to this
   server's resource URL (RFC 8707; the Google tokens never leave the server).

Each user's Google specs are then built with :meth:`GoogleSignInProvider.credentials`
(google-auth ``Credentials``, refreshed when expired): a refresh token Google no longer
accepts is ask-the-user guidance to sign in again, and the user's record is dropped.

Client ID metadata documents (the 2025-11-25 revision's preferred registration): mcp's
server side (its metadata model has ``client_id_metadata_document_supported``, but its
routes neither advertise nor resolve URL client ids) does not support them yet, so
clients register dynamically; mcp's own client falls back to that by itself.

We evaluated FastMCP's ``OAuthProxy`` and ``GoogleProvider`` (the same design: a proxy
with its own codes and tokens on mcp's provider interface), but it depends on the
``fastmcp`` server, not on mcp's low-level server we serve; and authlib (a whole OAuth
stack). mcp's provider interface does the endpoints, PKCE and client checks; the two
requests to Google are on mcp's HTTP client (``fetch_json``: bounded), and the refresh is
google-auth's.

Tokens of ours are kept by their SHA-256 in this process (replicas sharing them are a
next step); nothing here logs a token, a code or a query string.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from toolspecs.adapters.tools import require
from toolspecs.mcp.google_accounts import (
    CALLBACK_PATH,
    GOOGLE_AUTHORIZE_URL,
    GOOGLE_TOKEN_URL,
    GOOGLE_USERINFO_URL,
    GoogleSignIn,
    google_credentials,
)
from toolspecs.mcp.oauth import OAuthFetchError, fetch_json
from toolspecs.mcp.token_vault import TokenVault

if TYPE_CHECKING:
    from mcp.server.auth.provider import (
        AccessToken,
        AuthorizationCode,
        AuthorizationParams,
        RefreshToken,
    )
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

__all__ = ["GoogleSignInProvider"]

logger = logging.getLogger(__name__)

# Lives of a person's trip to Google, of our codes, access tokens and refresh tokens.
PENDING_SECONDS = 600
CODE_SECONDS = 300
ACCESS_SECONDS = 3600
REFRESH_SECONDS = 30 * 24 * 3600
# The most of each kept at once (registered clients, trips to Google, tokens).
MAX_KEPT = 10_000


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _challenge(verifier: str) -> str:
    sha = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(sha).rstrip(b"=").decode("ascii")


@dataclass
class _Trip:
    """A person on their way to Google's consent and back."""

    client_id: str
    params: AuthorizationParams
    verifier: str
    expires: float


class GoogleSignInProvider:
    """mcp's ``OAuthAuthorizationServerProvider``, signing users in with Google.

    Args:
        settings: The Google OAuth client and scopes.
        vault: Where users' Google tokens are kept (encrypted).
        issuer: This server's base URL (``http://127.0.0.1:8000``): the issuer clients see.
        resource: This server's resource URL (``.../mcp``): our tokens are bound to it.
        transport: An ``httpx2`` transport for the requests to Google (tests).
        clock: Seconds since the epoch.
    """

    def __init__(
        self,
        settings: GoogleSignIn,
        vault: TokenVault,
        issuer: str,
        resource: str,
        *,
        transport: Any = None,
        clock: Any = time.time,
    ) -> None:
        self.settings = settings
        self.vault = vault
        self.issuer = issuer.rstrip("/")
        self.resource = resource
        self.transport = transport
        self.clock = clock
        self._clients: dict[str, OAuthClientInformationFull] = {}
        self._trips: dict[str, _Trip] = {}
        self._codes: dict[str, AuthorizationCode] = {}
        self._access: dict[str, AccessToken] = {}
        self._refresh: dict[str, RefreshToken] = {}
        self._lock = threading.Lock()
        # Called with a user's subject when they are forgotten (e.g. to drop their tools).
        self.on_forget: list[Callable[[str], None]] = []

    @property
    def callback_url(self) -> str:
        """Where Google sends the person back (register it at Google's console)."""
        return self.issuer + CALLBACK_PATH

    # Clients (dynamic registration).

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        """The client registered under ``client_id``, if any."""
        return self._clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        """Keep a dynamically registered client (the oldest go past :data:`MAX_KEPT`)."""
        if client_info.client_id is None:
            return
        with self._lock:
            _bounded(self._clients)
            self._clients[client_info.client_id] = client_info

    # The trip to Google and back.

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        """Send the person on to Google's consent (a one-time ``state``, our PKCE)."""
        provider = require("mcp.server.auth.provider", "mcp")
        if params.resource is not None and params.resource.rstrip("/") != self.resource.rstrip("/"):
            raise provider.AuthorizeError(
                "invalid_target", "this server issues tokens for itself only"
            )
        state = secrets.token_urlsafe(32)
        verifier = secrets.token_urlsafe(48)
        with self._lock:
            self._drop_expired()
            _bounded(self._trips)
            self._trips[state] = _Trip(
                str(client.client_id), params, verifier, self.clock() + PENDING_SECONDS
            )
        query = {
            "client_id": self.settings.client_id,
            "redirect_uri": self.callback_url,
            "response_type": "code",
            "scope": " ".join(self.settings.requested),
            "state": state,
            "access_type": "offline",  # a refresh token
            "prompt": "consent",  # a refresh token every time, with the scopes asked now
            "code_challenge": _challenge(verifier),
            "code_challenge_method": "S256",
        }
        return f"{GOOGLE_AUTHORIZE_URL}?{urlencode(query)}"

    async def callback(self, request: Any) -> Any:
        """Google's redirect back (a Starlette endpoint at :data:`CALLBACK_PATH`)."""
        responses = require("starlette.responses", "mcp")
        provider = require("mcp.server.auth.provider", "mcp")
        query = request.query_params
        with self._lock:
            self._drop_expired()
            trip = self._trips.pop(str(query.get("state", "")), None)
        if trip is None:
            return responses.PlainTextResponse(
                "This sign-in link expired or was already used: start again from your client.",
                status_code=400,
            )
        params = trip.params
        back = str(params.redirect_uri)
        if not query.get("code"):  # the person said no at Google, or Google failed
            denied = provider.construct_redirect_uri(
                back,
                error="access_denied",
                error_description="Google sign-in was not completed",
                state=params.state,
            )
            return responses.RedirectResponse(denied, status_code=302)
        try:
            subject = await self._signed_in(str(query["code"]), trip.verifier)
        except OAuthFetchError as exc:
            logger.warning("Google sign-in failed: %s", exc)
            failed = provider.construct_redirect_uri(
                back,
                error="server_error",
                error_description="Google sign-in failed",
                state=params.state,
            )
            return responses.RedirectResponse(failed, status_code=302)
        code = provider.AuthorizationCode(
            code=secrets.token_urlsafe(32),
            scopes=params.scopes or [],
            expires_at=self.clock() + CODE_SECONDS,
            client_id=trip.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=self.resource,
            subject=subject,
        )
        with self._lock:
            _bounded(self._codes)
            self._codes[_digest(code.code)] = code
        to = provider.construct_redirect_uri(back, code=code.code, state=params.state)
        return responses.RedirectResponse(to, status_code=302)

    async def _signed_in(self, code: str, verifier: str) -> str:
        """Exchange Google's code, keep the user's tokens, and say who they are (``sub``)."""
        tokens = await fetch_json(
            GOOGLE_TOKEN_URL,
            form={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": self.callback_url,
                "client_id": self.settings.client_id,
                "client_secret": self.settings.client_secret,
                "code_verifier": verifier,
            },
            transport=self.transport,
        )
        access = tokens.get("access_token") if isinstance(tokens, dict) else None
        if not isinstance(access, str):
            raise OAuthFetchError("Google's token endpoint sent no access token")

        def bearer(request: Any) -> Any:
            request.headers["Authorization"] = f"Bearer {access}"
            return request

        who = await fetch_json(GOOGLE_USERINFO_URL, auth=bearer, transport=self.transport)
        subject = who.get("sub") if isinstance(who, dict) else None
        if not isinstance(subject, str) or not subject:
            raise OAuthFetchError("Google's userinfo named no user")
        kept = self.vault.get(subject) or {}
        refresh = tokens.get("refresh_token") or kept.get("refresh_token")
        granted = str(tokens.get("scope", "")).split() or self.settings.requested
        self.vault.put(
            subject,
            {
                "token": access,
                "refresh_token": refresh,
                "expiry": self.clock() + float(tokens.get("expires_in", 3600)),
                "scopes": granted,
                "email": who.get("email") if who.get("email_verified", True) else None,
            },
        )
        return subject

    # Our codes and tokens.

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        """Our code, if it was given to ``client`` and has not expired."""
        code = self._codes.get(_digest(authorization_code))
        if code is None or code.client_id != client.client_id or code.expires_at < self.clock():
            return None
        return code

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        """Our access and refresh tokens for a code (used once)."""
        provider = require("mcp.server.auth.provider", "mcp")
        with self._lock:
            if self._codes.pop(_digest(authorization_code.code), None) is None:
                raise provider.TokenError("invalid_grant", "the code was already used")
        return self._issue(
            str(client.client_id), authorization_code.scopes, authorization_code.subject
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        """Our refresh token, if it was given to ``client`` and has not expired."""
        found = self._refresh.get(_digest(refresh_token))
        if found is None or found.client_id != client.client_id:
            return None
        if found.expires_at is not None and found.expires_at < self.clock():
            return None
        return found

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        """New tokens (both rotated) while the user's Google tokens are kept."""
        provider = require("mcp.server.auth.provider", "mcp")
        with self._lock:
            gone = self._refresh.pop(_digest(refresh_token.token), None) is None
        if gone or refresh_token.subject is None or self.vault.get(refresh_token.subject) is None:
            raise provider.TokenError("invalid_grant", "sign in with Google again")
        return self._issue(
            str(client.client_id), scopes or refresh_token.scopes, refresh_token.subject
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        """Our access token, if it is one and has not expired."""
        found = self._access.get(_digest(token))
        if found is None or (found.expires_at is not None and found.expires_at < self.clock()):
            return None
        return found

    async def verify_token(self, token: str) -> AccessToken | None:
        """Our own access tokens, as mcp's ``TokenVerifier`` asks."""
        return await self.load_access_token(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        """Forget the client's tokens for that user (access and refresh)."""
        self._forget_tokens(
            lambda kept: kept.client_id == token.client_id and kept.subject == token.subject
        )

    async def exchange_identity_assertion(self, client: Any, params: Any) -> OAuthToken:
        """Not offered: users sign in with Google."""
        provider = require("mcp.server.auth.provider", "mcp")
        raise provider.TokenError("unsupported_grant_type", "sign in with Google instead")

    def _issue(self, client_id: str, scopes: list[str], subject: str | None) -> OAuthToken:
        provider = require("mcp.server.auth.provider", "mcp")
        shared = require("mcp.shared.auth", "mcp")
        now = int(self.clock())
        email = (self.vault.get(subject) or {}).get("email") if subject else None
        access = secrets.token_urlsafe(32)
        refresh = secrets.token_urlsafe(32)
        claims = {"iss": self.issuer, **({"email": email} if email else {})}
        with self._lock:
            _bounded(self._access)
            _bounded(self._refresh)
            self._access[_digest(access)] = provider.AccessToken(
                token=access,
                client_id=client_id,
                scopes=scopes,
                expires_at=now + ACCESS_SECONDS,
                resource=self.resource,
                subject=subject,
                claims=claims,
            )
            self._refresh[_digest(refresh)] = provider.RefreshToken(
                token=refresh,
                client_id=client_id,
                scopes=scopes,
                expires_at=now + REFRESH_SECONDS,
                resource=self.resource,
                subject=subject,
            )
        issued: OAuthToken = shared.OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=ACCESS_SECONDS,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )
        return issued

    def _forget_tokens(self, which: Any) -> None:
        with self._lock:
            for kept in (self._access, self._refresh):
                for key in [k for k, v in kept.items() if which(v)]:
                    del kept[key]

    def _drop_expired(self) -> None:
        now = self.clock()
        for state in [s for s, trip in self._trips.items() if trip.expires < now]:
            del self._trips[state]
        for key in [k for k, code in self._codes.items() if code.expires_at < now]:
            del self._codes[key]

    # The user's Google credentials, for their specs.

    def credentials(self, subject: str) -> Any:
        """The user's Google credentials, refreshed when expired (see :func:`google_credentials`).

        Raises:
            AskUser: The user must sign in with Google again (their record is dropped).
        """
        return google_credentials(self.settings, self.vault, subject, self.forget)

    def forget(self, subject: str) -> None:
        """Drop the user's Google tokens and every token of ours naming them."""
        self.vault.delete(subject)
        self._forget_tokens(lambda kept: kept.subject == subject)
        for listener in self.on_forget:
            listener(subject)


def _bounded(kept: dict[str, Any]) -> None:
    """Make room for one more (the oldest goes): a flood cannot fill the memory."""
    while len(kept) >= MAX_KEPT:
        del kept[next(iter(kept))]
