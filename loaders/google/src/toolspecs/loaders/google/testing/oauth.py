"""Google's OAuth endpoints in memory: consent, token (code, refresh, JWT bearer), userinfo.

For offline tests of a server that signs its users in with Google
(``toolspecs serve --http --google-sign-in``). The fake answers plain requests (method,
URL, form body, headers) with ``(status, JSON)``; a test plugs it into whatever HTTP
library the code under test uses (``httpx.MockTransport``, ``responses``)::

    google = FakeGoogleOAuth("client-id", "client-secret")
    google.add_user("alice@example.org")
    back = google.consent(authorize_url, "alice@example.org")  # the redirect to the app
    status, body = google.answer("POST", GOOGLE_TOKEN_URL, form_body, headers)

It checks what Google checks: the client and its secret, the redirect URI and PKCE
(S256) of a code, a code used once, and a refresh token not revoked
(:meth:`FakeGoogleOAuth.revoke`: then ``invalid_grant``, as Google answers).

A service account with domain-wide delegation (:meth:`FakeGoogleOAuth.add_service_account`)
gets tokens with the JWT-bearer grant (RFC 7523), as google-auth's
``service_account.Credentials`` asks for them. The fake checks what Google checks: the
assertion signed by the account's key, its ``iss`` the account, its ``aud`` the token
endpoint, not expired; its ``scope`` only scopes the administrator allowed the account
(else ``unauthorized_client``); its ``sub`` an account of the fake (else ``invalid_grant``).
:meth:`FakeGoogleOAuth.subject_of` says whom a token it gave acts as. Without a ``sub`` the
account acts as itself: any scope, no delegation needed (Google's answer too), and a token
that :attr:`AccessToken.service_account` marks (it has no mailbox, no user's calendar).

Every access token it gives is kept as an :class:`AccessToken` (whom it acts as, its
scopes, when it expires): :meth:`FakeGoogleOAuth.bearer` is what a Google API checks of an
``Authorization: Bearer`` header (unknown, expired or revoked: ``None``), and a test may
:meth:`~FakeGoogleOAuth.accept` a token made elsewhere (``Credentials(token=...)``) or
:meth:`~FakeGoogleOAuth.refuse` one mid-session. :meth:`FakeGoogleOAuth.grant` is a consent
given earlier (a refresh token for some scopes); a refresh that asks for a scope the
refresh token was not granted gets ``invalid_scope``, as Google answers. The revoke
endpoint (``POST revoke_url`` with ``token=``) revokes an access or a refresh token (the
latter with every access token of that person).
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

__all__ = ["AccessToken", "FakeGoogleOAuth", "GoogleUser"]

AUTHORIZE_URL = "https://accounts.google.com/o/oauth2/v2/auth"
TOKEN_URL = "https://oauth2.googleapis.com/token"
REVOKE_URL = "https://oauth2.googleapis.com/revoke"
USERINFO_URL = "https://openidconnect.googleapis.com/v1/userinfo"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"


@dataclass
class GoogleUser:
    """A Google account of the fake: its ``sub``, address, and tokens given out."""

    email: str
    sub: str
    access_tokens: list[str] = field(default_factory=list)
    refresh_tokens: list[str] = field(default_factory=list)
    scopes: list[str] = field(default_factory=list)


@dataclass
class AccessToken:
    """An access token the fake gave (or accepts): whom it acts as, for what, until when."""

    account: str
    """The Google account it acts as: a user, or the service account itself."""
    scopes: list[str]
    expires: float
    """When it stops working, on the fake's ``clock``."""
    service_account: bool = False
    """A service account acting as itself (no subject): no mailbox, no user's calendar."""


@dataclass
class _Code:
    user: GoogleUser
    redirect_uri: str
    challenge: str
    scopes: list[str]


class FakeGoogleOAuth:
    """Google's OAuth 2.0 and OpenID endpoints for one OAuth client, in memory.

    Args:
        client_id: The OAuth client the app uses.
        client_secret: Its secret.
    """

    def __init__(self, client_id: str, client_secret: str) -> None:
        self.client_id = client_id
        self.client_secret = client_secret
        self.users: dict[str, GoogleUser] = {}
        self.revoked: set[str] = set()
        self.requests: list[tuple[str, str]] = []  # (method, URL without query)
        self._codes: dict[str, _Code] = {}
        # Service accounts: client_email -> (public key PEM, scopes delegation allows).
        self.service_accounts: dict[str, tuple[str, list[str]]] = {}
        # Tokens given to a service account: token -> (subject's address, scopes).
        self.delegated: dict[str, tuple[str, list[str]]] = {}
        self.assertions: list[dict[str, Any]] = []  # the JWT-bearer assertions' claims
        # Where tokens are asked for (a test serving the fake elsewhere changes it), and
        # the fake's clock (for a service account's assertion).
        self.token_url = TOKEN_URL
        self.revoke_url = REVOKE_URL
        # Every access token given or accepted (see AccessToken), and the scopes each
        # refresh token was granted.
        self.tokens: dict[str, AccessToken] = {}
        self.refresh_scopes: dict[str, list[str]] = {}
        self.clock: Callable[[], float] = time.time
        self._serial = itertools.count(1)

    def client_file(self, path: str | os.PathLike[str], authorize_url: str = AUTHORIZE_URL) -> str:
        """Write this OAuth client as a Desktop app's client file (``credentials.json``).

        ``authorize_url``: where its consent page is (the fake served over HTTP elsewhere).
        """
        installed = {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "auth_uri": authorize_url,
            "token_uri": self.token_url,
            "redirect_uris": ["http://localhost"],
        }
        Path(path).write_text(json.dumps({"installed": installed}))
        return str(path)

    def add_user(self, email: str) -> GoogleUser:
        """A Google account that can consent."""
        user = GoogleUser(email, sub=str(100_000_000 + len(self.users)))
        self.users[email] = user
        return user

    def add_service_account(
        self, client_email: str, public_key_pem: str, allowed_scopes: list[str]
    ) -> None:
        """A service account the administrator allowed ``allowed_scopes`` by delegation."""
        self.service_accounts[client_email] = (public_key_pem, list(allowed_scopes))

    def grant(self, email: str, scopes: list[str]) -> str:
        """``email`` consented earlier to ``scopes`` (added if new): a refresh token for them."""
        user = self.users.get(email) or self.add_user(email)
        token = f"1//fake-refresh-{user.sub}-{next(self._serial)}"
        user.refresh_tokens.append(token)
        self.refresh_scopes[token] = list(scopes)
        return token

    def accept(
        self,
        token: str,
        account: str,
        scopes: list[str],
        expires_in: float = 3599,
        service_account: bool = False,
    ) -> AccessToken:
        """Take ``token`` as an access token Google gave ``account`` (made by the test)."""
        given = AccessToken(account, list(scopes), self.clock() + expires_in, service_account)
        self.tokens[token] = given
        return given

    def refuse(self, token: str) -> None:
        """Google stops taking ``token`` (an access token), as after a revocation."""
        self.revoked.add(token)

    def bearer(self, token: str) -> AccessToken | None:
        """The access token ``token`` if Google would take it now: known, not expired or revoked."""
        found = self.tokens.get(token)
        if found is None or token in self.revoked or found.expires <= self.clock():
            return None
        return found

    def subject_of(self, access_token: str) -> str | None:
        """The address a service account's token acts as (``None``: not one of them)."""
        found = self.delegated.get(access_token)
        return found[0] if found else None

    def consent(self, authorize_url: str, email: str) -> str:
        """The person ``email`` agrees at Google: the URL Google sends them back to.

        Raises:
            AssertionError: When the request is not one Google would take.
        """
        query = {k: v[0] for k, v in parse_qs(urlsplit(authorize_url).query).items()}
        assert authorize_url.startswith(AUTHORIZE_URL + "?"), authorize_url
        assert query.get("client_id") == self.client_id, "unknown OAuth client"
        assert query.get("response_type") == "code"
        assert query.get("code_challenge_method") == "S256" and query.get("code_challenge")
        code = f"4/fake-code-{next(self._serial)}"
        self._codes[code] = _Code(
            self.users[email],
            query["redirect_uri"],
            query["code_challenge"],
            query.get("scope", "").split(),
        )
        back = {"code": code, "state": query.get("state", ""), "scope": query.get("scope", "")}
        return f"{query['redirect_uri']}?{urlencode(back)}"

    def revoke(self, email: str) -> None:
        """The person removes the app's access at their Google account: refreshes fail."""
        user = self.users[email]
        self.revoked.update(user.refresh_tokens)
        self.revoked.update(user.access_tokens)

    def answer(
        self, method: str, url: str, body: bytes | str, headers: Any
    ) -> tuple[int, dict[str, Any]]:
        """Google's answer to one request: ``(status, JSON)``."""
        base = url.split("?", 1)[0]
        self.requests.append((method, base))
        if isinstance(body, bytes):
            body = body.decode()
        form = {k: v[0] for k, v in parse_qs(body or "").items()}
        if method == "POST" and base == self.token_url:
            basic = str(headers.get("authorization", "") or headers.get("Authorization", ""))
            if basic.startswith("Basic "):  # client_secret_basic, which Google takes too
                pair = base64.b64decode(basic[6:]).decode()
                client_id, _, secret = pair.partition(":")
                form.setdefault("client_id", unquote(client_id))
                form.setdefault("client_secret", unquote(secret))
            return self._token(form)
        if method == "POST" and base == self.revoke_url:
            query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
            return self._revoke(form.get("token") or query.get("token", ""))
        if method == "GET" and base == USERINFO_URL:
            return self._userinfo(str(headers.get("authorization", "")))
        return 404, {"error": "not_found"}

    def _token(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if form.get("grant_type") == JWT_BEARER:
            return self._jwt_bearer(form.get("assertion", ""))
        if form.get("client_id") != self.client_id or form.get("client_secret") != (
            self.client_secret
        ):
            return 401, {"error": "invalid_client"}
        grant = form.get("grant_type")
        if grant == "authorization_code":
            code = self._codes.pop(form.get("code", ""), None)
            verifier = form.get("code_verifier", "").encode()
            sha = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=")
            if (
                code is None
                or code.redirect_uri != form.get("redirect_uri")
                or sha.decode() != code.challenge
            ):
                return 400, {"error": "invalid_grant", "error_description": "Bad Request"}
            code.user.scopes = code.scopes
            return 200, self._tokens(code.user, refresh=True)
        if grant == "refresh_token":
            token = form.get("refresh_token", "")
            for user in self.users.values():
                if token in user.refresh_tokens and token not in self.revoked:
                    granted = self.refresh_scopes.get(token, user.scopes)
                    asked = form.get("scope", "").split()
                    if not set(asked) <= set(granted):
                        return 400, {
                            "error": "invalid_scope",
                            "error_description": "Bad Request",
                        }
                    return 200, self._tokens(user, refresh=False, scopes=asked or granted)
            return 400, {
                "error": "invalid_grant",
                "error_description": "Token has been expired or revoked.",
            }
        return 400, {"error": "unsupported_grant_type"}

    def _jwt_bearer(self, assertion: str) -> tuple[int, dict[str, Any]]:
        from google.auth import crypt, jwt

        refused = 400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}
        try:
            claims = jwt.decode(assertion, verify=False)  # type: ignore[no-untyped-call]
            key, allowed = self.service_accounts[claims["iss"]]
            signed, _, signature = assertion.rpartition(".")
            raw = base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
            good = crypt.verify_signature(signed.encode(), raw, [key])  # type: ignore[no-untyped-call]
            now = self.clock()
            fresh = claims["iat"] - 300 <= now < claims["exp"] <= claims["iat"] + 3600
        except (ValueError, KeyError, TypeError):
            return refused
        # google-auth names Google's token endpoint as the audience wherever it sends.
        if not good or claims.get("aud") != TOKEN_URL:
            return refused
        if not fresh:
            return 400, {"error": "invalid_grant", "error_description": "Invalid JWT: expired"}
        self.assertions.append(claims)
        scopes = str(claims.get("scope", "")).split()
        if not scopes or ("sub" in claims and not set(scopes) <= set(allowed)):
            return 401, {
                "error": "unauthorized_client",
                "error_description": "Client is unauthorized to retrieve access tokens "
                "using this method, or client not authorized for any of the scopes requested.",
            }
        subject = claims.get("sub")
        if subject is None:  # the account acting as itself: no delegation asked
            access = f"ya29.fake-service-account-{next(self._serial)}"
            self.accept(access, str(claims["iss"]), scopes, service_account=True)
            return 200, {"access_token": access, "expires_in": 3599, "token_type": "Bearer"}
        if subject not in self.users:
            return 400, {"error": "invalid_grant", "error_description": "Invalid email or User ID"}
        access = f"ya29.fake-delegated-{self.users[subject].sub}-{next(self._serial)}"
        self.delegated[access] = (subject, scopes)
        self.accept(access, subject, scopes)
        return 200, {"access_token": access, "expires_in": 3599, "token_type": "Bearer"}

    def _revoke(self, token: str) -> tuple[int, dict[str, Any]]:
        for user in self.users.values():
            if token in user.refresh_tokens:  # the grant goes, and what it gave
                self.revoked.update([token, *user.access_tokens])
                return 200, {}
        if token in self.tokens:
            self.revoked.add(token)
            return 200, {}
        return 400, {"error": "invalid_token", "error_description": "Bad Request"}

    def _tokens(
        self, user: GoogleUser, refresh: bool, scopes: list[str] | None = None
    ) -> dict[str, Any]:
        serial = next(self._serial)
        access = f"ya29.fake-{user.sub}-{serial}"
        user.access_tokens.append(access)
        granted = list(user.scopes if scopes is None else scopes)
        self.accept(access, user.email, granted)
        answer = {
            "access_token": access,
            "expires_in": 3599,
            "token_type": "Bearer",
            "scope": " ".join(granted),
            "id_token": "unused.by.this.fake",
        }
        if refresh:
            token = f"1//fake-refresh-{user.sub}-{serial}"
            user.refresh_tokens.append(token)
            self.refresh_scopes[token] = granted
            answer["refresh_token"] = token
        return answer

    def _userinfo(self, authorization: str) -> tuple[int, dict[str, Any]]:
        token = authorization.removeprefix("Bearer ").strip()
        for user in self.users.values():
            if token in user.access_tokens and token not in self.revoked:
                return 200, {"sub": user.sub, "email": user.email, "email_verified": True}
        return 401, {"error": "invalid_token"}
