"""Each signed-in user's own tools: spec instances per user, bounded, idle ones dropped.

A server many people use must not answer one person's call with another person's account,
results or cache, so each user gets spec instances of their own, built on their first call
and owning the results they store. With ``version``, a replica rebuilds a user's tools
once they signed out on another.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolspecs.core.errors import ConfigurationError
from toolspecs.core.tool import GuardedTool

__all__ = ["User", "UserTools"]

# Users kept at once, and seconds a user's tools stay unused before they are dropped.
MAX_USERS = 256
IDLE_SECONDS = 900.0


@dataclass(frozen=True, eq=False)
class User:
    """One person, as their verified access token names them (``key``: issuer and subject)."""

    key: str
    subject: str
    issuer: str | None = None
    email: str | None = None
    scopes: frozenset[str] = frozenset()
    claims: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def named(
        cls,
        subject: str,
        issuer: str | None = None,
        *,
        email: str | None = None,
        scopes: Sequence[str] = (),
        claims: dict[str, Any] | None = None,
    ) -> User:
        """A user from a token's ``sub`` and ``iss``."""
        if not subject:
            raise ValueError("a user needs a subject (the token's 'sub')")
        return cls(
            key=f"{issuer or ''} {subject}",
            subject=subject,
            issuer=issuer,
            email=email,
            scopes=frozenset(scopes),
            claims=dict(claims or {}),
        )


@dataclass
class _Entry:
    user: User
    ready: threading.Event = field(default_factory=threading.Event)
    tools: dict[str, GuardedTool] | None = None
    error: BaseException | None = None
    used: float = 0.0
    version: object = None


class UserTools:
    """Each user's own tools, built on first use by ``build(user)`` and kept while used.

    ``names`` are the listed tools' (every user's must match); ``version(user)``: tools built
    under another are built anew; ``key(user)``: tools built for one key are never handed to
    another (default ``user.key``).
    """

    def __init__(
        self,
        build: Callable[[User], Sequence[GuardedTool]],
        names: Sequence[str],
        *,
        max_users: int = MAX_USERS,
        idle_seconds: float = IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        version: Callable[[User], object] | None = None,
        key: Callable[[User], str] | None = None,
    ) -> None:
        if max_users < 1:
            raise ConfigurationError(f"max_users must be at least 1, not {max_users}")
        self.build = build
        self.names = list(names)
        self.max_users = max_users
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.version = version
        self.key = key or (lambda user: user.key)
        self._entries: OrderedDict[str, _Entry] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def cached(self, user: User) -> tuple[User, dict[str, GuardedTool]] | None:
        """The user's tools if they are built (no waiting, no building): for an event loop."""
        now, key = self.clock(), self.key(user)
        version = self.version(user) if self.version is not None else None
        with self._lock:
            self._drop_idle(now)
            entry = self._entries.get(key)
            if entry is None or entry.tools is None or entry.version != version:
                return None
            entry.used = now
            self._entries.move_to_end(key)
            return entry.user, entry.tools

    def get(self, user: User) -> tuple[User, dict[str, GuardedTool]]:
        """The user's tools, built now on their first call (this thread may wait)."""
        now, key = self.clock(), self.key(user)
        version = self.version(user) if self.version is not None else None
        with self._lock:
            self._drop_idle(now)
            entry = self._entries.get(key)
            if entry is not None and entry.version != version:
                entry = None  # built before a sign-out (or under another version): anew
            mine = entry is None
            if entry is None:
                entry = self._entries[key] = _Entry(user, used=now, version=version)
                while len(self._entries) > self.max_users:
                    self._entries.popitem(last=False)
            entry.used = now
            self._entries.move_to_end(key)
        if mine:
            try:
                entry.tools = self._checked(self.build(user))
            except BaseException as exc:
                entry.error = exc
                with self._lock:
                    if self._entries.get(key) is entry:
                        del self._entries[key]  # the next call builds again
                raise
            finally:
                entry.ready.set()
        else:
            entry.ready.wait()
            if entry.error is not None:
                raise entry.error
        assert entry.tools is not None
        return entry.user, entry.tools

    def drop(self, user: User) -> None:
        """Forget the user's tools (signed out, or their access revoked)."""
        with self._lock:
            self._entries.pop(self.key(user), None)

    def _drop_idle(self, now: float) -> None:
        while self._entries:
            key, oldest = next(iter(self._entries.items()))
            if oldest.tools is None or now - oldest.used < self.idle_seconds:
                return
            del self._entries[key]

    def _checked(self, tools: Sequence[GuardedTool]) -> dict[str, GuardedTool]:
        built = {tool.metadata.get_name(): tool for tool in tools}
        if list(built) != self.names:
            raise ConfigurationError(
                "a user's tools must be the tools the server lists: built "
                f"{sorted(built)}, listed {sorted(self.names)}"
            )
        return built
