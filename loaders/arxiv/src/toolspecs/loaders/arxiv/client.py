"""One arXiv client for the whole process, so arXiv's rate limit holds across every call.

:class:`ArxivClient` is an ``arxiv.Client`` that adds what an agent needs from it:
a timeout on every request, one lock so concurrent tools share the rate limit,
retries only where they can help (429, 5xx, timeouts, connection errors, malformed
or unexpectedly empty pages), and the message arXiv sends when it rejects a query.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import TypeVar

import requests
from lxml import etree
from requests.adapters import BaseAdapter

import arxiv
from arxiv import _feed
from toolspecs.loaders.arxiv.errors import ArxivQueryError, ArxivUnavailable

_ATOM = "{http://www.w3.org/2005/Atom}"
_USER_AGENT = f"toolspecs-arxiv (arxiv.py/{arxiv.__version__})"
# arXiv's terms of use: "no more than one request every three seconds".
_ARXIV_DELAY = 3.0
# A Retry-After longer than this is passed on to the caller instead of waited for.
T = TypeVar("T")


class _Transient(Exception):
    """A failure the next try may not meet; ``ArxivUnavailable`` after the last try."""

    def __init__(
        self, reason: str, retry_after: float | None = None, status: int | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.status = status


class ArxivClient(arxiv.Client):  # type: ignore[misc]  # arxiv ships no type hints
    """An ``arxiv.Client`` with timeouts, a shared rate limit and useful errors.

    Args:
        page_size: Results per API request.
        delay_seconds: Seconds between requests: arXiv asks for 3. By default 3, or the
            ``delay_seconds`` the transport declares (the offline ``FakeArxiv`` says 0).
        num_retries: Extra tries after a passing failure.
        timeout: Seconds to wait for each response.
        deadline: The most seconds one fetch may take with its retries and the waits
            arXiv asks for (``Retry-After``); past it, ``ArxivUnavailable`` says when to
            try again instead of waiting.
        transport: A ``requests`` transport adapter to send every request through,
            mounted for ``https://`` and ``http://``; offline tests and demos pass
            ``toolspecs.loaders.arxiv.testing.FakeArxiv().transport()``.
    """

    def __init__(
        self,
        page_size: int = 100,
        delay_seconds: float | None = None,
        num_retries: int = 3,
        timeout: float = 30.0,
        transport: BaseAdapter | None = None,
        deadline: float = 30.0,
    ) -> None:
        if delay_seconds is None:
            delay_seconds = float(getattr(transport, "delay_seconds", _ARXIV_DELAY))
        super().__init__(page_size=page_size, delay_seconds=delay_seconds, num_retries=num_retries)
        if transport is not None:
            # arxiv.Client (4.x) keeps its requests.Session in ``_session``; ``get`` sends with it.
            self._session.mount("https://", transport)
            self._session.mount("http://", transport)
        self.transport = transport
        self.timeout = timeout
        self.deadline = deadline
        self._lock = threading.Lock()
        self._last_request_dt: datetime | None = None

    def get(self, url: str) -> requests.Response:
        """GET ``url`` within the rate limit; timeouts and connection errors are transient."""
        with self._lock:
            if self._last_request_dt is not None:
                waited = (datetime.now() - self._last_request_dt).total_seconds()
                if waited < self.delay_seconds:
                    time.sleep(self.delay_seconds - waited)
            try:
                response: requests.Response = self._session.get(
                    url, headers={"user-agent": _USER_AGENT}, timeout=self.timeout
                )
                return response
            except requests.Timeout as exc:
                raise _Transient(f"no answer within {self.timeout:g} s") from exc
            except requests.ConnectionError as exc:
                raise _Transient(f"could not connect ({type(exc).__name__})") from exc
            finally:
                self._last_request_dt = datetime.now()

    def get_with_retries(self, url: str) -> requests.Response:
        """GET ``url``, retrying passing failures; ``ArxivUnavailable`` after the last try."""
        return self._retrying(lambda: _check_status(self.get(url)))

    def _format_url(self, search: arxiv.Search, start: int, page_size: int) -> str:
        # Ask arXiv for the papers still wanted (3, say), not for a whole page of 100.
        if search.max_results:
            page_size = max(1, min(page_size, search.max_results - start))
        url: str = super()._format_url(search, start, page_size)
        return url

    def _parse_feed(
        self, url: str, first_page: bool = True, _try_index: int = 0
    ) -> _feed.ParsedFeed:
        def attempt() -> _feed.ParsedFeed:
            return _parse(_check_status(self.get(url)).content, first_page)

        return self._retrying(attempt)

    def _retrying(self, attempt: Callable[[], T]) -> T:
        last: _Transient | None = None
        started, slept = time.monotonic(), 0.0
        for tried in range(1, self.num_retries + 2):
            try:
                return attempt()
            except _Transient as exc:
                last = exc
                if tried > self.num_retries:
                    break  # no wait after the last try
                # get() waits delay_seconds itself; a longer Retry-After adds the rest.
                extra = max(0.0, (exc.retry_after or 0.0) - self.delay_seconds)
                # Real time, or the waits alone where sleeping is faked (tests).
                spent = max(time.monotonic() - started, slept)
                if spent + self.delay_seconds + extra > self.deadline:
                    break  # the caller is told when to try again, instead of waiting
                if extra:
                    time.sleep(extra)
                    slept += extra
        assert last is not None
        raise ArxivUnavailable(last.reason, last.retry_after, status=last.status)


def _check_status(response: requests.Response) -> requests.Response:
    status = response.status_code
    if status == 200:
        return response
    if status == 429 or status >= 500:
        raise _Transient(f"HTTP {status}", _retry_after(response), status)
    raise ArxivQueryError(_error_summary(response.content) or f"HTTP {status}", status=status)


def _retry_after(response: requests.Response) -> float | None:
    """``Retry-After`` in seconds: a number of seconds or an HTTP date (RFC 9110)."""
    value = response.headers.get("Retry-After", "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(seconds, 0.0) if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT
        when = when.replace(tzinfo=timezone.utc)
    return max((when - datetime.now(timezone.utc)).total_seconds(), 0.0)


def _root(content: bytes, recover: bool = True) -> etree._Element | None:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=recover)
    try:
        return etree.fromstring(content, parser=parser)
    except etree.XMLSyntaxError:
        return None


def _error_summary(content: bytes) -> str | None:
    """The message of an arXiv error entry (``<id>…/api/errors#…</id>``), if there is one."""
    root = _root(content)
    if root is None:
        return None
    for entry in root.iter(f"{_ATOM}entry"):
        entry_id = entry.findtext(f"{_ATOM}id") or ""
        if "/api/errors" in entry_id:
            return (entry.findtext(f"{_ATOM}summary") or entry_id).strip()
    return None


def _parse(content: bytes, first_page: bool) -> _feed.ParsedFeed:
    # Strict: a feed cut short (a dropped connection) is retried, not half read.
    root = _root(content, recover=False)
    if root is None or root.tag != f"{_ATOM}feed":
        raise _Transient("the response was not a complete Atom feed")
    message = _error_summary(content)
    if message is not None:
        raise ArxivQueryError(message)
    parsed = _feed.parse(content)
    if parsed.malformed:
        raise _Transient(f"malformed feed ({parsed.error})")
    if not parsed.results and not first_page:
        raise _Transient("an unexpectedly empty page")
    return parsed


_shared: ArxivClient | None = None
_shared_lock = threading.Lock()


def shared_client() -> ArxivClient:
    """The process-wide client every reader uses unless given its own."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = ArxivClient()
        return _shared
