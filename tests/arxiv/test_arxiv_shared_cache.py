"""Issue 24: arXiv papers shared by replicas through Redis, within their bounds.

Two specs, each with its own ``RedisStore`` (its own client), stand for two replicas of
``toolspecs serve --store redis://...``; the fake counts the PDFs fetched from arXiv.
"""

from __future__ import annotations

import pytest

from toolspecs.core.redis_store import RedisStore
from toolspecs.loaders.arxiv.cache import MAX_PDF_BYTES
from toolspecs.loaders.arxiv.testing import FakeArxiv
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.arxiv.base import SHARED_SECONDS

pytestmark = pytest.mark.serving

pytest.importorskip("redis")

PAPERS = "toolspecs:cache:arxiv-pdf-via-transport:e:*"


@pytest.fixture(autouse=True)
def no_cache_from_the_environment(monkeypatch):
    """The folder tests/arxiv/conftest.py names is an explicit choice, which a store yields to."""
    monkeypatch.delenv("TOOLSPECS_ARXIV_CACHE", raising=False)


def pdf_requests(arxiv: FakeArxiv) -> int:
    return sum("/pdf/" in (request.url or "") for request in arxiv.requests)


def replica(arxiv: FakeArxiv, url: str, **kwargs) -> ArxivToolSpec:
    spec = ArxivToolSpec(transport=arxiv.transport(), **kwargs)
    spec.result_store = RedisStore(url)
    return spec


def test_a_paper_downloaded_by_one_replica_is_read_by_another(redis_url):
    arxiv = FakeArxiv()
    first, second = replica(arxiv, redis_url), replica(arxiv, redis_url)
    assert first.call_tool("arxiv_paper_text", paper_id="1706.03762").is_error is False
    assert pdf_requests(arxiv) == 1
    for tool, arguments in [
        ("arxiv_paper_text", {"paper_id": "1706.03762"}),
        ("arxiv_paper_outline", {"paper_id": "1706.03762"}),
    ]:
        assert second.call_tool(tool, **arguments).is_error is False
    assert pdf_requests(arxiv) == 1  # only the id lookups went to arXiv


def test_the_shared_cache_has_a_day_s_ttl_and_the_spec_s_byte_bound(redis_url):
    arxiv = FakeArxiv()
    spec = replica(arxiv, redis_url, paper_cache_mb=2)
    cache = spec.paper_cache
    assert (cache.namespace, cache.ttl, cache.max_bytes) == (
        "arxiv-pdf-via-transport",
        SHARED_SECONDS,
        2 * 2**20,
    )
    assert cache.max_entry_bytes == MAX_PDF_BYTES
    spec.call_tool("arxiv_paper_outline", paper_id="1706.03762")
    client = spec.result_store.client
    (entry,) = client.scan_iter(PAPERS)
    assert (SHARED_SECONDS - 60) * 1000 < client.pttl(entry) <= SHARED_SECONDS * 1000
    assert client.get(entry).startswith(b"%PDF")
    assert b"1706" not in entry  # the key is a digest of the id
    # arXiv's own papers are kept apart from a fake's.
    assert ArxivToolSpec(paper_cache=spec.result_store).reader.cache.namespace == "arxiv-pdf"


def test_a_paper_over_the_bound_is_not_stored(redis_url):
    arxiv = FakeArxiv()
    first = replica(arxiv, redis_url, paper_cache_mb=0.001)  # 1 KB: less than any PDF
    second = replica(arxiv, redis_url, paper_cache_mb=0.001)
    first.call_tool("arxiv_paper_outline", paper_id="1706.03762")
    second.call_tool("arxiv_paper_outline", paper_id="1706.03762")
    assert pdf_requests(arxiv) == 2
    assert list(first.result_store.client.scan_iter(PAPERS)) == []


def test_the_store_as_the_keyword_shares_it_too(redis_url):
    arxiv = FakeArxiv()
    first = ArxivToolSpec(transport=arxiv.transport(), paper_cache=RedisStore(redis_url))
    second = ArxivToolSpec(transport=arxiv.transport(), paper_cache=RedisStore(redis_url))
    for spec in (first, second):
        assert spec.call_tool("arxiv_paper_outline", paper_id="1706.03762").is_error is False
    assert pdf_requests(arxiv) == 1


def test_a_cache_chosen_explicitly_wins_over_the_store(redis_url, tmp_path, monkeypatch):
    arxiv = FakeArxiv()
    off = replica(arxiv, redis_url, paper_cache=False)
    assert off.paper_cache is None
    folder = replica(arxiv, redis_url, paper_cache=tmp_path)
    assert folder.paper_cache.directory == tmp_path
    monkeypatch.setenv("TOOLSPECS_ARXIV_CACHE", "off")
    assert replica(arxiv, redis_url).paper_cache is None


def test_with_redis_stopped_the_paper_comes_from_arxiv(own_redis, caplog):
    url, stop = own_redis
    arxiv = FakeArxiv()
    first = replica(arxiv, url)
    assert first.call_tool("arxiv_paper_outline", paper_id="1706.03762").is_error is False
    stop()
    second = replica(arxiv, url)
    out = second.call_tool("arxiv_paper_outline", paper_id="1706.03762")
    assert out.is_error is False
    assert pdf_requests(arxiv) == 2
    assert "arxiv-pdf-via-transport cache in Redis cannot be used" in caplog.text
