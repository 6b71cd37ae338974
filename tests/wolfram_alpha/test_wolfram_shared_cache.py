"""Issue 24: Wolfram|Alpha answers shared by replicas through Redis, within their bounds.

Two specs, each with its own ``RedisStore`` (its own client), stand for two replicas of
``toolspecs serve --store redis://...``; the fake counts what reaches Wolfram|Alpha.
"""

from __future__ import annotations

import threading

import pytest

from toolspecs.core.redis_store import RedisStore
from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha
from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec
from toolspecs.specs.wolfram_alpha.base import CACHE_BYTES, CACHE_ENTRY_BYTES

pytest.importorskip("redis")

QUERY = "(7 * 12 ^ 10) / 321"


def replica(fake: FakeWolframAlpha, url: str, **kwargs) -> WolframAlphaToolSpec:
    spec = WolframAlphaToolSpec(app_id="offline", transport=fake.transport(), **kwargs)
    spec.result_store = RedisStore(url)
    return spec


@pytest.mark.serving
def test_an_answer_fetched_by_one_replica_is_read_by_another(redis_url):
    wolfram = FakeWolframAlpha()
    first, second = replica(wolfram, redis_url), replica(wolfram, redis_url)
    asked = first.call_tool("wolfram_alpha_query", query=QUERY)
    assert asked.is_error is False and len(wolfram.requests) == 1
    again = second.call_tool("wolfram_alpha_query", query=f" {QUERY} ")
    assert again.content == asked.content
    assert len(wolfram.requests) == 1  # the second replica asked Redis, not Wolfram
    pods = first.call_tool("wolfram_alpha_pods", query="pi")
    assert pods.is_error is False
    assert second.call_tool("wolfram_alpha_pods", query="pi").content == pods.content
    assert [r.api for r in wolfram.requests] == ["llm", "full"]


@pytest.mark.serving
def test_the_shared_cache_is_the_store_s_with_the_spec_s_ttl_and_bounds(redis_url):
    spec = replica(FakeWolframAlpha(), redis_url, cache_seconds=120)
    cache = spec.answer_cache
    assert (cache.namespace, cache.ttl) == ("wolfram-alpha-via-transport", 120)
    assert (cache.max_entry_bytes, cache.max_bytes) == (CACHE_ENTRY_BYTES, CACHE_BYTES)
    spec.call_tool("wolfram_alpha_query", query=QUERY)
    client = spec.result_store.client
    (entry,) = client.scan_iter("toolspecs:cache:wolfram-alpha-via-transport:e:*")
    assert 119_000 < client.pttl(entry) <= 120_000
    # Answers of Wolfram itself (no transport) are kept apart from a fake's.
    assert WolframAlphaToolSpec(cache=spec.result_store).answer_cache.namespace == "wolfram-alpha"


@pytest.mark.serving
def test_a_keyword_or_a_cache_chooses_it_and_other_app_ids_or_params_are_apart(redis_url):
    wolfram = FakeWolframAlpha()
    store = RedisStore(redis_url)
    first = WolframAlphaToolSpec(app_id="offline", transport=wolfram.transport(), cache=store)
    second = WolframAlphaToolSpec(
        app_id="offline", transport=wolfram.transport(), cache=RedisStore(redis_url)
    )
    first.call_tool("wolfram_alpha_query", query=QUERY)
    second.call_tool("wolfram_alpha_query", query=QUERY)
    assert len(wolfram.requests) == 1
    other_key = WolframAlphaToolSpec(app_id="other", transport=wolfram.transport(), cache=store)
    other_key.call_tool("wolfram_alpha_query", query=QUERY)
    metric = WolframAlphaToolSpec(
        app_id="offline",
        api_params={"units": "metric"},
        transport=wolfram.transport(),
        cache=store,
    )
    metric.call_tool("wolfram_alpha_query", query=QUERY)
    assert len(wolfram.requests) == 3
    # No text of the query (nor the AppID) is part of any key.
    keys = b" ".join(store.client.scan_iter("*"))
    assert b"321" not in keys and b"offline" not in keys


@pytest.mark.serving
def test_an_answer_over_the_entry_bound_is_not_stored(redis_url, monkeypatch):
    wolfram = FakeWolframAlpha()
    first, second = replica(wolfram, redis_url), replica(wolfram, redis_url)
    monkeypatch.setattr("toolspecs.specs.wolfram_alpha.base.CACHE_ENTRY_BYTES", 100)
    first.call_tool("wolfram_alpha_query", query=QUERY)
    second.call_tool("wolfram_alpha_query", query=QUERY)
    assert len(wolfram.requests) == 2
    assert first.result_store.client.dbsize() == 0


@pytest.mark.serving
def test_an_answer_expires_with_its_ttl(redis_url):
    wolfram = FakeWolframAlpha()
    first = replica(wolfram, redis_url, cache_seconds=0.05)
    second = replica(wolfram, redis_url, cache_seconds=0.05)
    first.call_tool("wolfram_alpha_query", query=QUERY)
    threading.Event().wait(0.2)  # a real wait: Redis expires by its own clock
    second.call_tool("wolfram_alpha_query", query=QUERY)
    assert len(wolfram.requests) == 2


@pytest.mark.serving
def test_with_redis_stopped_the_call_is_answered_by_wolfram(own_redis, caplog):
    url, stop = own_redis
    wolfram = FakeWolframAlpha()
    spec = replica(wolfram, url)
    first = spec.call_tool("wolfram_alpha_query", query=QUERY)
    stop()
    fresh = replica(wolfram, url)  # a replica that finds Redis gone
    out = fresh.call_tool("wolfram_alpha_query", query=QUERY)
    assert out.is_error is False and out.content == first.content
    assert len(wolfram.requests) == 2
    assert "cache in Redis cannot be used" in caplog.text


def test_without_a_store_each_spec_keeps_its_own_answers_in_memory():
    wolfram = FakeWolframAlpha()
    first = WolframAlphaToolSpec(app_id="offline", transport=wolfram.transport())
    second = WolframAlphaToolSpec(app_id="offline", transport=wolfram.transport())
    for spec in (first, first, second):
        spec.call_tool("wolfram_alpha_query", query=QUERY)
    assert len(wolfram.requests) == 2
    assert first.answer_cache is not second.answer_cache
    assert (first.answer_cache.max_entries, first.answer_cache.ttl) == (128, 300.0)
