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

Our clients, trips, codes and tokens are kept by the SHA-256 of their secret in a
:class:`toolspecs.mcp.signin_state.SignInState` (this process) or
``RedisSignInState`` (``--store redis://``: every replica accepts what any issued); codes
and refresh tokens are taken once, atomically. Signing out (``/revoke``) ends that
client's tokens and the user's Google access here; every replica's tools of that user are
then rebuilt (a per-user sign-in generation, carried in the verified token's claims
:data:`GENERATION_CLAIM`), and the next call is ask-the-user guidance. Nothing here logs a
token, a code or a query string.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlencode

from toolspecs.adapters.tools import require
from toolspecs.core.errors import RetryLater
from toolspecs.mcp.google_accounts import (
    CALLBACK_PATH,
    GOOGLE_AUTHORIZE_URL,
    GOOGLE_TOKEN_URL,
    GOOGLE_USERINFO_URL,
    GoogleSignIn,
    google_credentials,
)
from toolspecs.mcp.oauth import OAuthFetchError, fetch_json
from toolspecs.mcp.signin_state import MAX_KEPT, SignInState, SignInUnavailable, unreachable
from toolspecs.mcp.token_vault import TokenVault

if TYPE_CHECKING:
    from mcp.server.auth.provider import (
        AccessToken,
        AuthorizationCode,
        AuthorizationParams,
        RefreshToken,
    )
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

__all__ = ["GENERATION_CLAIM", "GoogleSignInProvider"]

logger = logging.getLogger(__name__)

# Lives of a person's trip to Google, of our codes, access tokens and refresh tokens, and
# of a registered client unused (each use renews it).
PENDING_SECONDS = 600
CODE_SECONDS = 300
ACCESS_SECONDS = 3600
REFRESH_SECONDS = 30 * 24 * 3600
CLIENT_SECONDS = 90 * 24 * 3600
# The claim of our verified tokens that carries the user's sign-in generation: it changes
# when they sign out or Google refuses them, and their tools built before are rebuilt.
GENERATION_CLAIM = "toolspecs_signin"
_T = TypeVar("_T")


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _challenge(verifier: str) -> str:
    sha = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(sha).rstrip(b"=").decode("ascii")


def _user(subject: str | None) -> str:
    """The counter of a user's sign-in generation."""
    return f"user {subject or ''}"


def _client(subject: str | None, client_id: str) -> str:
    """The counter of a client's token epoch for a user (``/revoke`` moves it on)."""
    return f"client {subject or ''} {client_id}"


class GoogleSignInProvider:
    """mcp's ``OAuthAuthorizationServerProvider``, signing users in with Google.

    Args:
        settings: The Google OAuth client and scopes.
        vault: Where users' Google tokens are kept (encrypted).
        issuer: This server's base URL (``http://127.0.0.1:8000``): the issuer clients see.
        resource: This server's resource URL (``.../mcp``): our tokens are bound to it.
        transport: An ``httpx2`` transport for the requests to Google (tests).
        clock: Seconds since the epoch.
        state: Where our clients, trips, codes and tokens are kept (default: this
            process, each kind bounded at :data:`MAX_KEPT`; ``RedisSignInState`` for
            replicas).
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
        state: SignInState | None = None,
    ) -> None:
        self.settings = settings
        self.vault = vault
        self.issuer = issuer.rstrip("/")
        self.resource = resource
        self.transport = transport
        self.clock = clock
        self.state = state if state is not None else SignInState(clock, MAX_KEPT)
        # Called with a user's subject when they are forgotten (e.g. to drop their tools).
        self.on_forget: list[Callable[[str], None]] = []

    @property
    def callback_url(self) -> str:
        """Where Google sends the person back (register it at Google's console)."""
        return self.issuer + CALLBACK_PATH

    async def _kept(self, method: Callable[..., _T], *args: Any) -> _T:
        """Call a state method: in a worker thread when it blocks on the network (Redis)."""
        if not self.state.blocking:
            return method(*args)
        anyio = require("anyio", "mcp")
        result: _T = await anyio.to_thread.run_sync(functools.partial(method, *args))
        return result

    # Clients (dynamic registration).

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        """The client registered under ``client_id``, if any (each use renews its life)."""
        record = await self._kept(self.state.get, "client", _digest(client_id), CLIENT_SECONDS)
        if record is None:
            return None
        shared = require("mcp.shared.auth", "mcp")
        client: OAuthClientInformationFull = shared.OAuthClientInformationFull.model_validate(
            record
        )
        return client

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        """Keep a dynamically registered client (in memory, the oldest go past the cap)."""
        if client_info.client_id is None:
            return
        record = client_info.model_dump(mode="json", exclude_none=True)
        await self._kept(
            self.state.put, "client", _digest(client_info.client_id), record, CLIENT_SECONDS
        )

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
        trip = {
            "client_id": str(client.client_id),
            "params": params.model_dump(mode="json"),
            "verifier": verifier,
        }
        try:
            await self._kept(self.state.put, "trip", _digest(state), trip, PENDING_SECONDS)
        except SignInUnavailable:
            raise provider.AuthorizeError(
                "temporarily_unavailable", "sign-in is unavailable for a moment: try again"
            ) from None
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
        trip = await self._kept(self.state.take, "trip", _digest(str(query.get("state", ""))))
        if trip is None:
            return responses.PlainTextResponse(
                "This sign-in link expired or was already used: start again from your client.",
                status_code=400,
            )
        params = provider.AuthorizationParams.model_validate(trip["params"])
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
            subject = await self._signed_in(str(query["code"]), str(trip["verifier"]))
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
            client_id=str(trip["client_id"]),
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=self.resource,
            subject=subject,
        )
        kept = code.model_dump(mode="json", exclude={"code"})  # never the code itself
        await self._kept(self.state.put, "code", _digest(code.code), kept, CODE_SECONDS)
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
        provider = require("mcp.server.auth.provider", "mcp")
        record = await self._kept(self.state.get, "code", _digest(authorization_code))
        if record is None:
            return None
        code: AuthorizationCode = provider.AuthorizationCode(code=authorization_code, **record)
        if code.client_id != client.client_id or code.expires_at < self.clock():
            return None
        return code

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        """Our access and refresh tokens for a code (used once, on any replica)."""
        provider = require("mcp.server.auth.provider", "mcp")
        if await self._kept(self.state.take, "code", _digest(authorization_code.code)) is None:
            raise provider.TokenError("invalid_grant", "the code was already used")
        return await self._issue(
            str(client.client_id), authorization_code.scopes, authorization_code.subject
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        """Our refresh token, if it was given to ``client``, is not revoked nor expired."""
        found = await self._token("refresh", refresh_token)
        if found is None or found.client_id != client.client_id:
            return None
        return found  # type: ignore[return-value]

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        """New tokens (both rotated) while the user's Google tokens are kept.

        The refresh token is taken atomically: of two exchanges at once, one succeeds.
        """
        provider = require("mcp.server.auth.provider", "mcp")
        taken = await self._kept(self.state.take, "refresh", _digest(refresh_token.token))
        subject = refresh_token.subject
        if taken is None or subject is None or self.vault.get(subject) is None:
            raise provider.TokenError("invalid_grant", "sign in with Google again")
        return await self._issue(str(client.client_id), scopes or refresh_token.scopes, subject)

    async def load_access_token(self, token: str) -> AccessToken | None:
        """Our access token, if it is one, is not revoked and has not expired.

        Its claims carry the user's sign-in generation now (:data:`GENERATION_CLAIM`).
        """
        found = await self._token("access", token)
        return found  # type: ignore[return-value]

    async def verify_token(self, token: str) -> AccessToken | None:
        """Our own access tokens, as mcp's ``TokenVerifier`` asks."""
        return await self.load_access_token(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        """Sign out: end this client's tokens for the user and their Google access here.

        Every token of ours this client holds for the user stops working on every
        replica; the user's Google tokens are dropped, so their other clients' next call
        is ask-the-user guidance to sign in again, and every replica rebuilds their tools.
        """
        await self._kept(self.state.bump, _client(token.subject, token.client_id), REFRESH_SECONDS)
        if token.subject is not None:
            await self._kept(self.forget, token.subject)

    async def exchange_identity_assertion(self, client: Any, params: Any) -> OAuthToken:
        """Not offered: users sign in with Google."""
        provider = require("mcp.server.auth.provider", "mcp")
        raise provider.TokenError("unsupported_grant_type", "sign in with Google instead")

    async def _token(self, kind: str, token: str) -> AccessToken | RefreshToken | None:
        """Our token of ``kind`` (``access`` or ``refresh``), if live: not revoked, not expired."""
        provider = require("mcp.server.auth.provider", "mcp")

        def look() -> tuple[dict[str, Any], list[int]] | None:
            record = self.state.get(kind, _digest(token))
            if record is None:
                return None
            subject, client_id = record.get("subject"), str(record.get("client_id"))
            return record, self.state.counters(_client(subject, client_id), _user(subject))

        found = await self._kept(look)
        if found is None:
            return None
        record, (epoch, generation) = found
        record = dict(record)
        if record.pop("epoch", 0) != epoch:
            return None  # revoked (signed out) on some replica
        expires = record.get("expires_at")
        if expires is not None and expires < self.clock():
            return None
        if kind == "refresh":
            return provider.RefreshToken(token=token, **record)  # type: ignore[no-any-return]
        record["claims"] = {**(record.get("claims") or {}), GENERATION_CLAIM: generation}
        return provider.AccessToken(token=token, **record)  # type: ignore[no-any-return]

    async def _issue(self, client_id: str, scopes: list[str], subject: str | None) -> OAuthToken:
        shared = require("mcp.shared.auth", "mcp")
        now = int(self.clock())
        email = (self.vault.get(subject) or {}).get("email") if subject else None
        access = secrets.token_urlsafe(32)
        refresh = secrets.token_urlsafe(32)
        claims = {"iss": self.issuer, **({"email": email} if email else {})}
        # What is kept: never the token itself (the models are made again in _token).
        kept: dict[str, Any] = {"client_id": client_id, "scopes": scopes, "subject": subject}
        kept["resource"] = self.resource

        def keep() -> None:
            (epoch,) = self.state.counters(_client(subject, client_id))
            self.state.put(
                "access",
                _digest(access),
                {**kept, "expires_at": now + ACCESS_SECONDS, "claims": claims, "epoch": epoch},
                ACCESS_SECONDS,
            )
            self.state.put(
                "refresh",
                _digest(refresh),
                {**kept, "expires_at": now + REFRESH_SECONDS, "epoch": epoch},
                REFRESH_SECONDS,
            )

        await self._kept(keep)
        issued: OAuthToken = shared.OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=ACCESS_SECONDS,
            refresh_token=refresh,
            scope=" ".join(scopes) or None,
        )
        return issued

    # The user's Google credentials, for their specs.

    def credentials(self, subject: str) -> Any:
        """The user's Google credentials, refreshed when expired (see :func:`google_credentials`).

        A refresh is written back to the vault, for every replica.

        Raises:
            AskUser: The user must sign in with Google again (their record is dropped).
            RetryLater: The vault or the shared state (Redis) cannot be reached now.
        """
        try:
            return google_credentials(self.settings, self.vault, subject, self.forget)
        except Exception as exc:
            if not unreachable(exc):
                raise
            raise RetryLater(
                "This server's sign-in store cannot be reached right now.", retry_after=30
            ) from None

    def forget(self, subject: str) -> None:
        """Drop the user's Google tokens, and their tools on every replica (blocking).

        Our tokens naming them stay until they expire: every call with one is then
        ask-the-user guidance (no Google tokens), and refreshing one is refused.
        """
        self.vault.delete(subject)
        self.state.bump(_user(subject), REFRESH_SECONDS)
        for listener in self.on_forget:
            listener(subject)
