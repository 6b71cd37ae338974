"""Fixtures of the end-to-end agent tests: the faked services each spec talks to."""

from __future__ import annotations

from pathlib import Path

import pytest
import responses

from toolspecs.loaders.arxiv import ArxivClient
from toolspecs.loaders.google.testing import FakeCalendar
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec
from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec
from toolspecs.specs.wolfram_alpha.base import LLM_API_URL

FIXTURES = Path(__file__).parents[1] / "fixtures"
ARXIV_API = "https://export.arxiv.org/api/query"


@pytest.fixture(autouse=True)
def _in_utc(server_in_utc):
    """The process runs in UTC; the fake calendar lives in New York."""


@pytest.fixture(autouse=True)
def _offline_services(monkeypatch):
    monkeypatch.delenv("WOLFRAM_ALPHA_APP_ID", raising=False)
    monkeypatch.delenv("WOLFRAMALPHA_API_KEY", raising=False)


@pytest.fixture
def arxiv(mocked_responses) -> ArxivToolSpec:
    """arXiv, its API answering with the H1 electron paper."""
    feed = (FIXTURES / "arxiv" / "hep_ex_electron.xml").read_text(encoding="utf-8")
    mocked_responses.add(responses.GET, ARXIV_API, body=feed)
    return ArxivToolSpec(client=ArxivClient(delay_seconds=0, num_retries=1, timeout=5))


@pytest.fixture
def wolfram(mocked_responses) -> WolframAlphaToolSpec:
    """Wolfram|Alpha, its LLM API answering the blog's example."""
    body = (FIXTURES / "wolfram_alpha" / "llm_blog_example.txt").read_text(encoding="utf-8")
    mocked_responses.add("GET", LLM_API_URL, body=body, content_type="text/plain")
    return WolframAlphaToolSpec(app_id="TEST-APPID")


@pytest.fixture
def google() -> FakeCalendar:
    return FakeCalendar()


@pytest.fixture
def calendar(google) -> GoogleCalendarToolSpec:
    return GoogleCalendarToolSpec(transport=google)
