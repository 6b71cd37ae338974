"""Who calls: one :class:`Caller` per request, derived once from its verified token.

A request is sessionless when mcp keeps no session for it (2026-07-28, or ``--stateless``),
never by the ``Mcp-Session-Id`` a client sends: a made-up one must not buy a cap of its own
(issue 38). A sessionless request's results and running calls are its user's, or the
static token holder's, the same on every replica. Nothing after :class:`Callers` reads
the token.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable
from dataclasses import dataclass
from typing import Any

from toolspecs.core.context import CallContext
from toolspecs.core.owners import name_owner
from toolspecs.server.auth import CLIENT_ID
from toolspecs.server.compat_mcp import connection_of
from toolspecs.server.user_tools import User
from toolspecs.server.users import Users, access_of, who

__all__ = ["TOKEN_HOLDER_KEY", "Caller", "Callers", "TokenHolder", "is_sessionless"]

# The name of the static token holder's results in a shared store.
TOKEN_HOLDER_KEY = "token-holder"


class TokenHolder:
    """The owner of the results of the static token's holder (weakly referenced by stores)."""

    __slots__ = ("__weakref__",)


def is_sessionless(ctx: Any, modern_versions: Any) -> bool:
    """Whether the request of ``ctx`` (a ``ServerRequestContext``) belongs to no session."""
    if ctx.protocol_version in modern_versions:
        return True
    if getattr(ctx.request, "headers", None) is None:  # None over stdio and in memory
        return False
    # Without mcp's internal (compat_mcp 1) this reads the per-request session, which has
    # no id: every request is then counted as its user's, never as a session of its own.
    return getattr(connection_of(ctx.session), "session_id", None) is None


@dataclass(frozen=True)
class Caller:
    """Who a request comes from: derived once from its verified token, then handed down.

    ``owner`` is whose results it stores and reads (``None``: the served tool list's); ``key``
    its name in a shared store when sessionless, also whose running calls a call counts with.
    """

    connection: Any
    sessionless: bool
    user: User | None = None
    scopes: frozenset[str] = frozenset()
    owner: object | None = None
    key: str | None = None
    logged: tuple[tuple[str, str], ...] = ()

    @property
    def counted(self) -> Hashable:
        """Whose running calls one more call counts with: the caller's when sessionless."""
        return self.key if self.sessionless and self.key is not None else id(self.connection)

    def context(self) -> CallContext:
        """The context of this caller's calls: whose results they store and read."""
        if self.owner is None:
            return CallContext()
        name_owner(self.owner, self.key)
        return CallContext(owner=self.owner)


class Callers:
    """The :class:`Caller` of each request of one server: one answer for calls and reads."""

    def __init__(self, modern_versions: Collection[str]) -> None:
        self.modern_versions = modern_versions
        self.users = Users()
        self.holder = TokenHolder()  # the static token's holder, when sessionless

    def of(self, ctx: Any) -> Caller:
        """The caller of the request of ``ctx`` (a ``ServerRequestContext``)."""
        # mcp builds a ServerSession per request; the connection under it is the client's
        # session (an mcp internal: see compat_mcp).
        connection = connection_of(ctx.session)
        sessionless = is_sessionless(ctx, self.modern_versions)
        access = access_of(ctx.request)  # verified by mcp's middleware: read here only
        if access is None:  # stdio, in memory, or HTTP without auth
            return Caller(connection, sessionless, owner=None if sessionless else connection)
        logged = tuple(who(access.client_id, access.subject).items())
        scopes = frozenset(access.scopes)
        if access.client_id == CLIENT_ID and not access.subject:  # the static token's
            key = TOKEN_HOLDER_KEY if sessionless else None
            owner = self.holder if sessionless else connection
            return Caller(connection, sessionless, None, scopes, owner, key, logged)
        claims = dict(access.claims or {})
        issuer, email = claims.get("iss"), claims.get("email")
        # A token without a subject (a client acting for itself) is that client's own user.
        user = User.named(
            access.subject or f"client:{access.client_id}",
            issuer if isinstance(issuer, str) else None,
            email=email if isinstance(email, str) else None,
            scopes=access.scopes,
            claims=claims,
        )
        owner = self.users.owner(user.key, connection, sessionless)
        key = f"user {user.key}" if sessionless else None
        return Caller(connection, sessionless, user, scopes, owner, key, logged)
