"""Each user's Google specs behind the organisation's authorization server, by delegation.

Domain-wide delegation can act as anyone in the Workspace, administrators included, so
whom it acts as is checked before Google is asked: the token's ``email`` (or
``--google-user-claim``), verified (an unverified address may be anyone's), in a
configured ``--google-domain``. A token that fails gets guidance, and nothing of anyone.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from toolspecs.core.errors import AskUser, ConfigurationError, RetryLater
from toolspecs.server.user_tools import User

__all__ = ["DELEGATION_REFUSED", "GoogleDelegation"]

logger = logging.getLogger(__name__)

# Seconds the token exchange with Google may take (a call waits for it once per user).
TOKEN_SECONDS = 10.0
ADDRESS = re.compile(r"[^@\s]+@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)")
ASK_ADMIN = (
    "Do not retry. Tell the user to ask the administrator of this server or of their "
    "organisation's sign-in."
)

# What a Google spec tells the agent when Google stops accepting the delegated token
# (:meth:`GoogleToolSpec.act_as`: the spec's failure table reads it).
DELEGATION_REFUSED = (
    "Do not retry. Tell the user Google no longer lets this server act as them: a Google "
    "Workspace administrator must check the service account's domain-wide delegation "
    "(the scopes it is allowed) and that the account is active."
)


@dataclass(frozen=True)
class GoogleDelegation:
    """A service account acting as each user of the configured (lower-case) domains."""

    key: dict[str, Any] = field(repr=False)
    domains: Sequence[str]
    scopes: Sequence[str] = ()
    claim: str = "email"

    def __post_init__(self) -> None:
        if not self.domains:
            raise ConfigurationError(
                "--google-delegate needs --google-domain DOMAIN (repeatable): the Workspace "
                "domains whose users it may act as"
            )
        for domain in self.domains:
            if not re.fullmatch(r"[a-z0-9-]+(\.[a-z0-9-]+)+", domain):
                raise ConfigurationError(
                    f"--google-domain {domain!r} is not a domain name; e.g. example.com"
                )
        missing = [k for k in ("client_email", "private_key", "token_uri") if not self.key.get(k)]
        if self.key.get("type") != "service_account" or missing:
            raise ConfigurationError(
                "--google-delegate needs a service account's JSON key (Google Cloud console, "
                "IAM & Admin > Service accounts > Keys)"
                + (f"; this one has no {', '.join(missing)}" if missing else "")
            )

    @classmethod
    def from_file(
        cls, path: str, domains: Sequence[str], scopes: Sequence[str], claim: str = "email"
    ) -> GoogleDelegation:
        """The delegation of the key in ``path`` (ConfigurationError in one line)."""
        import json

        if not domains:
            cls({"type": "service_account"}, ())  # the error that names --google-domain
        try:
            with open(path, encoding="utf-8") as file:
                key = json.load(file)
        except OSError as exc:
            raise ConfigurationError(
                f"--google-delegate {path}: cannot read it ({exc.strerror or exc})"
            ) from None
        except ValueError:
            raise ConfigurationError(f"--google-delegate {path} is not a JSON key") from None
        if not isinstance(key, dict):
            raise ConfigurationError(f"--google-delegate {path} is not a JSON key")
        if not claim or not claim.strip():
            raise ConfigurationError("--google-user-claim needs a claim name, e.g. email")
        wanted = tuple(d.strip().lower().lstrip("@") for d in domains)
        return cls(key, wanted, tuple(scopes), claim.strip())

    def address_of(self, user: User) -> str:
        """The address the user's token names, once every check passed (else AskUser)."""
        value = user.claims.get(self.claim)
        if not isinstance(value, str) or not value.strip():
            raise AskUser(
                f"Your access token has no '{self.claim}' claim, so this server cannot "
                "tell which Google account is yours.",
                f"{ASK_ADMIN} Its authorization server must put the user's Google "
                f"Workspace address in the access token's '{self.claim}' claim.",
            )
        verified = user.claims.get("email_verified")
        if verified is False or (self.claim == "email" and verified is not True):
            raise AskUser(
                "Your access token does not say that its address is verified "
                "('email_verified': true), so this server will not act as it.",
                f"{ASK_ADMIN} Its authorization server must verify the address and say so "
                "in the access token, or the server must read a claim it vouches for "
                "(--google-user-claim).",
            )
        address = value.strip()
        matched = ADDRESS.fullmatch(address)
        if matched is None or matched.group(1).lower() not in self.domains:
            raise AskUser(
                f"This server acts only for Google accounts of {', '.join(self.domains)}; "
                f"your access token names {address[:100]!r}.",
                f"{ASK_ADMIN} Sign in with an account of those domains.",
            )
        return address.lower()

    def credentials(self, address: str) -> Any:
        """The service account acting as ``address``, its token fetched now (blocking).

        Raises ``AskUser`` when Google refuses, ``RetryLater`` when it cannot be reached.
        """
        from google.auth.exceptions import RefreshError, TransportError
        from google.auth.transport.requests import Request
        from google.oauth2 import service_account

        try:
            own = service_account.Credentials.from_service_account_info(  # type: ignore[no-untyped-call]
                self.key, scopes=list(self.scopes)
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise AskUser(
                "This server's Google service account key cannot be used.",
                f"{ASK_ADMIN} ({type(exc).__name__})",
            ) from None
        creds = own.with_subject(address)
        try:
            # google-auth's own transport, bounded (its default waits 120 s).
            creds.refresh(functools.partial(Request(), timeout=TOKEN_SECONDS))
        except RefreshError as exc:
            # Google's error code, never its whole answer.
            data = exc.args[1] if len(exc.args) > 1 and isinstance(exc.args[1], dict) else {}
            code = str(data.get("error", ""))
            if not re.fullmatch(r"[a-z_]{1,40}", code):  # an OAuth error code, nothing else
                code = "refused"
            logger.warning("Google refused delegation to %s: %s", address, code)
            raise AskUser(
                f"Google refused to let this server act as {address} ({code}).",
                f"{ASK_ADMIN} A Workspace administrator must allow the service account "
                f"(client id {self.key.get('client_id', '?')}) the scopes "
                f"{' '.join(self.scopes)} in domain-wide delegation, for an active account.",
            ) from None
        except TransportError:  # never its text
            raise RetryLater("Google's token server could not be reached.") from None
        return creds
