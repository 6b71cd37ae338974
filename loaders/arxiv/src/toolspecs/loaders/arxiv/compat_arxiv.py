"""Brittle: everything toolspecs relies on in arxiv (arxiv.py) beyond its public API, in one place.

:class:`HookedClient` sends each page of ``Client.results`` with our own bounds and asks
for no more papers than wanted, leaning on these internals, checked against the pinned
arxiv (4.x) by ``tests/arxiv/test_arxiv_compat.py``:

1. ``Client._session``, the ``requests.Session`` it sends with (a test transport is
   mounted on it). If it is renamed, the constructor fails.
2. ``Client._format_url(search, start, page_size)``: overridden to ask for the papers
   still wanted. If it is no longer called, every search asks for a whole page again.
3. ``Client._parse_feed(url, first_page=...)``: overridden to fetch and read the page our
   way. If it is no longer called, arxiv sends the request itself: no deadline, no size
   cap, arxiv's own retries and errors.
4. ``arxiv._feed.parse(content)`` and its ``ParsedFeed`` (``results``, ``malformed``,
   ``error``, ``header.total_results``). If they change, every search fails or reads no
   papers. :meth:`HookedClient.results_by` walks the pages as ``Client._results`` does,
   with them and internal 2, so that a caller's deadline reaches each page.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import arxiv
from arxiv import _feed
from arxiv._feed import ParsedFeed  # arxiv's reading of one page of results (internal 4)

if TYPE_CHECKING:
    import requests

__all__ = ["HookedClient", "ParsedFeed", "parse_feed"]


def parse_feed(content: bytes) -> ParsedFeed:
    """An Atom feed read as arxiv reads it: ``results``, ``malformed``, ``error`` (internal 4)."""
    parsed: ParsedFeed = _feed.parse(content)
    return parsed


class HookedClient(arxiv.Client):  # type: ignore[misc]  # arxiv ships no type hints
    """An ``arxiv.Client`` whose private steps are hooks: the page size, and reading a page."""

    @property
    def session(self) -> requests.Session:
        """The ``requests.Session`` arxiv sends with (internal 1)."""
        session: requests.Session = self._session
        return session

    def wanted_page_size(self, search: arxiv.Search, start: int, page_size: int) -> int:
        """The papers to ask for in the page at ``start``: by default ``page_size``."""
        return page_size

    def read_feed(self, url: str, first_page: bool, end: float | None = None) -> ParsedFeed:
        """Fetch and read the page at ``url`` (by ``end``): by default as arxiv does."""
        parsed: ParsedFeed = super()._parse_feed(url, first_page=first_page)
        return parsed

    def results_by(self, search: arxiv.Search, end: float | None) -> Iterator[arxiv.Result]:
        """``results(search)``, each page read by ``end`` (``time.monotonic()``)."""
        return itertools.islice(self._pages(search, end), search.max_results or None)

    def _pages(self, search: arxiv.Search, end: float | None) -> Iterator[arxiv.Result]:
        offset = 0
        feed = self.read_feed(self._format_url(search, offset, self.page_size), True, end)
        while feed.results:
            yield from feed.results
            offset += len(feed.results)
            if offset >= feed.header.total_results:
                return
            feed = self.read_feed(self._format_url(search, offset, self.page_size), False, end)

    def _format_url(self, search: arxiv.Search, start: int, page_size: int) -> str:
        # Internal 2.
        url: str = super()._format_url(
            search, start, self.wanted_page_size(search, start, page_size)
        )
        return url

    def _parse_feed(self, url: str, first_page: bool = True, _try_index: int = 0) -> Any:
        # Internal 3: the retries (``_try_index``) are read_feed's.
        return self.read_feed(url, first_page)
