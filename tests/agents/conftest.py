"""Fixtures of the end-to-end agent tests: the faked services each spec talks to."""

from __future__ import annotations

from pathlib import Path

import pytest
import responses

from toolspecs.loaders.arxiv import ArxivClient
from toolspecs.loaders.google.testing import FakeCalendar
from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec
from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec

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
def wolfram_alpha() -> FakeWolframAlpha:
    """Wolfram|Alpha offline: its LLM API answers the blog's example as recorded."""
    return FakeWolframAlpha()


@pytest.fixture
def wolfram(wolfram_alpha) -> WolframAlphaToolSpec:
    """The Wolfram|Alpha spec on the offline Wolfram|Alpha."""
    return WolframAlphaToolSpec(app_id="TEST-APPID", transport=wolfram_alpha.transport())


@pytest.fixture
def google() -> FakeCalendar:
    return FakeCalendar()


@pytest.fixture
def calendar(google) -> GoogleCalendarToolSpec:
    return GoogleCalendarToolSpec(transport=google)
