"""A cache of public answers in Redis (or Valkey), shared by every process on one server.

**Only public data.** An entry is keyed by what was asked, not by who asked: every user
of the server reads it, so anything of a user's own belongs in the result store, keyed
by its owner. Keys are SHA-256 digests: no text an agent wrote becomes a Redis key.

Storing is one Lua script (Redis runs it alone), so two replicas cannot overshoot
``max_bytes``; one server or a primary with replicas, not Redis Cluster. A Redis that
fails is a miss (logged once), and one that cannot be reached is left alone for
:attr:`RedisCache.pause` seconds, so a hanging server does not slow every call.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["RedisCache"]

log = logging.getLogger("toolspecs.cache")

_NOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS: lru, exp, size, total, uses. ARGV: entry prefix, digest, value, ttl_ms, max_bytes.
# The order of use is a counter (uses), not the time: two uses in one millisecond differ.
_PUT = (
    _NOW
    + """
local lru, exp, sizes, total, base = KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1]
local use = redis.call('INCR', KEYS[5])
local function forget(member)
  local size = tonumber(redis.call('HGET', sizes, member) or '0')
  redis.call('HDEL', sizes, member)
  redis.call('ZREM', lru, member)
  redis.call('ZREM', exp, member)
  redis.call('DECRBY', total, size)
  redis.call('DEL', base .. member)
end
for _, member in ipairs(redis.call('ZRANGEBYSCORE', exp, '-inf', now)) do forget(member) end
local digest, value = ARGV[2], ARGV[3]
local ttl, bound = tonumber(ARGV[4]), tonumber(ARGV[5])
if redis.call('HEXISTS', sizes, digest) == 1 then forget(digest) end
redis.call('SET', base .. digest, value, 'PX', ttl)
redis.call('HSET', sizes, digest, #value)
redis.call('ZADD', lru, use, digest)
redis.call('ZADD', exp, now + ttl, digest)
local sum = redis.call('INCRBY', total, #value)
while sum > bound do
  local oldest = redis.call('ZRANGE', lru, 0, 0)[1]
  if oldest == nil or oldest == digest then break end
  forget(oldest)
  sum = tonumber(redis.call('GET', total))
end
for _, key in ipairs(KEYS) do
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
return sum
"""
)

# KEYS: lru, uses, entry. ARGV: digest.
_GET = """
local value = redis.call('GET', KEYS[3])
if value and redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], redis.call('INCR', KEYS[2]), ARGV[1])
end
return value
"""


class RedisCache:
    """Bytes by key in Redis, under a namespace (never an agent's text), a TTL and bounds."""

    pause: float = 30.0
    """Seconds Redis is not asked after it failed (the service is asked instead)."""

    def __init__(
        self,
        client: Any,
        namespace: str,
        *,
        prefix: str = "toolspecs",
        ttl: float = 300.0,
        max_entry_bytes: int = 2**20,
        max_bytes: int = 64 * 2**20,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        import redis

        self.client = client
        self.namespace = namespace
        self.ttl = ttl
        self.max_entry_bytes = max_entry_bytes
        self.max_bytes = max_bytes
        self.base = f"{prefix}:cache:{namespace}"
        self._index = [f"{self.base}:{name}" for name in ("lru", "exp", "size", "total", "uses")]
        self._errors: tuple[type[BaseException], ...] = (redis.exceptions.RedisError,)
        # A server that is down or hangs is left alone for a while; one that refuses a
        # command (out of memory, read-only replica) is asked again on the next call.
        self._unreachable: tuple[type[BaseException], ...] = (
            redis.exceptions.ConnectionError,
            redis.exceptions.TimeoutError,
        )
        self._put = client.register_script(_PUT)
        self._get = client.register_script(_GET)
        self._clock = clock
        self._lock = threading.Lock()
        self._down_until: float | None = None  # until when Redis is left alone
        self._failing = False  # since the last failure logged, until Redis answers

    def __repr__(self) -> str:
        return (
            f"RedisCache({self.namespace!r}, ttl={self.ttl}, "
            f"max_entry_bytes={self.max_entry_bytes}, max_bytes={self.max_bytes})"
        )

    def key(self, key: str) -> str:
        """The Redis key of the entry under ``key``: a digest, never the key itself."""
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        return f"{self.base}:e:{digest}"

    def get(self, key: str) -> bytes | None:
        """The bytes under ``key``, or ``None`` (also when Redis cannot be reached)."""
        if self._resting():
            return None
        entry = self.key(key)
        try:
            value = self._get(
                keys=[self._index[0], self._index[4], entry], args=[entry.rsplit(":", 1)[1]]
            )
        except self._errors as exc:
            self._failed("read", exc)
            return None
        self._answered()
        return bytes(value) if value is not None else None

    def put(self, key: str, value: bytes) -> None:
        """Keep ``value`` under ``key``; skipped past the bounds or when Redis fails."""
        if self.ttl <= 0 or len(value) > min(self.max_entry_bytes, self.max_bytes):
            return  # checked here: an oversized entry is never sent
        if self._resting():
            return
        entry = self.key(key)
        ttl_ms = max(int(self.ttl * 1000), 1)
        arguments = [f"{self.base}:e:", entry.rsplit(":", 1)[1], value, ttl_ms, self.max_bytes]
        try:
            self._put(keys=self._index, args=arguments)
        except self._errors as exc:
            self._failed("write", exc)
            return
        self._answered()

    def _resting(self) -> bool:
        until = self._down_until
        return until is not None and self._clock() < until

    def _failed(self, what: str, exc: BaseException) -> None:
        with self._lock:
            first = not self._failing
            self._failing = True
            if isinstance(exc, self._unreachable):
                self._down_until = self._clock() + self.pause
        # Once until Redis answers again. redis-py's messages name the host and port,
        # never the URL's password.
        if first:
            log.warning(
                "the %s cache in Redis cannot be used (a %s failed: %s: %s); asking the "
                "service instead, and Redis again in %g s",
                self.namespace,
                what,
                type(exc).__name__,
                exc,
                self.pause,
            )

    def _answered(self) -> None:
        if self._failing:
            with self._lock:
                if self._failing:
                    self._failing = False
                    self._down_until = None
                    log.info("the %s cache in Redis answers again", self.namespace)
