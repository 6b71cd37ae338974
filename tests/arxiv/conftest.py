"""Fixtures of the arXiv tests: a faked API, a client that never sleeps, generated PDFs."""

from __future__ import annotations

import pytest
import responses
from arxiv_fakes import SHORT_PAGES, long_pages, make_pdf

from toolspecs.loaders.arxiv import ArxivClient
from toolspecs.specs.arxiv import ArxivToolSpec


@pytest.fixture(autouse=True)
def paper_cache_dir(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """Each test's own default paper cache: none of it in the user's, none shared."""
    directory = tmp_path / "paper-cache"
    monkeypatch.setenv("TOOLSPECS_ARXIV_CACHE", str(directory))
    return directory


@pytest.fixture(scope="session")
def short_pdf() -> bytes:
    return make_pdf(SHORT_PAGES)


@pytest.fixture(scope="session")
def long_pdf() -> bytes:
    return make_pdf(long_pages())


# -- the client, the spec, the faked API --------------------------------------------


@pytest.fixture
def client() -> ArxivClient:
    """A client that never sleeps between requests: 2 retries, 5 s timeout."""
    return ArxivClient(delay_seconds=0, num_retries=2, timeout=5)


@pytest.fixture
def spec(client: ArxivClient) -> ArxivToolSpec:
    return ArxivToolSpec(client=client)


@pytest.fixture
def api(mocked_responses: responses.RequestsMock) -> responses.RequestsMock:
    """The faked arXiv: every test registers the answers it needs."""
    return mocked_responses


@pytest.fixture
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record the client's sleeps instead of sleeping."""
    slept: list[float] = []
    monkeypatch.setattr("toolspecs.loaders.arxiv.client.time.sleep", slept.append)
    return slept
