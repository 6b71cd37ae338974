"""The sign-in server's own state (clients, trips to Google, codes, tokens), shared by replicas.

Records are kept under a SHA-256 of their secret, never the secret, in this process
(:class:`SignInState`, each kind bounded) or in Redis with a TTL each
(:class:`RedisSignInState`). ``take`` and ``spend`` are atomic, so a code or refresh token
redeemed on two replicas at once is taken by one only; ``add`` (``SET NX``) lets one of two
browsers bind a consent page. Redis unreachable: :class:`SignInUnavailable` (never
redis-py's error, whose text may name the host), answered 503.
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
# The most rate counts kept at once in memory (one per address and limit in a window).
MAX_COUNTED = 100_000


class SignInUnavailable(Exception):
    """The shared sign-in state cannot be reached now (Redis is down): retry later."""


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the shared state (or the vault beside it in Redis) is out of reach."""
    if isinstance(exc, SignInUnavailable):
        return True
    redis = sys.modules.get("redis")  # only a process that uses Redis can have its errors
    return redis is not None and isinstance(exc, redis.exceptions.RedisError)


class SignInState:
    """The provider's records and counters, in this process."""

    #: Whether the methods block on the network (the provider calls them in a thread).
    blocking = False

    def __init__(self, clock: Callable[[], float] = time.time, max_kept: int = MAX_KEPT) -> None:
        self.clock = clock
        self.max_kept = max_kept
        self._kinds: dict[str, OrderedDict[str, tuple[float, dict[str, Any]]]] = {}
        # Counters are not bounded by count (dropping one could revive a revoked token):
        # only revocations make them, and each goes once its tokens can no longer live.
        self._counters: dict[str, tuple[float, int]] = {}
        # The counts of rate limits: name -> (end of its window, count).
        self._hits: OrderedDict[str, tuple[float, int]] = OrderedDict()
        self._puts = 0
        self._lock = threading.RLock()

    def put(
        self, kind: str, key: str, record: dict[str, Any], seconds: float, bound: int | None = None
    ) -> None:
        """Keep ``record`` under ``key`` of ``kind`` for ``seconds``, at most ``bound`` of the kind.

        ``bound``: ``0``, none go by count; ``None``, this state's default (in memory ``max_kept``).
        """
        now = self.clock()
        limit = self.max_kept if bound is None else bound
        with self._lock:
            kept = self._kinds.setdefault(kind, OrderedDict())
            kept.pop(key, None)
            self._puts += 1
            if self._puts % 1024 == 0:  # now and then, the expired behind a longer life
                for gone in [k for k, (until, _) in kept.items() if until < now]:
                    del kept[gone]
            while kept and ((limit and len(kept) >= limit) or next(iter(kept.values()))[0] < now):
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
                kept.move_to_end(key)  # the order stays the order of expiry
            return found[1]

    def delete(self, kind: str, key: str) -> None:
        """Forget the record under ``key``, if any."""
        with self._lock:
            self._kinds.get(kind, OrderedDict()).pop(key, None)

    def take(self, kind: str, key: str) -> dict[str, Any] | None:
        """The record under ``key``, deleted at once: of two takers, one gets it."""
        now = self.clock()
        with self._lock:
            found = self._kinds.get(kind, OrderedDict()).pop(key, None)
        return found[1] if found is not None and found[0] >= now else None

    def add(
        self, kind: str, key: str, record: dict[str, Any], seconds: float, bound: int | None = None
    ) -> bool:
        """Keep ``record`` under ``key`` unless one is kept there: of two adders, one wins."""
        with self._lock:  # reentrant: put takes it too
            found = self._kinds.get(kind, OrderedDict()).get(key)
            if found is not None and found[0] >= self.clock():
                return False
            self.put(kind, key, record, seconds, bound)
            return True

    def spend(self, kind: str, key: str, into: str) -> dict[str, Any] | None:
        """Like :meth:`take`, and the record is kept under ``into`` for the rest of its life."""
        now = self.clock()
        with self._lock:
            found = self._kinds.get(kind, OrderedDict()).pop(key, None)
        if found is None or found[0] < now:
            return None
        self.put(into, key, found[1], found[0] - now)
        return found[1]

    def counters(self, *names: str, hold: float | None = None) -> list[int]:
        """The counters named (0 for one never bumped or gone); ``hold`` keeps them that long."""
        now = self.clock()
        with self._lock:
            found = [self._counters.get(name, (0.0, 0)) for name in names]
            values = [value if until >= now else 0 for until, value in found]
            if hold is not None:
                for name, value in zip(names, values, strict=True):
                    if value:
                        self._counters[name] = (max(now + hold, self._counters[name][0]), value)
        return values

    def bump(self, name: str, seconds: float) -> int:
        """Add one to the counter ``name``, kept ``seconds`` from now; its new value."""
        now = self.clock()
        with self._lock:
            for gone in [n for n, (until, _) in self._counters.items() if until < now]:
                del self._counters[gone]
            value = self._counters.get(name, (0.0, 0))[1] + 1
            self._counters[name] = (now + seconds, value)
            return value

    def hits(self, name: str, window: float) -> tuple[int, float]:
        """One more hit of ``name`` in its fixed window: the count, and seconds till it ends."""
        now = self.clock()
        ends = (now // window + 1) * window
        with self._lock:
            while self._hits and (
                len(self._hits) >= MAX_COUNTED or next(iter(self._hits.values()))[0] <= now
            ):
                self._hits.popitem(last=False)  # windows end in the order they began
            until, count = self._hits.pop(name, (ends, 0))
            count = count + 1 if until > now else 1
            self._hits[name] = (ends, count)
        return count, ends - now


class RedisSignInState(SignInState):
    """The same records and counters in Redis (or Valkey); ``client`` may be a URL."""

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

    def _pool(self, kind: str) -> str:
        return f"{self._prefix}:pool:{kind}"

    def _counter(self, name: str) -> str:
        return f"{self._prefix}:n:{hashlib.sha256(name.encode()).hexdigest()}"

    @contextmanager
    def _reaching(self) -> Iterator[None]:
        try:
            yield
        except self._error:
            raise SignInUnavailable("the sign-in state (Redis) cannot be reached") from None

    def put(
        self, kind: str, key: str, record: dict[str, Any], seconds: float, bound: int | None = None
    ) -> None:
        """Keep ``record`` under ``key`` with a TTL of ``seconds`` (and count it, if bounded)."""
        life = max(1, int(seconds))
        with self._reaching():
            if not bound:
                self._client.set(self._key(kind, key), json.dumps(record), ex=life)
                return
            pipe = self._client.pipeline(transaction=True)
            pipe.set(self._key(kind, key), json.dumps(record), ex=life)
            self._trim(kind, bound, self._counted(pipe, kind, key, life).execute()[-1])

    def _counted(self, pipe: Any, kind: str, key: str, life: int) -> Any:
        now = self.clock()
        pool = self._pool(kind)
        pipe.zremrangebyscore(pool, "-inf", now)
        pipe.zadd(pool, {key: now + life})
        pipe.expire(pool, life)
        pipe.zcard(pool)
        return pipe

    def _trim(self, kind: str, bound: int, count: int) -> None:
        if count > bound:
            gone = [k.decode() for k, _ in self._client.zpopmin(self._pool(kind), count - bound)]
            self._client.delete(*[self._key(kind, k) for k in gone])

    def get(self, kind: str, key: str, touch: float | None = None) -> dict[str, Any] | None:
        """The record under ``key``; ``touch`` renews its TTL (``GETEX``)."""
        with self._reaching():
            if touch is None:
                value = self._client.get(self._key(kind, key))
            else:
                value = self._client.getex(self._key(kind, key), ex=max(1, int(touch)))
        return _record(value)

    def delete(self, kind: str, key: str) -> None:
        """``DEL`` the record (and ``ZREM`` it from its kind's count)."""
        with self._reaching():
            pipe = self._client.pipeline(transaction=True)
            pipe.delete(self._key(kind, key))
            pipe.zrem(self._pool(kind), key)
            pipe.execute()

    def take(self, kind: str, key: str) -> dict[str, Any] | None:
        """``GET`` and ``DEL`` (and ``ZREM``) in one transaction: of two replicas, one gets it."""
        with self._reaching():
            pipe = self._client.pipeline(transaction=True)
            pipe.get(self._key(kind, key))
            pipe.delete(self._key(kind, key))
            pipe.zrem(self._pool(kind), key)
            value, _, _ = pipe.execute()
        return _record(value)

    def add(
        self, kind: str, key: str, record: dict[str, Any], seconds: float, bound: int | None = None
    ) -> bool:
        """``SET NX`` with a TTL: of two replicas adding at once, one wins (counted if bounded)."""
        life = max(1, int(seconds))
        with self._reaching():
            added = self._client.set(self._key(kind, key), json.dumps(record), ex=life, nx=True)
            if added and bound:
                pipe = self._counted(self._client.pipeline(transaction=True), kind, key, life)
                self._trim(kind, bound, pipe.execute()[-1])
        return bool(added)

    def spend(self, kind: str, key: str, into: str) -> dict[str, Any] | None:
        """``GET`` and ``RENAME`` (which keeps the TTL) in one transaction."""
        with self._reaching():
            pipe = self._client.pipeline(transaction=True)
            pipe.get(self._key(kind, key))
            pipe.rename(self._key(kind, key), self._key(into, key))
            value, _ = pipe.execute(raise_on_error=False)  # RENAME fails when none is left
        return _record(value)

    def counters(self, *names: str, hold: float | None = None) -> list[int]:
        """The counters named (0 for one never bumped or expired); ``hold``: see above."""
        keys = [self._counter(n) for n in names]
        with self._reaching():
            if hold is None:
                values = self._client.mget(keys)
            else:
                pipe = self._client.pipeline(transaction=True)
                pipe.mget(keys)
                for key in keys:  # nothing to a counter that does not exist (bump: same life)
                    pipe.expire(key, max(1, int(hold)))
                values = pipe.execute()[0]
        return [int(v) if v is not None else 0 for v in values]

    def bump(self, name: str, seconds: float) -> int:
        """``INCR`` and ``EXPIRE`` in one transaction; the new value."""
        with self._reaching():
            pipe = self._client.pipeline(transaction=True)
            pipe.incr(self._counter(name))
            pipe.expire(self._counter(name), max(1, int(seconds)))
            value, _ = pipe.execute()
        return int(value)

    def hits(self, name: str, window: float) -> tuple[int, float]:
        """``INCR`` the window's counter (it expires with the window)."""
        now = self.clock()
        index = int(now // window)
        key = f"{self._prefix}:rate:{index}:{hashlib.sha256(name.encode()).hexdigest()}"
        with self._reaching():
            pipe = self._client.pipeline(transaction=True)
            pipe.incr(key)
            pipe.expire(key, max(1, int(window) + 1))
            count, _ = pipe.execute()
        return int(count), (index + 1) * window - now


def _record(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    try:
        record = json.loads(value)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None
