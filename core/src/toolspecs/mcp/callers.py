"""Whose call it is when no session holds a client's calls together: sessionless requests.

A request is *sessionless* when it belongs to no session the server keeps:

- the 2026-07-28 protocol (no handshake, no session, every request stands alone);
- over HTTP without an ``Mcp-Session-Id``: ``toolspecs serve --http --stateless`` (mcp's
  stateless streamable HTTP) answers handshake-era clients (2025-11-25) too, each request
  on a connection of its own, so that any replica behind a load balancer answers any
  request. (With sessions, mcp answers a request without the header only to
  ``initialize``, which calls no tool.)

Such a request's stored results and running calls belong to the person it comes from,
the same on every replica:

- behind an authorization server, the user its token names (:mod:`toolspecs.mcp.users`),
  their results named ``user ISSUER SUBJECT`` in a shared store;
- with the shared static token (:mod:`toolspecs.mcp.auth`), the one person who holds it:
  their results named :data:`TOKEN_HOLDER_KEY`, so that replicas sharing a store
  (``--store redis://``) read them; without one, each replica keeps its own.

Calls running at once (``MAX_CALLS_PER_SESSION``) are then counted per user (or for the
token's holder): within one process, and, when replicas share a Redis store
(``--store redis://``), across all of them (:mod:`toolspecs.mcp.running`).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from toolspecs.mcp.auth import CLIENT_ID

if TYPE_CHECKING:
    from mcp.server.auth.provider import AccessToken

__all__ = [
    "TOKEN_HOLDER_KEY",
    "TokenHolder",
    "caller_key",
    "counted",
    "is_sessionless",
    "is_token_holder",
]

# The name of the static token holder's results in a shared store.
TOKEN_HOLDER_KEY = "token-holder"
SESSION_HEADER = "mcp-session-id"


class TokenHolder:
    """The owner of the results of the static token's holder (weakly referenced by stores)."""

    __slots__ = ("__weakref__",)


def is_sessionless(ctx: Any, modern_versions: Any) -> bool:
    """Whether the request of ``ctx`` (a ``ServerRequestContext``) belongs to no session."""
    if ctx.protocol_version in modern_versions:
        return True
    headers = getattr(ctx.request, "headers", None)  # None over stdio and in memory
    return headers is not None and SESSION_HEADER not in headers


def is_token_holder(access: AccessToken | None) -> bool:
    """Whether ``access`` is the shared static token's (it names no user)."""
    return access is not None and access.client_id == CLIENT_ID and not access.subject


def caller_key(user: tuple[str, str] | None, access: AccessToken | None) -> str | None:
    """The name of a sessionless caller's results: the user, the token holder, or none."""
    if user is not None:
        return f"user {user[0]} {user[1]}"
    return TOKEN_HOLDER_KEY if is_token_holder(access) else None


def counted(sessionless: bool, key: str | None, connection: Any) -> Hashable:
    """Whose running calls one more call counts with: the caller's when sessionless."""
    return key if sessionless and key is not None else id(connection)
