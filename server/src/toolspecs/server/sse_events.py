"""The SSE events of stateful sessions, kept so that a client whose stream drops can resume.

In this process (:class:`MemoryEvents`) or in Redis (:class:`RedisEvents`, any replica).
Every event is kept under its session and a replay reads that session's only: mcp's
``EventStore`` is given no session, and its stream ids repeat in every session, so one
shared store would replay another session's answers. Every store is bounded, dropping the
oldest, never a call's answer; an event id (``STREAM.N``) names nothing in another session.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio

from toolspecs.adapters.tools import require

__all__ = [
    "EVENT_OVERHEAD",
    "EVENT_SECONDS",
    "MAX_EVENTS_PER_STREAM",
    "MAX_EVENT_BYTES",
    "MAX_SESSION_EVENTS",
    "MAX_SESSION_EVENT_BYTES",
    "EventBackend",
    "Found",
    "MemoryEvents",
    "RedisEvents",
    "event_id",
    "owner_digest",
    "parse_event_id",
    "stream_key",
]

logger = logging.getLogger(__name__)

MAX_EVENTS_PER_STREAM = 100
MAX_EVENT_BYTES = 16 * 2**20
MAX_SESSION_EVENT_BYTES = 4 * 2**20
MAX_SESSION_EVENTS = 1000
EVENT_SECONDS = 300.0
EVENT_OVERHEAD = 128  # what an event costs beside its JSON (ids, times, links)
# How often a replay waiting for a call's answer that another replica stores asks Redis.
POLL_SECONDS = 0.25

_EVENT_ID = re.compile(r"([0-9a-f]{16})\.([0-9]{1,19})")


def stream_key(session: str, stream_id: str) -> str:
    """The digest of a session's stream that event ids and keys carry (never the ids)."""
    text = f"{session}\0{stream_id}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(text).hexdigest()[:16]


def event_id(key: str, number: int) -> str:
    """The id of event ``number`` of the stream ``key``."""
    return f"{key}.{number}"


def parse_event_id(text: str) -> tuple[str, int] | None:
    """The stream key and number of an event id of ours; ``None`` for anything else."""
    found = _EVENT_ID.fullmatch(text.strip())
    return None if found is None else (found[1], int(found[2]))


@dataclass
class Found:
    """What a store holds of one stream after a given event (``stream_id``: ``None`` if nothing).

    ``events`` are (number, JSON), oldest first, the JSON ``None`` for a priming event;
    ``ended``: the stream's answer is among the events kept.
    """

    stream_id: str | None = None
    events: list[tuple[int, str | None]] = field(default_factory=list)
    ended: bool = False


class EventBackend(Protocol):
    """Where the events of sessions are kept (see the module's docstring)."""

    #: Kept where other replicas read them.
    shared: bool

    async def add(
        self, session: str, owner: str, stream_id: str, data: str | None, final: bool
    ) -> str:
        """Keep one event of ``session``'s stream; its id."""
        ...

    async def after(self, session: str, key: str, number: int) -> Found:
        """The events of ``session``'s stream ``key`` after event ``number``."""
        ...

    async def wait(self, session: str, key: str, seconds: float) -> None:
        """Return when the stream may have a new event, or after ``seconds``."""
        ...

    async def owner(self, session: str) -> str | None:
        """The digest of the credential that opened ``session``, if any event of it is kept."""
        ...


class _Changes:
    """Wakes the replays waiting on a stream of this process when an event is added to it."""

    def __init__(self) -> None:
        self._waiting: dict[tuple[str, str], tuple[Any, int]] = {}

    def changed(self, session: str, key: str) -> None:
        found = self._waiting.pop((session, key), None)
        if found is not None:
            found[0].set()

    async def wait(self, session: str, key: str, seconds: float) -> None:
        event, waiting = self._waiting.get((session, key), (None, 0))
        if event is None:
            event = anyio.Event()
        self._waiting[(session, key)] = (event, waiting + 1)
        try:
            with anyio.move_on_after(seconds):
                await event.wait()
        finally:
            current = self._waiting.get((session, key))
            if current is not None and current[0] is event:
                if current[1] > 1:
                    self._waiting[(session, key)] = (event, current[1] - 1)
                else:
                    del self._waiting[(session, key)]


@dataclass
class _Event:
    session: str
    key: str
    stream_id: str
    data: str | None
    final: bool
    at: float
    size: int


class MemoryEvents:
    """The events of this process's sessions, bounded (see the module's docstring)."""

    shared = False

    def __init__(
        self,
        *,
        per_stream: int = MAX_EVENTS_PER_STREAM,
        max_bytes: int = MAX_EVENT_BYTES,
        max_age: float = EVENT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_stream = per_stream
        self.max_bytes = max_bytes
        self.max_age = max_age
        self.clock = clock
        self._events: OrderedDict[int, _Event] = OrderedDict()  # oldest first
        self._streams: dict[tuple[str, str], deque[int]] = {}
        self._held = 0
        self._count = 0
        self._changes = _Changes()

    @property
    def held(self) -> int:
        """The bytes the events kept hold, as counted against ``max_bytes``."""
        return self._held

    def __len__(self) -> int:
        return len(self._events)

    async def add(
        self, session: str, owner: str, stream_id: str, data: str | None, final: bool
    ) -> str:
        """Keep one event, then drop the oldest past the bounds (never this one)."""
        now = self.clock()
        key = stream_key(session, stream_id)
        self._count += 1
        number = self._count
        size = EVENT_OVERHEAD + len(stream_id) + (0 if data is None else len(data))
        self._events[number] = _Event(session, key, stream_id, data, final, now, size)
        self._held += size
        stream = self._streams.setdefault((session, key), deque())
        stream.append(number)
        while len(stream) > self.per_stream:
            self._drop(stream.popleft())
        while len(self._events) > 1:
            oldest, first = next(iter(self._events.items()))
            if self._held <= self.max_bytes and first.at > now - self.max_age:
                break
            self._drop(oldest)
            kept = self._streams[(first.session, first.key)]
            kept.popleft()  # a stream's oldest event is the oldest of the process among its own
            if not kept:
                del self._streams[(first.session, first.key)]
        self._changes.changed(session, key)
        return event_id(key, number)

    def _drop(self, number: int) -> None:
        self._held -= self._events.pop(number).size

    async def after(self, session: str, key: str, number: int) -> Found:
        """The stream's events after ``number`` (none older than ``max_age``)."""
        found = Found()
        since = self.clock() - self.max_age
        for kept in self._streams.get((session, key), ()):
            event = self._events[kept]
            if event.at <= since:
                continue
            found.stream_id = event.stream_id
            found.ended = found.ended or event.final
            if kept > number:
                found.events.append((kept, event.data))
        return found

    async def wait(self, session: str, key: str, seconds: float) -> None:
        """Until an event is added to the stream, or ``seconds``."""
        await self._changes.wait(session, key, seconds)

    async def owner(self, session: str) -> str | None:
        """Not kept in memory: this process's own sessions are checked by mcp."""
        return None


# Keeps one event and the bounds, in one script (Redis runs it alone). KEYS: the session's
# counter, events (hash: number -> "ms final stream-id-json\ndata"), order (list of
# "number stream ms"), bytes, owner, this stream's list of numbers. ARGV: stream key,
# final, stream id (JSON), data ("" for a priming event, then marked "-"), per stream,
# bytes, events, age (ms), owner, the prefix of the session's stream lists, overhead.
_ADD = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local counter, events, order, bytes, owner, stream = unpack(KEYS)
local key, per_stream = ARGV[1], tonumber(ARGV[5])
local max_bytes, max_events, age = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local overhead = tonumber(ARGV[11])
local total = tonumber(redis.call('GET', bytes) or '0')
local function drop(number)
  local size = redis.call('HSTRLEN', events, number)
  if redis.call('HDEL', events, number) == 1 then total = total - size - overhead end
end
local number = redis.call('INCR', counter)
local record = now .. ' ' .. ARGV[2] .. ' ' .. ARGV[3] .. '\\n' .. ARGV[4]
redis.call('HSET', events, number, record)
total = total + #record + overhead
redis.call('RPUSH', order, number .. ' ' .. key .. ' ' .. now)
redis.call('RPUSH', stream, number)
while redis.call('LLEN', stream) > per_stream do drop(redis.call('LPOP', stream)) end
while redis.call('LLEN', order) > 1 do
  local n, k, at = string.match(redis.call('LINDEX', order, 0), '^(%d+) (%S+) (%d+)$')
  if redis.call('LLEN', order) <= max_events and total <= max_bytes
      and tonumber(at) > now - age then break end
  redis.call('LPOP', order)
  drop(n)
  redis.call('LREM', ARGV[10] .. k, 1, n)
end
redis.call('SET', bytes, total)
redis.call('SET', owner, ARGV[9])
for _, name in ipairs(KEYS) do redis.call('PEXPIRE', name, age) end
return number
"""

# One stream's events still kept and not older than the age. KEYS: the stream's list, the
# events. ARGV: age (ms). Returns number, record, number, record, ...
_STREAM = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local found = {}
for _, n in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local record = redis.call('HGET', KEYS[2], n)
  if record then
    local at = tonumber(string.match(record, '^(%d+) '))
    if at > now - tonumber(ARGV[1]) then
      table.insert(found, n)
      table.insert(found, record)
    end
  end
end
return found
"""


class RedisEvents:
    """The events of every replica's sessions in Redis (or Valkey), bounded per session.

    Each session's keys (``{prefix}:sse:{digest}:…``) have a TTL of :data:`EVENT_SECONDS`.
    Redis unreachable: an event is not kept (the stream goes on live), a replay finds
    nothing, and the log says so once.
    """

    shared = True

    def __init__(
        self,
        client: Any,
        *,
        prefix: str = "toolspecs",
        per_stream: int = MAX_EVENTS_PER_STREAM,
        max_bytes: int = MAX_SESSION_EVENT_BYTES,
        max_events: int = MAX_SESSION_EVENTS,
        max_age: float = EVENT_SECONDS,
    ) -> None:
        redis = require("redis", "redis")
        if isinstance(client, str):
            client = redis.Redis.from_url(client, socket_timeout=5, socket_connect_timeout=5)
        self.client = client
        self.prefix = prefix
        self.per_stream = per_stream
        self.max_bytes = max_bytes
        self.max_events = max_events
        self.max_age = max_age
        self._errors: tuple[type[BaseException], ...] = (redis.exceptions.RedisError, OSError)
        self._add = client.register_script(_ADD)
        self._stream = client.register_script(_STREAM)
        self._changes = _Changes()
        self._down = False

    def base(self, session: str) -> str:
        """The start of the keys of ``session``."""
        return f"{self.prefix}:sse:{hashlib.sha256(session.encode()).hexdigest()[:32]}"

    async def add(
        self, session: str, owner: str, stream_id: str, data: str | None, final: bool
    ) -> str:
        """Keep one event in Redis; when Redis does not answer, an id that replays nothing."""
        key = stream_key(session, stream_id)
        base = self.base(session)
        keys = [f"{base}:{name}" for name in ("n", "ev", "order", "bytes", "owner")]
        arguments = [
            key,
            int(final),
            json.dumps(stream_id),
            "-" if data is None else "+" + data,
            self.per_stream,
            self.max_bytes,
            self.max_events,
            max(int(self.max_age * 1000), 1),
            owner,
            f"{base}:st:",
            EVENT_OVERHEAD,
        ]
        keys.append(f"{base}:st:{key}")
        number = await self._call(lambda: self._add(keys=keys, args=arguments))
        self._changes.changed(session, key)
        return event_id(key, int(number or 0))

    async def after(self, session: str, key: str, number: int) -> Found:
        """The stream's events after ``number``, read from Redis."""
        base = self.base(session)
        age = max(int(self.max_age * 1000), 1)
        keys = [f"{base}:st:{key}", f"{base}:ev"]
        flat = await self._call(lambda: self._stream(keys=keys, args=[age])) or []
        found = Found()
        for i in range(0, len(flat), 2):
            kept = int(flat[i])
            head, data = flat[i + 1].decode("utf-8", "surrogatepass").split("\n", 1)
            _, final, stream_id = head.split(" ", 2)
            found.stream_id = json.loads(stream_id)
            found.ended = found.ended or final == "1"
            if kept > number:
                found.events.append((kept, None if data == "-" else data[1:]))
        return found

    async def wait(self, session: str, key: str, seconds: float) -> None:
        """Until this process adds to the stream, or a short poll (another replica may)."""
        await self._changes.wait(session, key, min(seconds, POLL_SECONDS))

    async def owner(self, session: str) -> str | None:
        """The digest of the credential that opened ``session`` (``None``: no event kept)."""
        name = f"{self.base(session)}:owner"
        value = await self._call(lambda: self.client.get(name))
        return None if value is None else value.decode()

    async def _call(self, command: Callable[[], Any]) -> Any:
        try:
            answer = await anyio.to_thread.run_sync(command)
        except self._errors as exc:
            if not self._down:
                self._down = True
                logger.warning(
                    "cannot reach Redis to keep SSE events (%s): a dropped stream cannot be "
                    "resumed until it answers",
                    type(exc).__name__,
                )
            return None
        if self._down:
            self._down = False
            logger.info("Redis answers again: SSE events are kept for resumption")
        return answer


def owner_digest(owner: Any) -> str:
    """A digest of the credential behind a session (mcp's ``AuthorizationContext``)."""
    text = json.dumps(owner, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]
