"""Many users behind the organisation's authorization server: an OAuth 2.1 resource server.

mcp's ``AuthSettings`` does the HTTP side; this module says which tokens are good.
:class:`JwtVerifier` accepts a JWT signed by the issuer's keys with an asymmetric
algorithm only (never ``none`` or a shared secret, which anyone with the public key could
forge), exact ``iss``, ``exp``/``nbf``, an ``aud`` naming this server (a token meant for
another service is not replayed here) and ``typ: at+jwt`` (so an ID token does not pass
for an access token). :class:`IntrospectionVerifier` asks the issuer (RFC 7662) instead.
PyJWT verifies; the fetching is ours because ``PyJWKClient`` fetches unbounded and sync:
here every fetch has a deadline and a size limit. The token is never passed on.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2 as httpx
import jwt
import mcp.server.auth.settings as settings_module
from mcp.server.auth import provider, routes
from mcp.server.auth.provider import AccessToken

from toolspecs.core.errors import ConfigurationError
from toolspecs.server.answers import INTROSPECT_CACHE_SECONDS, INTROSPECT_CACHE_TOKENS, AnswerCache
from toolspecs.server.auth import as_url, is_loopback
from toolspecs.server.compat_mcp import routes_first

__all__ = [
    "IntrospectionVerifier",
    "JwtVerifier",
    "OAuthSettings",
    "checked_url",
    "publish_scopes",
    "resource_settings",
]

logger = logging.getLogger(__name__)

# Seconds of clock difference forgiven in exp and nbf.
LEEWAY_SECONDS = 30
# Deadline of one fetch (metadata, keys, introspection), and its largest body.
FETCH_SECONDS = 10.0
MAX_DOCUMENT_BYTES = 256 * 1024
# The issuer's keys are kept this long; an unknown key id fetches them again at most this often.
JWKS_SECONDS = 300.0
REFETCH_SECONDS = 30.0
# Signatures accepted: public-key ones only, so no shared secret and never "none".
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512")
# The header types of a JWT access token (RFC 9068), compared without case.
ACCESS_TOKEN_TYPES = ("at+jwt", "application/at+jwt")
INTROSPECT_SECRET_ENV = "TOOLSPECS_INTROSPECT_SECRET"
_INTROSPECT_NEEDS = (
    "--auth-introspect needs --auth-client-id ID and the client's secret in "
    f"${INTROSPECT_SECRET_ENV}"
)


class OAuthFetchError(Exception):
    """The authorization server did not answer as it should (logged; the token is refused)."""


def checked_url(url: str, flag: str) -> str:
    """``url`` when it is https, or http on a loopback address (else ConfigurationError)."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    plain_ok = parts.scheme == "http" and (host == "localhost" or is_loopback(host))
    if not host or not (parts.scheme == "https" or plain_ok) or parts.query or parts.fragment:
        raise ConfigurationError(
            f"{flag} {url!r} is not an https URL (http only on this machine: 127.0.0.1), "
            "without query or fragment; e.g. https://login.example.com/realms/team"
        )
    return url.strip()


async def fetch_json(
    url: str, *, form: dict[str, str] | None = None, auth: Any = None, transport: Any = None
) -> Any:
    """The JSON of ``url`` (a POST of ``form`` when given), bounded in time and size.

    Raises:
        OAuthFetchError: On a network failure, a timeout, a status other than 200, a body
            too large, or one that is not JSON.
    """
    body = bytearray()
    try:
        with anyio.fail_after(FETCH_SECONDS):
            async with httpx.AsyncClient(
                timeout=FETCH_SECONDS, trust_env=False, transport=transport
            ) as client:
                method = "POST" if form is not None else "GET"
                headers = {"Accept": "application/json"}
                async with client.stream(
                    method, url, data=form, auth=auth, headers=headers
                ) as answer:
                    if answer.status_code != 200:
                        raise OAuthFetchError(f"{url} answered {answer.status_code}")
                    async for chunk in answer.aiter_bytes():
                        body += chunk
                        if len(body) > MAX_DOCUMENT_BYTES:
                            raise OAuthFetchError(f"{url} sent over {MAX_DOCUMENT_BYTES} bytes")
        return json.loads(body)
    except OAuthFetchError:
        raise
    except TimeoutError:
        raise OAuthFetchError(f"{url} did not answer within {FETCH_SECONDS:g} s") from None
    except (httpx.HTTPError, ValueError) as exc:
        raise OAuthFetchError(f"{url}: {type(exc).__name__}: {exc}") from None


async def discovered_jwks_url(issuer: str, transport: Any = None) -> str:
    """The ``jwks_uri`` of the issuer's metadata (RFC 8414, then OpenID discovery)."""
    base = urlsplit(issuer)
    path = base.path.rstrip("/")
    wells = (
        f"{base.scheme}://{base.netloc}/.well-known/oauth-authorization-server{path}",
        f"{issuer.rstrip('/')}/.well-known/openid-configuration",
    )
    problems = []
    for url in wells:
        try:
            metadata = await fetch_json(url, transport=transport)
        except OAuthFetchError as exc:
            problems.append(str(exc))
            continue
        if not isinstance(metadata, dict) or metadata.get("issuer") != issuer:
            problems.append(f"{url} names another issuer")
            continue
        jwks = metadata.get("jwks_uri")
        if isinstance(jwks, str):
            return checked_url(jwks, "jwks_uri")
        problems.append(f"{url} has no jwks_uri")
    raise OAuthFetchError("; ".join(problems))


class IssuerKeys:
    """The issuer's signing keys (PyJWT's ``PyJWKSet``), fetched when needed and kept."""

    def __init__(self, issuer: str, jwks_url: str | None = None, transport: Any = None) -> None:
        self._issuer = issuer
        self._url = jwks_url
        self._transport = transport
        self._keys: dict[str | None, Any] = {}
        self._fetched = float("-inf")
        self._lock: Any = None

    async def key(self, kid: str | None) -> Any:
        """The key of id ``kid`` (``None``: the only key), or ``None`` when there is none."""
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            age = time.monotonic() - self._fetched
            if age > JWKS_SECONDS or (kid not in self._keys and age > REFETCH_SECONDS):
                await self._fetch()
        return self._keys.get(kid)

    async def _fetch(self) -> None:
        self._fetched = time.monotonic()  # a failure waits for REFETCH_SECONDS too
        if self._url is None:
            self._url = await discovered_jwks_url(self._issuer, self._transport)
        document = await fetch_json(self._url, transport=self._transport)
        keys: dict[str | None, Any] = {}
        for entry in document.get("keys", []) if isinstance(document, dict) else []:
            if not isinstance(entry, dict) or entry.get("use", "sig") != "sig":
                continue
            try:
                key = jwt.PyJWK.from_dict(entry)
            except jwt.PyJWTError:  # a key type or curve we do not use
                continue
            keys[key.key_id] = key
        if len(keys) == 1:
            keys[None] = next(iter(keys.values()))
        self._keys = keys


def _scopes(claims: dict[str, Any]) -> list[str]:
    scope = claims.get("scope", claims.get("scp", ""))
    if isinstance(scope, str):
        return scope.split()
    return [s for s in scope if isinstance(s, str)] if isinstance(scope, list) else []


def _access(
    token: str, claims: dict[str, Any], resource: str, keep: Sequence[str] = ()
) -> AccessToken:
    subject = claims.get("sub")
    client = claims.get("client_id", claims.get("azp", subject))
    return provider.AccessToken(
        token=token,
        client_id=str(client),
        scopes=_scopes(claims),
        expires_at=int(claims["exp"]),
        resource=resource,
        subject=str(subject),
        claims={"iss": claims.get("iss"), **{k: claims[k] for k in keep if k in claims}},
    )


def _audiences(resource: str) -> list[str]:
    # RFC 8707 resource indicators are compared as sent, one trailing slash aside.
    return list(dict.fromkeys([resource, resource.rstrip("/"), resource.rstrip("/") + "/"]))


class JwtVerifier:
    """mcp's ``TokenVerifier`` for JWT access tokens of ``issuer`` meant for ``resource``.

    ``keep``: the claims passed on beside ``iss``; ``token_type``: ``"at+jwt"`` or ``"any"``.
    """

    def __init__(
        self,
        issuer: str,
        resource: str,
        jwks_url: str | None = None,
        transport: Any = None,
        keep: Sequence[str] = (),
        token_type: str = "at+jwt",
    ) -> None:
        self._typed = token_type != "any"
        self._untyped_seen = False
        self._keep = tuple(keep)
        self._issuer = issuer
        self._resource = resource
        self._keys = IssuerKeys(issuer, jwks_url, transport)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The access a good token gives, else ``None`` (mcp answers 401)."""
        try:
            header = jwt.get_unverified_header(token)
            algorithm = header.get("alg")
            if algorithm not in ALGORITHMS:
                return None
            key = await self._keys.key(header.get("kid"))
            if key is None:
                return None
            claims = jwt.decode(
                token,
                key,
                algorithms=[algorithm],
                audience=_audiences(self._resource),
                issuer=self._issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "iss", "sub", "aud"]},
            )
        except jwt.PyJWTError:
            return None
        except OAuthFetchError as exc:
            logger.warning("cannot fetch the keys of %s: %s", self._issuer, exc)
            return None
        kind = str(header.get("typ", "")).lower()
        if self._typed and kind not in ACCESS_TOKEN_TYPES:
            # Signed for us, not typed as an access token: an ID token, or an issuer that
            # types none. Said once, so that an operator learns which.
            log = logger.debug if self._untyped_seen else logger.warning
            self._untyped_seen = True
            log(
                "refused a token of %s typed %r, not 'at+jwt' (RFC 9068): an ID token, or "
                "an issuer that does not type access tokens (then: --auth-token-type any)",
                self._issuer,
                kind or None,
            )
            return None
        return _access(token, claims, self._resource, self._keep)


class IntrospectionVerifier:
    """mcp's ``TokenVerifier`` asking the issuer's introspection endpoint (RFC 7662)."""

    def __init__(
        self,
        issuer: str,
        resource: str,
        url: str,
        client_id: str,
        transport: Any = None,
        *,
        cache_seconds: float = INTROSPECT_CACHE_SECONDS,
        cache_tokens: int = INTROSPECT_CACHE_TOKENS,
        keep: Sequence[str] = (),
    ) -> None:
        self._keep = tuple(keep)
        secret = os.environ.get(INTROSPECT_SECRET_ENV, "")
        if not client_id or not secret:
            raise ConfigurationError(_INTROSPECT_NEEDS)
        self._issuer = issuer
        self._resource = resource
        self._url = url
        self._auth = (client_id, secret)
        self._transport = transport
        self._answers = AnswerCache(cache_seconds, cache_tokens)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The access an active token gives, else ``None`` (mcp answers 401)."""
        if not token or len(token) > MAX_DOCUMENT_BYTES:
            return None
        kept = self._answers.get(token)
        if kept is not None:
            return _access(token, kept, self._resource, self._keep)
        form = {"token": token, "token_type_hint": "access_token"}
        try:
            claims = await fetch_json(
                self._url, form=form, auth=self._auth, transport=self._transport
            )
        except OAuthFetchError as exc:
            logger.warning("cannot introspect at %s: %s", self._url, exc)
            return None
        # An inactive answer is not kept: see AnswerCache.
        if not isinstance(claims, dict) or claims.get("active") is not True:
            return None
        now = time.time()
        audience = claims.get("aud")
        named = [audience] if isinstance(audience, str) else audience
        if (
            claims.get("iss", self._issuer) != self._issuer
            or not isinstance(named, list)
            or not set(_audiences(self._resource)).intersection(named)
            or not isinstance(claims.get("exp"), (int, float))
            or claims["exp"] + LEEWAY_SECONDS < now
            or claims.get("nbf", 0) - LEEWAY_SECONDS > now
        ):
            return None
        # A client acting for itself (client_credentials) names no sub: it is the user.
        subject = claims.get("sub", claims.get("client_id"))
        if not isinstance(subject, str) or not subject:
            return None
        accepted = {"iss": self._issuer, **claims, "sub": subject}
        self._answers.keep(token, accepted)
        return _access(token, accepted, self._resource, self._keep)


@dataclass(frozen=True)
class OAuthSettings:
    """How ``toolspecs serve --http`` trusts an authorization server: the ``--auth-*`` flags.

    ``audience`` is this server's resource URL as clients name it (default: the URL it serves
    at); ``scopes_supported`` are published in its metadata; ``user_claims`` are the token
    claims passed on beside ``iss`` (whom a hosting acts as).
    """

    issuer: str
    audience: str | None = None
    jwks_url: str | None = None
    introspection_url: str | None = None
    client_id: str | None = None
    introspect_cache: float = INTROSPECT_CACHE_SECONDS
    required_scopes: Sequence[str] = ()
    scopes_supported: Sequence[str] = ()
    user_claims: Sequence[str] = ()
    token_type: str = "at+jwt"

    def __post_init__(self) -> None:
        checked_url(self.issuer, "--auth-issuer")
        for value, flag in (
            (self.audience, "--auth-audience"),
            (self.jwks_url, "--auth-jwks"),
            (self.introspection_url, "--auth-introspect"),
        ):
            if value is not None:
                checked_url(value, flag)
        if self.jwks_url and self.introspection_url:
            raise ConfigurationError("give --auth-jwks or --auth-introspect, not both")
        if self.introspection_url and not (
            self.client_id and os.environ.get(INTROSPECT_SECRET_ENV, "")
        ):
            raise ConfigurationError(_INTROSPECT_NEEDS)
        if not 0 <= self.introspect_cache < float("inf"):
            raise ConfigurationError(
                f"--auth-introspect-cache {self.introspect_cache:g} is not a number of "
                "seconds; e.g. 60, or 0 to ask the issuer about every request"
            )

    def verifier(self, resource: str) -> JwtVerifier | IntrospectionVerifier:
        """The token verifier of a server whose resource URL is ``resource``."""
        if self.introspection_url:
            return IntrospectionVerifier(
                self.issuer,
                resource,
                self.introspection_url,
                self.client_id or "",
                cache_seconds=self.introspect_cache,
                keep=self.user_claims,
            )
        return JwtVerifier(
            self.issuer, resource, self.jwks_url, keep=self.user_claims, token_type=self.token_type
        )


def resource_settings(oauth: OAuthSettings, url: str) -> tuple[Any, Any]:
    """The ``AuthSettings`` (mcp's) and token verifier of a resource server served at ``url``."""
    resource = oauth.audience or url
    settings = settings_module.AuthSettings(
        issuer_url=as_url(oauth.issuer),
        resource_server_url=as_url(resource),
        required_scopes=list(oauth.required_scopes),
        validate_token_resource=True,
    )
    return settings, oauth.verifier(resource)


def publish_scopes(app: Any, settings: Any, scopes: Sequence[str]) -> None:
    """Publish every scope the server understands (mcp publishes the required ones only)."""
    supported = list(dict.fromkeys([*(settings.required_scopes or []), *scopes]))
    ours = routes.create_protected_resource_routes(
        resource_url=settings.resource_server_url,
        authorization_servers=[settings.issuer_url],
        scopes_supported=supported or None,
        resource_name="toolspecs",
    )
    routes_first(app, ours)
