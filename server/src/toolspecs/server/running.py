"""Calls running at once, per caller: counted in this process, and across replicas in Redis.

A sessionless caller's calls are also leases in a Redis sorted set (:class:`SharedSlots`),
scored on the Redis server's clock and renewed while they run, so a replica that dies
frees its slots within :data:`LEASE_SECONDS` (a plain ``INCR``/``DECR`` counter would
shrink the caller's cap for good). Redis unreachable: this process counts alone (logged
once) and calls are never refused for it.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import secrets
import threading
import time
import weakref
from collections.abc import AsyncIterator, Hashable
from typing import Any

import anyio

from toolspecs.adapters.tools import require

__all__ = ["LEASE_SECONDS", "RETRY_SECONDS", "RunningCalls", "SharedSlots"]

logger = logging.getLogger(__name__)

# A slot's lease in Redis: a dead replica's slots come back within this long.
LEASE_SECONDS = 30.0
# After Redis failed to answer, calls are counted in this process alone this long.
RETRY_SECONDS = 5.0

# Take a slot. KEYS[1]: the caller's set; ARGV: the cap, the call's id, the lease (ms).
# Returns 1 when taken, 0 when the caller already has the cap running.
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + lease, ARGV[2])
redis.call('PEXPIRE', KEYS[1], lease)
return 1
"""

# Renew the leases of calls still held. KEYS: their sets; ARGV[1]: the lease (ms), then
# one call id per key. A lease that already ended is not taken again (its slot may be
# another call's by now).
_RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  if redis.call('ZADD', key, 'XX', 'CH', now + lease, ARGV[i + 1]) == 1 then
    redis.call('PEXPIRE', key, lease)
  end
end
return 0
"""


class SharedSlots:
    """Each caller's running calls, in Redis, for every replica (blocking; raises ``errors``)."""

    def __init__(self, client: Any, *, prefix: str = "toolspecs", lease: float = LEASE_SECONDS):
        redis = require("redis", "redis")
        self.client = client
        self.prefix = prefix
        self.lease = lease
        self.errors: tuple[type[BaseException], ...] = (redis.exceptions.RedisError, OSError)
        self._take = client.register_script(_TAKE)
        self._renew = client.register_script(_RENEW)
        self._held: dict[str, str] = {}  # call id -> its caller's key
        self._lock = threading.Lock()
        self._renewer: threading.Thread | None = None

    def key(self, caller: str) -> str:
        """The Redis key of ``caller``'s running calls."""
        return f"{self.prefix}:calls:{hashlib.sha256(caller.encode()).hexdigest()[:32]}"

    def take(self, caller: str, cap: int) -> str | None:
        """A slot for one more call of ``caller``: its id, or ``None`` when ``cap`` run."""
        call_id = secrets.token_hex(16)
        key = self.key(caller)
        if not self._take(keys=[key], args=[cap, call_id, int(self.lease * 1000)]):
            return None
        with self._lock:
            self._held[call_id] = key
            if self._renewer is None or not self._renewer.is_alive():
                self._renewer = threading.Thread(
                    target=_renew_while_alive,
                    args=(weakref.ref(self), self.lease / 3),
                    name="toolspecs-slots",
                    daemon=True,
                )
                self._renewer.start()
        return call_id

    def give(self, call_id: str) -> None:
        """Give a slot back (when Redis does not answer, its lease ends by itself)."""
        with self._lock:
            key = self._held.pop(call_id, None)
        if key is None:
            return
        with contextlib.suppress(*self.errors):
            self.client.zrem(key, call_id)

    def renew(self) -> int:
        """Renew the leases of the calls this process holds; how many it holds."""
        with self._lock:
            held = list(self._held.items())
        if held:
            self._renew(
                keys=[key for _, key in held],
                args=[int(self.lease * 1000), *(call_id for call_id, _ in held)],
            )
        return len(held)


def _renew_while_alive(ref: weakref.ReferenceType[SharedSlots], every: float) -> None:
    """Renew the leases of ``ref``'s calls until it holds none or is gone (held weakly)."""
    while True:
        threading.Event().wait(every)
        slots = ref()
        if slots is None:
            return
        try:
            with slots._lock:
                if not slots._held:
                    slots._renewer = None
                    return
            slots.renew()
        except slots.errors as exc:  # the calls go on; their leases may end meanwhile
            logger.debug("cannot renew running calls' leases: %s", exc)
        del slots


class RunningCalls:
    """How many calls each caller has running, and whether one more may start."""

    def __init__(self, cap: int, shared: SharedSlots | None = None) -> None:
        self.cap = cap
        self.shared = shared
        self._here: dict[Hashable, int] = {}  # caller -> its calls running in this process
        self._down_until = float("-inf")
        self._down = False

    def running(self, who: Hashable) -> int:
        """The calls of ``who`` running in this process."""
        return self._here.get(who, 0)

    @contextlib.asynccontextmanager
    async def slot(self, who: Hashable, caller: str | None = None) -> AsyncIterator[bool]:
        """Hold a slot of ``who`` (and of a sessionless ``caller`` in ``shared``) while it runs."""
        if self.running(who) >= self.cap:
            yield False
            return
        self._here[who] = self.running(who) + 1
        call_id: str | None = None
        try:
            if self.shared is not None and caller is not None:
                taken = await self._take(self.shared, caller)
                if taken is False:
                    yield False
                    return
                call_id = taken if isinstance(taken, str) else None
            yield True
        finally:
            self._here[who] -= 1
            if not self._here[who]:
                del self._here[who]
            if call_id is not None and self.shared is not None:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(self.shared.give, call_id)

    async def _take(self, shared: SharedSlots, caller: str) -> str | bool | None:
        if time.monotonic() < self._down_until:
            return None
        try:
            # Shielded: a slot taken must be known here, to be given back.
            with anyio.CancelScope(shield=True):
                call_id = await anyio.to_thread.run_sync(shared.take, caller, self.cap)
        except shared.errors as exc:
            self._down_until = time.monotonic() + RETRY_SECONDS
            if not self._down:
                self._down = True
                logger.warning(
                    "cannot reach Redis to count running calls across replicas (%s: %s); "
                    "counting each replica's own until it answers",
                    type(exc).__name__,
                    exc,
                )
            return None
        if self._down:
            self._down = False
            logger.info("Redis answers again: running calls are counted across replicas")
        return False if call_id is None else call_id
