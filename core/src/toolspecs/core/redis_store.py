"""Stored results in Redis (or Valkey), so that any process serving a user reads them.

One owner's results of one spec live under ``{prefix}:{digest}``, a SHA-256 of the
owner's key and the spec's scope, so an id sent under another owner names nothing
(keys ``…:seq``, ``…:live``, ``…:gone``, ``…:r:{id}``). Scripts name the keys they drop
from that prefix: one server or a primary with replicas, not Redis Cluster.

Storing is one Lua script, which Redis runs alone, so two processes never overshoot the
bounds; expiry reads the server's clock (``TIME``) so skewed replicas agree, and every
key has a TTL. The BM25 index is not stored (it would be larger than the text): a
process builds it on first read and caches it within ``cache_bytes``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from llama_index.core.schema import Document

from toolspecs.core.errors import ConfigurationError, RetryLater
from toolspecs.core.owners import owner_key
from toolspecs.core.passages import Passages
from toolspecs.core.store import OutputBudget, StoredResult, choose, cut_result, held_by

__all__ = ["REMEMBER_DROPPED", "RedisResults", "RedisStore", "open_store"]

REMEMBER_DROPPED = 1024

# Drops the results whose time is up. KEYS: live, gone; ARGV: result key prefix, ttl_ms.
_EXPIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live, gone, base = KEYS[1], KEYS[2], ARGV[1]
local function drop(id, meta, reason)
  local fn = string.match(meta, '^%d+ %d+ (.*)$')
  redis.call('HDEL', live, id)
  redis.call('DEL', base .. id)
  redis.call('ZADD', gone, tonumber(id), id .. ' ' .. reason .. ' ' .. fn)
  if redis.call('PTTL', gone) < 0 then redis.call('PEXPIRE', gone, tonumber(ARGV[2])) end
end
local kept = {}
local entries = redis.call('HGETALL', live)
for i = 1, #entries, 2 do
  local expires, held = string.match(entries[i + 1], '^(%d+) (%d+) ')
  if tonumber(expires) <= now then
    drop(entries[i], entries[i + 1], 'expired')
  else
    table.insert(kept, {tonumber(entries[i]), tonumber(held), entries[i + 1]})
  end
end
"""

# Stores one result and keeps the bounds. KEYS: live, gone, seq. ARGV: base, ttl_ms,
# keep, max_bytes, remember, function, held, then the result's fields and values.
_ADD = (
    _EXPIRE
    + """
local ttl, keep, bound = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local remember, fn, held = tonumber(ARGV[5]), ARGV[6], tonumber(ARGV[7])
local id = redis.call('INCR', KEYS[3])
local meta = (now + ttl) .. ' ' .. held .. ' ' .. fn
redis.call('HSET', base .. id, unpack(ARGV, 8))
redis.call('PEXPIRE', base .. id, ttl)
redis.call('HSET', live, id, meta)
table.insert(kept, {id, held, meta})
table.sort(kept, function(a, b) return a[1] < b[1] end)
local total = 0
for _, entry in ipairs(kept) do total = total + entry[2] end
local first = 1
while #kept - first >= 1 and (#kept - first + 1 > keep or total > bound) do
  total = total - kept[first][2]
  drop(tostring(kept[first][1]), kept[first][3], 'room')
  first = first + 1
end
local count = redis.call('ZCARD', gone)
if count > remember then redis.call('ZREMRANGEBYRANK', gone, 0, count - remember - 1) end
for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ttl) end
return id
"""
)

# What a read needs: the results kept (expired ones dropped first) and those gone.
_VIEW = _EXPIRE + "\nreturn {redis.call('HGETALL', live), redis.call('ZRANGE', gone, 0, -1)}"


class RedisStore:
    """Stored results in Redis, scoped to their owner; set it as ``ToolSpec.result_store``.

    Args:
        client: A ``redis.Redis`` client (``decode_responses`` off), or a URL.
        prefix: The start of every key, to share a server with other data.
        ttl: Seconds a stored result is kept from when it was stored.
        cache_bytes: The most memory this process's cache of read results holds.
    """

    blocking = True  # reads wait on the server: the reader tool runs in a worker thread

    def __init__(
        self,
        client: Any,
        *,
        prefix: str = "toolspecs",
        ttl: float = 3600.0,
        cache_bytes: int = 64 * 2**20,
    ) -> None:
        try:
            import redis
        except ImportError as exc:
            raise ImportError(
                'redis is not installed: pip install "toolspecs-core[redis]"'
            ) from exc
        if isinstance(client, str):
            client = redis.Redis.from_url(client, socket_timeout=5, socket_connect_timeout=5)
        self.client = client
        self.prefix = prefix
        self.ttl = ttl
        self.cache_bytes = cache_bytes
        self._errors: tuple[type[BaseException], ...] = (redis.exceptions.RedisError,)
        self._add = client.register_script(_ADD)
        self._view = client.register_script(_VIEW)
        self._cache: OrderedDict[tuple[str, int], tuple[StoredResult, int]] = OrderedDict()
        self._cached = 0
        self._lock = threading.Lock()
        self._caches: dict[tuple[str, float, int, int], RedisCache] = {}

    def ping(self) -> None:
        """Check that the server answers (else ``ConfigurationError``, saying where and why)."""
        try:
            self.client.ping()
        except self._errors as exc:
            where = self.client.connection_pool.connection_kwargs
            at = where.get("path") or f"{where.get('host')}:{where.get('port')}"
            raise ConfigurationError(
                f"cannot reach Redis at {at} ({exc}); start it or fix the store URL"
            ) from None

    def cache_for(
        self, namespace: str, *, ttl: float, max_entry_bytes: int, max_bytes: int
    ) -> RedisCache:
        """The cache of public answers named ``namespace``, one per bounds, shared by specs."""
        key = (namespace, ttl, max_entry_bytes, max_bytes)
        with self._lock:
            found = self._caches.get(key)
            if found is None:
                found = self._caches[key] = RedisCache(
                    self.client,
                    namespace,
                    prefix=self.prefix,
                    ttl=ttl,
                    max_entry_bytes=max_entry_bytes,
                    max_bytes=max_bytes,
                )
            return found

    def results(self, owner: object, scope: str, budget: OutputBudget) -> RedisResults:
        """The stored results of ``owner`` for the spec named ``scope``."""
        digest = hashlib.sha256(f"{owner_key(owner)}\0{scope}".encode()).hexdigest()[:32]
        return RedisResults(self, f"{self.prefix}:{digest}", budget)

    @contextmanager
    def reaching(self) -> Iterator[None]:
        """Redis failures, as guidance to try again later."""
        try:
            yield
        except self._errors:
            raise RetryLater(
                "The store of long results (Redis) cannot be reached just now.",
                "Try the same call again in a minute; if it keeps failing, tell the user.",
            ) from None

    def cached(self, base: str, result_id: int) -> StoredResult | None:
        """A result this process stored or read, if it is still in its cache."""
        with self._lock:
            found = self._cache.get((base, result_id))
            if found is None:
                return None
            self._cache.move_to_end((base, result_id))
            return found[0]

    def cache(self, base: str, stored: StoredResult, texts: list[str]) -> None:
        """Keep ``stored`` (its BM25 index built) for the next reads of this process."""
        cost = held_by(stored, texts)
        with self._lock:
            key = (base, stored.result_id)
            if key in self._cache:
                return
            self._cache[key] = (stored, cost)
            self._cached += cost
            while self._cached > self.cache_bytes and self._cache:
                _, (_, dropped) = self._cache.popitem(last=False)
                self._cached -= dropped


class RedisResults:
    """One owner's stored results of one spec, in Redis (see :class:`RedisStore`)."""

    def __init__(self, store: RedisStore, base: str, budget: OutputBudget) -> None:
        self.store = store
        self.base = base
        self.budget = budget
        self._keys = [f"{base}:live", f"{base}:gone"]
        self._ttl = max(int(store.ttl * 1000), 1)

    def add(
        self,
        function: str,
        text_or_documents: str | list[Document],
        source: Callable[[Document], str] | None = None,
    ) -> StoredResult:
        """Cut a result into passages and store it under a new id (see :class:`RedisStore`)."""
        stored, texts = cut_result(self.budget, function, text_or_documents, source)
        fields = _fields(stored, texts)
        stored.held = sum(len(value) for value in fields.values())
        arguments: list[Any] = [
            f"{self.base}:r:",
            self._ttl,
            self.budget.keep,
            self.budget.max_stored_bytes,
            REMEMBER_DROPPED,
            function,
            stored.held,
        ]
        for name, value in fields.items():
            arguments += [name, value]
        with self.store.reaching():
            stored.result_id = int(
                self.store._add(keys=[*self._keys, f"{self.base}:seq"], args=arguments)
            )
        if self.budget.embed_model is None and stored.passages:
            stored.index()  # BM25 now, so that this process's first read is quick
        self.store.cache(self.base, stored, texts)
        return stored

    def _view(self) -> tuple[list[tuple[int, str, int]], dict[int, tuple[str, str]]]:
        with self.store.reaching():
            live, gone = self.store._view(keys=self._keys, args=[f"{self.base}:r:", self._ttl])
        kept = []
        for i in range(0, len(live), 2):
            _, held, function = live[i + 1].decode().split(" ", 2)
            kept.append((int(live[i]), function, int(held)))
        dropped = {}
        for member in gone:
            result_id, reason, function = member.decode().split(" ", 2)
            dropped[int(result_id)] = (function, reason)
        return sorted(kept), dropped

    def held(self) -> int:
        """The bytes the stored results hold in Redis, as counted against the bound."""
        return sum(held for _, _, held in self._view()[0])

    def dropped(self, result_id: int) -> str | None:
        """The function whose result ``result_id`` was dropped (or expired), if one was."""
        found = self._view()[1].get(result_id)
        return found[0] if found else None

    def get(self, function: str, result_id: int | None = None) -> StoredResult:
        """The result ``result_id`` of ``function``, or its latest one."""
        live, gone = self._view()
        kept = [(i, f) for i, f, _ in live]
        chosen = choose(function, result_id, kept, gone, self.budget, self.store.ttl)
        stored = self.store.cached(self.base, chosen)
        if stored is not None:
            return stored
        with self.store.reaching():
            fields = self.store.client.hgetall(f"{self.base}:r:{chosen}")
        if not fields:  # dropped between the two reads: say so as a read of it would
            gone[chosen] = (function, "room")
            choose(function, chosen, [], gone, self.budget, self.store.ttl)
        stored, texts = _result(fields, chosen, self.budget)
        if self.budget.embed_model is None and stored.passages:
            stored.index()
        self.store.cache(self.base, stored, texts)
        return stored


def _fields(stored: StoredResult, texts: list[str]) -> dict[str, bytes]:
    passages = stored.passages
    assert isinstance(passages, Passages)
    names = list(dict.fromkeys(stored.sources))
    number = {name: i for i, name in enumerate(names)}
    meta = {
        "function": stored.function,
        "tokens": stored.tokens,
        "size": stored.size,
        "full_size": stored.full_size,
        "sources": names,
    }
    fields = {
        "meta": json.dumps(meta).encode(),
        "doc": passages._doc.astype("<i4").tobytes(),
        "start": passages._start.astype("<i8").tobytes(),
        "end": passages._end.astype("<i8").tobytes(),
        "source": np.array([number[s] for s in stored.sources], dtype="<i4").tobytes(),
    }
    # A fixed number of fields however many texts (a script's arguments go on Lua's stack).
    encoded = [text.encode("utf-8") for text in texts]
    fields["text"] = b"".join(encoded)
    fields["text_ends"] = np.cumsum([len(e) for e in encoded], dtype="<i8").tobytes()
    return fields


def _result(
    fields: dict[bytes, bytes], result_id: int, budget: OutputBudget
) -> tuple[StoredResult, list[str]]:
    meta = json.loads(fields[b"meta"])
    joined, ends = fields[b"text"], np.frombuffer(fields[b"text_ends"], dtype="<i8").tolist()
    texts = [joined[a:b].decode("utf-8") for a, b in zip([0, *ends][:-1], ends, strict=True)]
    names = meta["sources"]
    held = sum(len(value) for value in fields.values())
    passages = Passages(
        texts,
        np.frombuffer(fields[b"doc"], dtype="<i4"),
        np.frombuffer(fields[b"start"], dtype="<i8"),
        np.frombuffer(fields[b"end"], dtype="<i8"),
    )
    sources = [names[i] for i in np.frombuffer(fields[b"source"], dtype="<i4").tolist()]
    stored = StoredResult(
        result_id=result_id,
        function=meta["function"],
        passages=passages,
        sources=sources,
        tokens=meta["tokens"],
        budget=budget,
        size=meta["size"],
        full_size=meta["full_size"],
        held=held,
    )
    return stored, texts


def open_store(url: str) -> RedisStore | None:
    """The store a URL names: ``memory`` (``None``: each spec's own) or a Redis URL."""
    if url.strip().lower() == "memory":
        return None
    # A URL may hold a password: what is said of it leaves that out.
    shown = re.sub(r"//[^/@]*@", "//…@", url)
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise ConfigurationError(
            f"the store {shown!r} is neither memory nor a Redis URL; use e.g. "
            "redis://host:6379/0, rediss://host:6380/0 or unix:///run/redis.sock"
        )
    try:
        store = RedisStore(url)
    except ValueError as exc:  # redis-py refuses the URL (a bad port, db or scheme)
        raise ConfigurationError(
            f"the store {shown!r} is not a Redis URL ({exc}); e.g. redis://host:6379/0"
        ) from None
    store.ping()
    return store


# The cache of public answers (RedisCache), shared by every process on one server.
# Only public data: an entry is keyed by what was asked, not by who asked, so every user
# of the server reads it; anything of a user's own belongs in the result store, keyed by
# its owner. Keys are SHA-256 digests: no text an agent wrote becomes a Redis key.
# Storing is one Lua script (Redis runs it alone), so two replicas cannot overshoot
# max_bytes. A Redis that fails is a miss (logged once), and one that cannot be reached
# is left alone for RedisCache.pause seconds, so a hanging server does not slow every call.
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
