"""Sign in with Google: this server is the authorization server its MCP clients see.

mcp serves the OAuth 2.1 endpoints from :class:`GoogleSignInProvider`. The person approves
the client on our consent page (bound to their browser), then signs in at Google; we keep
their Google tokens encrypted and give the client an opaque token of ours bound to this
server, so a client (or a thief of its token) never holds the person's Google access. The
defences against open registration and stolen tokens are :mod:`toolspecs.server`'s
(rate limits, bounded registration, one-time codes, rotated refresh tokens whose reuse
revokes the grant, sign-in generations). Ours because FastMCP's ``OAuthProxy`` brings its
own server stack and storage, and authlib is not mcp's provider interface. Nothing here
logs a token, a code or a query.
"""

from __future__ import annotations

import functools
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
from mcp.server.auth import provider
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
)
from mcp.shared import auth as shared
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette import responses, routing

from toolspecs.core.errors import RetryLater
from toolspecs.hosting.google.accounts import (
    CALLBACK_PATH,
    GOOGLE_TOKEN_URL,
    GOOGLE_USERINFO_URL,
    GoogleSignIn,
    google_authorize_url,
    google_credentials,
)
from toolspecs.server.oauth import OAuthFetchError, fetch_json
from toolspecs.server.registration import Clients, RegistrationLimits, check_redirect_uris
from toolspecs.server.request_limits import Admission, RequestLimits
from toolspecs.server.signin_consent import SignInConsent
from toolspecs.server.signin_state import MAX_KEPT, SignInState, SignInUnavailable, unreachable
from toolspecs.server.signin_tokens import ACCESS_SECONDS, Tokens, new_grant
from toolspecs.server.signin_tokens import digest as _digest
from toolspecs.server.token_vault import TokenVault

__all__ = ["GENERATION_CLAIM", "GoogleSignInProvider"]

logger = logging.getLogger(__name__)

# Lives of a person's trip to Google and of our codes (tokens: signin_tokens.py).
PENDING_SECONDS = 600
CODE_SECONDS = 300
# The claim of our verified tokens that carries the user's sign-in generation: it changes
# when they sign out or Google refuses them, and their tools built before are rebuilt.
GENERATION_CLAIM = "toolspecs_signin"
_T = TypeVar("_T")


class GoogleSignInProvider:
    """mcp's ``OAuthAuthorizationServerProvider``, signing users in with Google.

    ``issuer`` is this server's base URL, ``resource`` its ``.../mcp`` URL (our tokens are
    bound to it); ``state`` keeps our clients, trips, codes and tokens (default: this process).
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
        limits: RegistrationLimits | None = None,
        request_limits: RequestLimits | None = None,
    ) -> None:
        self.settings = settings
        self.vault = vault
        self.issuer = issuer.rstrip("/")
        self.resource = resource
        self.transport = transport
        self.clock = clock
        self.state = state if state is not None else SignInState(clock, MAX_KEPT)
        registration = limits or RegistrationLimits()
        self.clients = Clients(self.state, registration)
        self.admission = Admission(self.state, registration, request_limits or RequestLimits())
        self.tokens = Tokens(self.state, clock)
        # Called with a user's subject when they are forgotten (e.g. to drop their tools).
        self.on_forget: list[Callable[[str], None]] = []
        self.consent = SignInConsent(self)  # our consent page, and each trip's browser

    @property
    def callback_url(self) -> str:
        """Where Google sends the person back (register it at Google's console)."""
        return self.issuer + CALLBACK_PATH

    def routes(self) -> list[Any]:
        """Our Starlette routes beside mcp's: Google's callback and our consent page."""
        callback = routing.Route(CALLBACK_PATH, self.callback, methods=["GET"])
        return [callback, *self.consent.routes()]

    async def kept(self, method: Callable[..., _T], *args: Any) -> _T:
        """Call a state method: in a worker thread when it blocks on the network (Redis)."""
        if not self.state.blocking:
            return method(*args)
        return await anyio.to_thread.run_sync(functools.partial(method, *args))

    # Clients (dynamic registration).

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        """The client registered under ``client_id``, if any (each use renews its life)."""
        record = await self.kept(self.clients.find, _digest(client_id))
        if record is None:
            return None
        return shared.OAuthClientInformationFull.model_validate(record)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        """Keep a dynamically registered client (``invalid_redirect_uri``: an unsafe redirect)."""
        check_redirect_uris(client_info.redirect_uris)
        if client_info.client_id is None:
            return
        record = client_info.model_dump(mode="json", exclude_none=True)
        await self.kept(self.clients.keep, _digest(client_info.client_id), record)

    # The trip to Google and back.

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        """Keep the person's trip (a one-time ``state``, our PKCE) and show our consent page."""
        if params.resource is not None and params.resource.rstrip("/") != self.resource.rstrip("/"):
            raise provider.AuthorizeError(
                "invalid_target", "this server issues tokens for itself only"
            )
        state = secrets.token_urlsafe(32)
        trip = {
            "client_id": str(client.client_id),
            "params": params.model_dump(mode="json"),
            "verifier": secrets.token_urlsafe(48),
            "until": self.clock() + PENDING_SECONDS,
        }
        bound = self.admission.trips(PENDING_SECONDS)  # never reached within the rate limits
        try:
            await self.kept(self.state.put, "trip", _digest(state), trip, PENDING_SECONDS, bound)
        except SignInUnavailable:
            raise provider.AuthorizeError(
                "temporarily_unavailable", "sign-in is unavailable for a moment: try again"
            ) from None
        return self.consent.url(state)

    async def trip(self, state: str) -> dict[str, Any] | None:
        """The trip ``state`` names, if it is under way."""
        return await self.kept(self.state.get, "trip", _digest(state))

    def upstream_url(self, state: str, trip: dict[str, Any]) -> str:
        """Google's consent for the trip ``state`` names (once the person approved ours)."""
        return google_authorize_url(self.settings, self.callback_url, state, trip["verifier"])

    async def callback(self, request: Any) -> Any:
        """Google's redirect back (a Starlette endpoint at :data:`CALLBACK_PATH`)."""
        query = request.query_params
        state = str(query.get("state", ""))
        trip = await self.kept(self.state.take, "trip", _digest(state))
        refused = await self.consent.refused(request, state, trip)
        if trip is None or refused is not None:  # ended, or not this browser's approved trip
            return refused
        params = provider.AuthorizationParams.model_validate(trip["params"])
        back = str(params.redirect_uri)

        def sent_back(**answer: str) -> Any:
            to = provider.construct_redirect_uri(back, **answer, state=params.state)
            return responses.RedirectResponse(to, status_code=302)

        if not query.get("code"):  # the person said no at Google, or Google failed
            denied = sent_back(
                error="access_denied", error_description="Google sign-in was not completed"
            )
            return self.consent.done(denied, state)
        try:
            subject = await self._signed_in(str(query["code"]), str(trip["verifier"]))
        except OAuthFetchError as exc:
            logger.warning("Google sign-in failed: %s", exc)
            return sent_back(error="server_error", error_description="Google sign-in failed")
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
        kept["grant"] = new_grant()  # the grant its tokens will belong to
        await self.kept(self.state.put, "code", _digest(code.code), kept, CODE_SECONDS)
        return self.consent.done(sent_back(code=code.code), state)

    async def _signed_in(self, code: str, verifier: str) -> str:
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
        """Our code, if given to ``client`` and not expired; one used twice revokes its grant."""
        record = await self.kept(self.state.get, "code", _digest(authorization_code))
        if record is None:
            await self.kept(self.tokens.replayed, authorization_code)
            return None
        code: AuthorizationCode = provider.AuthorizationCode(code=authorization_code, **record)
        if code.client_id != client.client_id or code.expires_at < self.clock():
            return None
        return code

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        """Our access and refresh tokens for a code (used once, on any replica)."""
        taken = await self.kept(self.tokens.redeem, authorization_code.code)
        if taken is None:  # redeemed twice at once: its grant is revoked
            raise provider.TokenError("invalid_grant", "the code was already used")
        client_id, scopes = str(client.client_id), authorization_code.scopes
        grant = str(taken.get("grant") or new_grant())  # none: a code of an older version
        return await self._issue(client_id, scopes, authorization_code.subject, grant)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        """Our live refresh token of ``client``; a spent one revokes its grant (429: too often)."""
        found = await self._token("refresh", refresh_token)
        if found is None:
            await self.kept(self.tokens.reused, refresh_token)
            return None
        if found.client_id != client.client_id:
            return None
        await self.kept(self.admission.refresh, found.client_id)
        return found  # type: ignore[return-value]

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        """New tokens of the same grant, the refresh token spent atomically (RFC 9700 4.14.2)."""
        taken = await self.kept(self.tokens.spend, refresh_token.token)
        if taken is None:
            raise provider.TokenError("invalid_grant", "this refresh token was used already")
        subject = refresh_token.subject
        if subject is None or self.vault.get(subject) is None:
            raise provider.TokenError("invalid_grant", "sign in with Google again")
        scopes = scopes or refresh_token.scopes
        return await self._issue(str(client.client_id), scopes, subject, str(taken["grant"]))

    async def load_access_token(self, token: str) -> AccessToken | None:
        """Our live access token; its claims carry the user's sign-in generation now."""
        found = await self._token("access", token)
        return found  # type: ignore[return-value]

    async def verify_token(self, token: str) -> AccessToken | None:
        """Our own access tokens, as mcp's ``TokenVerifier`` asks."""
        return await self.load_access_token(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        """Sign out: every token of the user, from any client, ends on every replica."""
        if token.subject is not None:
            await self.kept(self.forget, token.subject)

    async def exchange_identity_assertion(self, client: Any, params: Any) -> OAuthToken:
        """Not offered: users sign in with Google."""
        raise provider.TokenError("unsupported_grant_type", "sign in with Google instead")

    async def _token(self, kind: str, token: str) -> AccessToken | RefreshToken | None:
        found = await self.kept(self.tokens.find, kind, token)
        if found is None:
            return None
        record, generation = found
        if kind == "refresh":
            return provider.RefreshToken(token=token, **record)
        record["claims"] = {**(record.get("claims") or {}), GENERATION_CLAIM: generation}
        return provider.AccessToken(token=token, **record)

    async def _issue(
        self, client_id: str, scopes: list[str], subject: str | None, grant: str
    ) -> OAuthToken:
        if subject is None:
            raise provider.TokenError("invalid_grant", "sign in with Google again")
        email = (self.vault.get(subject) or {}).get("email")
        claims = {"iss": self.issuer, **({"email": email} if email else {})}
        # What is kept: never the token itself (the models are made again in _token).
        kept = {"client_id": client_id, "scopes": scopes, "subject": subject}
        kept["resource"] = self.resource

        def keep() -> tuple[str, str] | None:
            self.clients.adopt(_digest(client_id))
            return self.tokens.issue(kept, claims, grant)

        issued = await self.kept(keep)
        if issued is None:
            raise provider.TokenError("invalid_grant", "this sign-in was revoked: sign in again")
        return shared.OAuthToken(
            access_token=issued[0],
            token_type="Bearer",
            expires_in=ACCESS_SECONDS,
            refresh_token=issued[1],
            scope=" ".join(scopes) or None,
        )

    # The user's Google credentials, for their specs.

    def credentials(self, subject: str) -> Any:
        """The user's Google credentials, refreshed when expired (written back to the vault).

        Raises ``AskUser`` (sign in again) or ``RetryLater`` (the vault or Redis is out of reach).
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
        """Drop the user's Google tokens and tools; refuse every token issued to them (blocking)."""
        self.vault.delete(subject)
        self.tokens.sign_out(subject)
        for listener in self.on_forget:
            listener(subject)
