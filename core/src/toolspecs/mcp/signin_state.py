"""The sign-in server's own state (clients, trips to Google, codes, tokens), shared by replicas.

:class:`toolspecs.mcp.google_signin.GoogleSignInProvider` keeps small JSON records of
several kinds (registered clients, people on their way to Google, our codes, our access
and refresh tokens) and a few counters (a user's sign-in generation, a client's token
epoch). Every record is kept under a key the provider gives, a SHA-256 of the token, code
or ``state`` (never the secret itself), for the record's lifetime.

- :class:`SignInState` (the default): in this process, each kind bounded (the oldest go).
- :class:`RedisSignInState` (``--store redis://``): the same records in Redis (or Valkey)
  through redis-py, as :mod:`toolspecs.mcp.token_vault` connects, each key with a TTL equal
  to its record's life. So a client registered through one replica, a sign-in started on
  one and finished on another, a code redeemed on a third, and a token issued by any are
  accepted by every replica.

:meth:`SignInState.take` reads and deletes at once (a Redis ``MULTI``/``EXEC`` of ``GET``
and ``DEL``): a code or refresh token redeemed on two replicas at the same moment is
taken by one of them only.

Redis unreachable: every method raises :class:`SignInUnavailable` (never redis-py's error,
whose text may name the host); the HTTP app answers it with a 503
``temporarily_unavailable`` (:func:`toolspecs.mcp.google_accounts.sign_in_app`).
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from toolspecs.adapters.tools import require

__all__ = ["MAX_KEPT", "RedisSignInState", "SignInState", "SignInUnavailable", "unreachable"]

# The most records of one kind kept at once in memory (a flood cannot fill the memory).
MAX_KEPT = 10_000


class SignInUnavailable(Exception):
    """The shared sign-in state cannot be reached now (Redis is down): retry later."""


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the shared state (or the vault beside it in Redis) is out of reach."""
    if isinstance(exc, SignInUnavailable):
        return True
    redis = sys.modules.get("redis")  # only a process that uses Redis can have its errors
    return redis is not None and isinstance(exc, redis.exceptions.RedisError)


class SignInState:
    """The provider's records and counters, in this process.

    Args:
        clock: Seconds since the epoch (records expire by it).
        max_kept: The most records of one kind kept at once; past it the oldest go.
    """

    #: Whether the methods block on the network (the provider calls them in a thread).
    blocking = False

    def __init__(self, clock: Callable[[], float] = time.time, max_kept: int = MAX_KEPT) -> None:
        self.clock = clock
        self.max_kept = max_kept
        self._kinds: dict[str, OrderedDict[str, tuple[float, dict[str, Any]]]] = {}
        # Counters are not bounded by count (dropping one could revive a revoked token):
        # only revocations make them, and each goes once its tokens can no longer live.
        self._counters: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def put(self, kind: str, key: str, record: dict[str, Any], seconds: float) -> None:
        """Keep ``record`` under ``key`` for ``seconds``."""
        now = self.clock()
        with self._lock:
            kept = self._kinds.setdefault(kind, OrderedDict())
            kept.pop(key, None)
            while kept and (len(kept) >= self.max_kept or next(iter(kept.values()))[0] < now):
                kept.popitem(last=False)  # the oldest (or expired) first
            kept[key] = (now + seconds, record)

    def get(self, kind: str, key: str, touch: float | None = None) -> dict[str, Any] | None:
        """The record under ``key`` (``None`` when none or expired); ``touch`` renews its life."""
        now = self.clock()
        with self._lock:
            kept = self._kinds.get(kind, OrderedDict())
            found = kept.get(key)
            if found is None or found[0] < now:
                return None
            if touch is not None:
                kept[key] = (now + touch, found[1])
            return found[1]

    def take(self, kind: str, key: str) -> dict[str, Any] | None:
        """The record under ``key``, deleted at once: of two takers, one gets it."""
        now = self.clock()
        with self._lock:
            found = self._kinds.get(kind, OrderedDict()).pop(key, None)
        return found[1] if found is not None and found[0] >= now else None

    def counters(self, *names: str) -> list[int]:
        """The counters named (0 for one never bumped or gone)."""
        now = self.clock()
        with self._lock:
            found = [self._counters.get(name, (0.0, 0)) for name in names]
        return [value if until >= now else 0 for until, value in found]

    def bump(self, name: str, seconds: float) -> int:
        """Add one to the counter ``name``, kept ``seconds`` from now; its new value."""
        now = self.clock()
        with self._lock:
            for gone in [n for n, (until, _) in self._counters.items() if until < now]:
                del self._counters[gone]
            value = self._counters.get(name, (0.0, 0))[1] + 1
            self._counters[name] = (now + seconds, value)
            return value


class RedisSignInState(SignInState):
    """The same records and counters in Redis (or Valkey), shared by every replica.

    Args:
        client: A ``redis.Redis`` client, or a ``redis://`` URL.
        prefix: The start of every key.
    """

    blocking = True

    def __init__(self, client: Any, prefix: str = "toolspecs:signin") -> None:
        super().__init__()
        redis = require("redis", "redis")
        if isinstance(client, str):
            client = redis.Redis.from_url(client, socket_timeout=5, socket_connect_timeout=5)
        self._client = client
        self._prefix = prefix
        self._error = redis.exceptions.RedisError

    def _key(self, kind: str, key: str) -> str:
        return f"{self._prefix}:{kind}:{key}"

    def _counter(self, name: str) -> str:
        return f"{self._prefix}:n:{hashlib.sha256(name.encode()).hexdigest()}"

    @contextmanager
    def _reaching(self) -> Iterator[None]:
        try:
            yield
        except self._error:
            raise SignInUnavailable("the sign-in state (Redis) cannot be reached") from None

    def put(self, kind: str, key: str, record: dict[str, Any], seconds: float) -> None:
        """Keep ``record`` under ``key`` with a TTL of ``seconds``."""
        with self._reaching():
            self._client.set(self._key(kind, key), json.dumps(record), ex=max(1, int(seconds)))

    def get(self, kind: str, key: str, touch: float | None = None) -> dict[str, Any] | None:
        """The record under ``key``; ``touch`` renews its TTL (``GETEX``)."""
        with self._reaching():
            if touch is None:
                value = self._client.get(self._key(kind, key))
            else:
                value = self._client.getex(self._key(kind, key), ex=max(1, int(touch)))
        return _record(value)

    def take(self, kind: str, key: str) -> dict[str, Any] | None:
        """``GET`` and ``DEL`` in one transaction: of two replicas, one gets it."""
        with self._reaching():
            pipe = self._client.pipeline(transaction=True)
            pipe.get(self._key(kind, key))
            pipe.delete(self._key(kind, key))
            value, _ = pipe.execute()
        return _record(value)

    def counters(self, *names: str) -> list[int]:
        """The counters named (0 for one never bumped or expired)."""
        with self._reaching():
            values = self._client.mget([self._counter(n) for n in names])
        return [int(v) if v is not None else 0 for v in values]

    def bump(self, name: str, seconds: float) -> int:
        """``INCR`` and ``EXPIRE`` in one transaction; the new value."""
        with self._reaching():
            pipe = self._client.pipeline(transaction=True)
            pipe.incr(self._counter(name))
            pipe.expire(self._counter(name), max(1, int(seconds)))
            value, _ = pipe.execute()
        return int(value)


def _record(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    try:
        record = json.loads(value)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None
