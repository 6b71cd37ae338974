"""The arxiv (arxiv.py) internals compat_arxiv leans on, checked against the pinned arxiv.

Each test names the internal (its number in the compat module's banner). When an upgrade of
arxiv fails one, read the banner and its changes before touching anything else: every
search and paper lookup goes through these.
"""

from __future__ import annotations

from importlib.resources import files
from urllib.parse import parse_qs, urlsplit

import arxiv
import requests

from toolspecs.loaders.arxiv.compat_arxiv import HookedClient, ParsedFeed, parse_feed
from toolspecs.loaders.arxiv.testing import FakeArxiv


class Recording(HookedClient):
    """A client that asks for two papers a page and notes every page it reads."""

    def __init__(self, fake: FakeArxiv) -> None:
        super().__init__(page_size=100, delay_seconds=0, num_retries=0)
        self.session.mount("https://", fake)
        self.session.mount("http://", fake)
        self.pages: list[tuple[str, bool]] = []

    def wanted_page_size(self, search, start, page_size):
        return 2

    def read_feed(self, url, first_page):
        self.pages.append((url, first_page))
        return super().read_feed(url, first_page)


def test_1_the_client_sends_with_a_requests_session_in_session():
    client = arxiv.Client()
    assert isinstance(client._session, requests.Session)
    hooked = HookedClient()
    assert hooked.session is hooked._session


def test_2_3_each_page_address_and_each_page_go_through_the_hooks():
    fake = FakeArxiv()
    client = Recording(fake)
    search = arxiv.Search(query="attention", max_results=5)
    results = list(client.results(search))
    assert results and all(isinstance(r, arxiv.Result) for r in results)
    assert client.pages and client.pages[0][1] is True
    assert all(first is False for _, first in client.pages[1:])
    sent = [parse_qs(urlsplit(r.url).query) for r in fake.requests]
    assert sent and all(q["max_results"] == ["2"] for q in sent)  # internal 2
    assert [r.url for r in fake.requests] == [url for url, _ in client.pages]  # internal 3


def test_4_arxiv_reads_an_atom_feed_into_results():
    catalogue = files("toolspecs.loaders.arxiv.testing") / "data" / "catalogue.xml"
    parsed = parse_feed(catalogue.read_bytes())
    assert isinstance(parsed, ParsedFeed) and parsed.malformed is False
    assert parsed.results and all(isinstance(r, arxiv.Result) for r in parsed.results)
    for unreadable in (b"", b"not xml at all"):
        broken = parse_feed(unreadable)
        assert broken.malformed is True and broken.error is not None and broken.results == []
