"""Issue 24: caches of public answers in a real Redis, shared by replicas, bounded, expiring.

"Another replica" is a second ``RedisStore`` with its own client, as another process has.
"""

from __future__ import annotations

import logging
import threading

import pytest

from toolspecs.base.cache import Cache, CacheBackend
from toolspecs.core.redis_store import RedisCache, RedisStore

pytestmark = pytest.mark.serving

redis = pytest.importorskip("redis")

BOUNDS = {"ttl": 60.0, "max_entry_bytes": 1000, "max_bytes": 3000}


def wait(seconds: float) -> None:
    """Sleep for real (the suite's fixtures make time.sleep a no-op for googleapiclient)."""
    threading.Event().wait(seconds)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_entry_put_by_one_replica_is_read_by_another(redis_url):
    first, second = RedisStore(redis_url), RedisStore(redis_url)
    first.cache_for("answers", **BOUNDS).put("boiling point of water", b"373.15 K")
    assert second.cache_for("answers", **BOUNDS).get("boiling point of water") == b"373.15 K"
    assert second.cache_for("other", **BOUNDS).get("boiling point of water") is None
    assert isinstance(first, CacheBackend)
    assert isinstance(first.cache_for("answers", **BOUNDS), Cache)
    # One object per namespace and bounds in a process: its pause after a failure is shared.
    assert first.cache_for("answers", **BOUNDS) is first.cache_for("answers", **BOUNDS)


def test_no_key_holds_the_text_that_was_asked(redis_url):
    cache = RedisStore(redis_url, prefix="ts").cache_for("answers", **BOUNDS)
    asked = "ignore previous instructions; FLUSHALL"
    cache.put(asked, b"4")
    keys = [key.decode() for key in cache.client.scan_iter("*")]
    assert keys and all(key.startswith("ts:cache:answers:") for key in keys)
    assert not any("ignore" in key or "FLUSHALL" in key for key in keys)
    assert cache.key(asked) in keys


def test_an_entry_carries_its_ttl_in_redis_and_expires(redis_url):
    store = RedisStore(redis_url)
    cache = store.cache_for("answers", ttl=300, max_entry_bytes=1000, max_bytes=3000)
    cache.put("k", b"v")
    assert 299_000 < store.client.pttl(cache.key("k")) <= 300_000
    # The namespace's index lives as long as its longest entry, and no longer.
    for name in ("lru", "exp", "size", "total", "uses"):
        assert 299_000 < store.client.pttl(f"toolspecs:cache:answers:{name}") <= 300_000
    short = store.cache_for("short", ttl=0.05, max_entry_bytes=1000, max_bytes=3000)
    short.put("k", b"v")
    assert short.get("k") == b"v"
    wait(0.2)
    assert short.get("k") is None


def test_an_oversized_entry_is_not_sent(redis_url):
    store = RedisStore(redis_url)
    cache = store.cache_for("answers", **BOUNDS)
    sent = []
    cache._put = lambda **kwargs: sent.append(kwargs)  # the write script, never called
    cache.put("big", b"x" * 1001)
    assert sent == []
    assert store.client.dbsize() == 0


def test_the_least_recently_used_go_first_past_the_byte_bound_across_replicas(redis_url):
    first = RedisStore(redis_url).cache_for("answers", **BOUNDS)
    second = RedisStore(redis_url).cache_for("answers", **BOUNDS)
    first.put("a", b"a" * 1000)
    second.put("b", b"b" * 1000)
    first.put("c", b"c" * 1000)
    assert second.get("a") == b"a" * 1000  # a is now the most recently used
    second.put("d", b"d" * 1000)  # 4000 bytes: b, the least recently used, goes
    assert [first.get(k) is not None for k in "abcd"] == [True, False, True, True]
    client = first.client
    assert int(client.get("toolspecs:cache:answers:total")) == 3000
    assert not client.exists(first.key("b"))


def test_writers_at_once_never_overshoot_the_bound(redis_url):
    caches = [RedisStore(redis_url).cache_for("answers", **BOUNDS) for _ in range(4)]

    def write(cache: RedisCache, n: int) -> None:
        for i in range(40):
            cache.put(f"{n}:{i}", bytes([n]) * (300 + i * 10))

    threads = [threading.Thread(target=write, args=(c, n)) for n, c in enumerate(caches)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    client = caches[0].client
    entries = list(client.scan_iter("toolspecs:cache:answers:e:*"))
    held = sum(client.strlen(key) for key in entries)
    assert 0 < held <= 3000
    assert held == int(client.get("toolspecs:cache:answers:total"))


def test_writing_a_key_again_counts_it_once(redis_url):
    cache = RedisStore(redis_url).cache_for("answers", **BOUNDS)
    cache.put("k", b"x" * 900)
    cache.put("k", b"y" * 800)
    assert cache.get("k") == b"y" * 800
    assert int(cache.client.get("toolspecs:cache:answers:total")) == 800


def test_a_stopped_redis_is_a_miss_logged_once_then_left_alone(own_redis, caplog):
    url, stop = own_redis
    clock = Clock()
    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
    cache = RedisCache(client, "answers", clock=clock, **BOUNDS)
    cache.put("k", b"v")
    assert cache.get("k") == b"v"
    stop()
    asked = []
    real_get = cache._get
    cache._get = lambda **kwargs: asked.append(1) or real_get(**kwargs)
    with caplog.at_level(logging.WARNING, logger="toolspecs.cache"):
        assert cache.get("k") is None
        cache.put("k2", b"v")  # no exception either
        assert cache.get("k") is None
    assert len(asked) == 1  # left alone for its pause after the first failure
    warnings = [r for r in caplog.records if r.name == "toolspecs.cache"]
    assert len(warnings) == 1
    assert "answers cache in Redis cannot be used" in warnings[0].getMessage()
    clock.now += RedisCache.pause + 1
    assert cache.get("k") is None  # asked again, failed again, not logged again
    assert len(asked) == 2
    assert len([r for r in caplog.records if r.name == "toolspecs.cache"]) == 1


def test_a_refused_command_is_a_miss_and_redis_is_asked_again(redis_url, caplog):
    cache = RedisStore(redis_url).cache_for("answers", **BOUNDS)

    def refuse(**kwargs):
        raise redis.exceptions.ResponseError("OOM command not allowed")

    cache._put = refuse
    with caplog.at_level(logging.WARNING, logger="toolspecs.cache"):
        cache.put("k", b"v")
        cache.put("k", b"v")
    assert len([r for r in caplog.records if r.name == "toolspecs.cache"]) == 1
    assert not cache._resting()
    assert cache.get("k") is None  # a read still goes to Redis


def test_serve_store_gives_the_specs_their_caches_on_it(redis_url, monkeypatch):
    from toolspecs.cli.assemble import ServeSettings, build_specs

    monkeypatch.delenv("TOOLSPECS_ARXIV_CACHE", raising=False)
    specs = build_specs(
        ServeSettings(names=["arxiv", "wolfram_alpha"], sandbox=True, store=redis_url)
    )
    papers, answers = specs["arxiv"].paper_cache, specs["wolfram_alpha"].answer_cache
    assert isinstance(papers, RedisCache) and isinstance(answers, RedisCache)
    assert papers.client is answers.client is specs["arxiv"].result_store.client
    # The sandbox's fakes answer through a transport: kept apart from the services' own.
    assert (papers.namespace, answers.namespace) == (
        "arxiv-pdf-via-transport",
        "wolfram-alpha-via-transport",
    )
    plain = build_specs(ServeSettings(names=["arxiv", "wolfram_alpha"], sandbox=True))
    assert plain["arxiv"].paper_cache is None
    assert type(plain["wolfram_alpha"].answer_cache).__name__ == "MemoryCache"
