"""Our access and refresh tokens: grants, sign-in generations, rotation and reuse detection.

A grant holds one live access token, so a client refreshing in a loop cannot push other
users' tokens out (issue 38). Tokens carry the user's sign-in generation, moved by signing
out or Google's refusal: every token issued before is refused on every replica. A refresh
token or code presented twice (a thief's copy) revokes its whole grant (RFC 9700 4.14.2,
RFC 6749 4.1.2). Only SHA-256s are kept. Ours because mcp leaves issuing, rotation and
revocation to the provider, and neither FastMCP's ``OAuthProxy`` nor authlib fits mcp's
provider interface or keeps a per-user generation.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Callable
from typing import Any

from toolspecs.server.signin_state import SignInState

__all__ = [
    "ACCESS_SECONDS",
    "COUNTER_SECONDS",
    "REDEEMED_SECONDS",
    "REFRESH_SECONDS",
    "Tokens",
    "digest",
]

logger = logging.getLogger(__name__)

ACCESS_SECONDS = 3600
REFRESH_SECONDS = 30 * 24 * 3600
# A moved generation or a revoked grant is kept a day longer than any token issued before.
COUNTER_SECONDS = REFRESH_SECONDS + 24 * 3600
# How long a redeemed code is remembered after it would have expired (a replay revokes).
REDEEMED_SECONDS = ACCESS_SECONDS


def digest(secret: str) -> str:
    """The key a token, code or client id is kept under (its SHA-256, never the secret)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def _user(subject: str) -> str:
    return f"user {subject}"


def _grant(grant: str) -> str:
    return f"grant {grant}"


def new_grant() -> str:
    """A new grant id (one per authorization code redeemed)."""
    return secrets.token_urlsafe(16)


class Tokens:
    """Our tokens in a :class:`~toolspecs.server.signin_state.SignInState` (may block on Redis)."""

    def __init__(self, state: SignInState, clock: Callable[[], float]) -> None:
        self.state = state
        self.clock = clock

    def issue(
        self, record: dict[str, Any], claims: dict[str, Any], grant: str
    ) -> tuple[str, str] | None:
        """A new access and refresh token of ``grant``; ``None`` once the grant is revoked."""
        subject = str(record["subject"])
        generation, revoked = self.state.counters(
            _user(subject), _grant(grant), hold=COUNTER_SECONDS
        )
        if revoked:
            return None
        now = int(self.clock())
        kept = {**record, "generation": generation, "grant": grant}
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        self.state.put(
            "access",
            digest(access),
            {**kept, "expires_at": now + ACCESS_SECONDS, "claims": claims},
            ACCESS_SECONDS,
        )
        self.state.put(
            "refresh",
            digest(refresh),
            {**kept, "expires_at": now + REFRESH_SECONDS, "access": digest(access)},
            REFRESH_SECONDS,
        )
        return access, refresh

    def find(self, kind: str, token: str) -> tuple[dict[str, Any], int] | None:
        """Our live token of ``kind`` (``access`` or ``refresh``): its record and generation."""
        record = self.state.get(kind, digest(token))
        if record is None or not record.get("subject") or not record.get("grant"):
            return None
        record = dict(record)
        grant = str(record.pop("grant"))
        generation, revoked = self.state.counters(_user(str(record["subject"])), _grant(grant))
        if record.pop("generation", None) != generation or revoked:
            return None  # signed out or refused by Google since; or the grant was revoked
        expires = record.get("expires_at")
        if expires is not None and expires < self.clock():
            return None
        return record, generation

    def spend(self, token: str) -> dict[str, Any] | None:
        """Rotate out our refresh token (ending its access token); ``None`` if spent already."""
        record = self.state.spend("refresh", digest(token), "spent")
        if record is None:
            self.reused(token)
        elif record.get("access"):
            self.state.delete("access", str(record["access"]))
        return record

    def redeem(self, code: str) -> dict[str, Any] | None:
        """Take our authorization code: its record; ``None`` if taken (its grant then revoked)."""
        key = digest(code)
        record = self.state.spend("code", key, "redeemed")
        if record is None:
            self.replayed(code)
            return None
        left = float(record.get("expires_at", 0)) - self.clock()
        self.state.get("redeemed", key, touch=max(0.0, left) + REDEEMED_SECONDS)
        return record

    def replayed(self, code: str) -> bool:
        """Whether ``code`` was redeemed already; if so, its whole grant is revoked."""
        return self._presented_again("redeemed", code, "an authorization code", "redeemed")

    def reused(self, token: str) -> bool:
        """Whether ``token`` is a spent refresh token; if so, its whole grant is revoked."""
        return self._presented_again("spent", token, "a refresh token", "exchanged")

    def _presented_again(self, kind: str, secret: str, what: str, done: str) -> bool:
        record = self.state.get(kind, digest(secret))
        if record is None or not record.get("grant"):
            return False
        self.state.bump(_grant(str(record["grant"])), COUNTER_SECONDS)
        logger.warning(
            "%s of client %s was presented again after it was %s: "
            "its grant is revoked, every token of it refused",
            what,
            record.get("client_id"),
            done,
        )
        return True

    def sign_out(self, subject: str) -> None:
        """Move the user's sign-in generation on: every token issued to them is refused."""
        self.state.bump(_user(subject), COUNTER_SECONDS)
