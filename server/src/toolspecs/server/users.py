"""Who calls: the user an access token names, and the owner of the results they store.

Behind an authorization server (:mod:`toolspecs.server.oauth`) every request carries the
access token mcp verified; its issuer and subject (``iss``, ``sub``) name the user
(:class:`toolspecs.server.callers.Callers` reads it once per request, as the user's
``key``). The results a user's calls store (:mod:`toolspecs.core.owners`) are theirs:

- in a session (stdio or HTTP with a session id), the owner is the user *in that
  session*: mcp lets only the principal that opened a session use it, and a user's two
  sessions keep apart, as two sessions always have;
- sessionless (the 2026-07-28 revision), the owner is the user: their results stay with
  them across requests, for the :data:`MAX_USERS` users seen last (a user pushed out
  loses their stored results, as a closed session does).

Two users never share an owner, so neither reads the other's results, by id or search.
A request with no user (the static bearer token, stdio) keeps the per-session owner.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from typing import Any

from mcp.server.auth.provider import AccessToken

__all__ = ["MAX_USERS", "UserOwner", "Users", "access_in", "access_of"]

# Sessionless users whose stored results are kept.
MAX_USERS = 1024


class UserOwner:
    """The owner of one user's stored results (weakly referenced by the stores)."""

    __slots__ = ("__weakref__", "user")

    def __init__(self, user: Hashable) -> None:
        self.user = user


def access_of(request: Any) -> AccessToken | None:
    """The access token mcp verified for an HTTP request (``ctx.request``), if any."""
    return None if request is None else access_in(getattr(request, "scope", {}))


def access_in(scope: Mapping[str, Any]) -> AccessToken | None:
    """The access token mcp's auth middleware put in an ASGI ``scope`` (``user``), if any."""
    access: AccessToken | None = getattr(scope.get("user"), "access_token", None)
    return access


class Users:
    """The owners of users' results: per user in a session, per user when sessionless."""

    def __init__(self, max_users: int = MAX_USERS) -> None:
        self._in_session: weakref.WeakKeyDictionary[Any, dict[Hashable, UserOwner]]
        self._in_session = weakref.WeakKeyDictionary()
        self._recent: OrderedDict[Hashable, UserOwner] = OrderedDict()
        self._max = max_users

    def owner(self, user: Hashable, connection: Any, sessionless: bool) -> UserOwner:
        """The owner of the results of ``user`` (their key), in ``connection``'s session.

        Sessionless, the user's own (one per user, for the :data:`MAX_USERS` seen last).
        """
        if not sessionless:
            owners = self._in_session.setdefault(connection, {})
            return owners.setdefault(user, UserOwner(user))
        found = self._recent.pop(user, None) or UserOwner(user)
        self._recent[user] = found
        while len(self._recent) > self._max:
            self._recent.popitem(last=False)
        return found
