"""Who calls: the user an access token names, and the owner of the results they store.

In a session the owner is the user in that session; sessionless, the user (the
:data:`MAX_USERS` seen last). Two users never share an owner, so neither reads the
other's results.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from typing import Any

from mcp.server.auth.provider import AccessToken

__all__ = ["MAX_USERS", "UserOwner", "Users", "access_in", "access_of", "who"]

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


def who(client_id: object, subject: object) -> dict[str, str]:
    """What a log record says of a verified token: its client and subject.

    It takes the two fields, never the token: the caller is read from the token once.
    """
    found = {"client": str(client_id)}
    if subject:
        found["user"] = str(subject)
    return found


class Users:
    """The owners of users' results: per user in a session, per user when sessionless."""

    def __init__(self, max_users: int = MAX_USERS) -> None:
        self._in_session: weakref.WeakKeyDictionary[Any, dict[Hashable, UserOwner]]
        self._in_session = weakref.WeakKeyDictionary()
        self._recent: OrderedDict[Hashable, UserOwner] = OrderedDict()
        self._max = max_users

    def owner(self, user: Hashable, connection: Any, sessionless: bool) -> UserOwner:
        """The owner of the results of ``user`` (their key), in ``connection``'s session."""
        if not sessionless:
            owners = self._in_session.setdefault(connection, {})
            return owners.setdefault(user, UserOwner(user))
        found = self._recent.pop(user, None) or UserOwner(user)
        self._recent[user] = found
        while len(self._recent) > self._max:
            self._recent.popitem(last=False)
        return found
