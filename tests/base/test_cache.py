"""The in-memory cache of toolspecs.base: a TTL from the write, LRU by count and bytes."""

from __future__ import annotations

import threading

from toolspecs.base.cache import Cache, CacheBackend, MemoryCache


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_entry_is_kept_for_its_ttl_from_the_write():
    clock = Clock()
    cache = MemoryCache(ttl=60, clock=clock)
    cache.put("2+2", b"4")
    clock.now += 59
    assert cache.get("2+2") == b"4"  # a read does not extend it
    clock.now += 2
    assert cache.get("2+2") is None
    assert (len(cache), cache.held()) == (0, 0)


def test_a_ttl_of_zero_keeps_nothing_and_none_keeps_until_evicted():
    cache = MemoryCache(ttl=0)
    cache.put("k", b"v")
    assert cache.get("k") is None and len(cache) == 0
    clock = Clock()
    forever = MemoryCache(ttl=None, clock=clock)
    forever.put("k", b"v")
    clock.now += 10**9
    assert forever.get("k") == b"v"


def test_an_entry_over_its_bound_is_not_stored_and_replaces_nothing():
    cache = MemoryCache(max_entry_bytes=10, max_bytes=100)
    cache.put("k", b"small")
    cache.put("big", b"x" * 11)
    assert cache.get("big") is None
    assert cache.get("k") == b"small"
    cache.put("k", b"y" * 11)  # a new value too large: the old one is not served either
    assert cache.get("k") is None and cache.held() == 0


def test_the_least_recently_used_go_first_past_the_byte_bound():
    cache = MemoryCache(max_entry_bytes=40, max_bytes=100)
    for name in "abcd":
        cache.put(name, name.encode() * 30)
    assert cache.get("a") is None  # 120 bytes: a went
    assert cache.get("b") is not None  # b is now the most recently used
    cache.put("e", b"e" * 30)
    assert [cache.get(n) is not None for n in "bcde"] == [True, False, True, True]
    assert cache.held() == 90


def test_the_least_recently_used_go_first_past_the_count():
    cache = MemoryCache(max_entries=2)
    cache.put("a", b"1")
    cache.put("b", b"2")
    cache.get("a")
    cache.put("c", b"3")
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (b"1", None, b"3")


def test_writing_a_key_again_counts_its_bytes_once():
    cache = MemoryCache()
    cache.put("k", b"x" * 10)
    cache.put("k", b"y" * 20)
    assert (cache.get("k"), cache.held(), len(cache)) == (b"y" * 20, 20, 1)


def test_threads_writing_at_once_keep_the_bounds():
    cache = MemoryCache(max_entries=1000, max_entry_bytes=100, max_bytes=5000)

    def write(n: int) -> None:
        for i in range(300):
            cache.put(f"{n}:{i}", b"z" * (i % 100))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert cache.held() <= 5000
    assert cache.held() == sum(len(cache.get(k) or b"") for k in list(cache._items))


def test_the_protocols_are_what_isinstance_checks():
    assert isinstance(MemoryCache(), Cache)
    assert not isinstance(MemoryCache(), CacheBackend)
    assert not isinstance("/tmp/papers", Cache)
    assert not isinstance({}, Cache)  # a dict has get but no put
