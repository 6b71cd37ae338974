"""One arXiv client for the whole process, so arXiv's rate limit holds across every call.

:class:`ArxivClient` is an ``arxiv.Client`` with a timeout on every request, one lock so
concurrent tools share the rate limit, retries only where they can help (429, 5xx,
timeouts, connection errors, malformed or unexpectedly empty pages), and the message arXiv
sends when it rejects a query. A name that does not resolve keeps no pace (no request
reached arXiv); ``EAI_AGAIN`` gets one more try, any other failed lookup is final.

Every fetch is bounded in wall time (retries, waits and a trickling body included), in
size (read in chunks, dropped at its cap) and in where it goes (only arXiv over https,
redirects included, or only under a ``base_url``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar
from urllib.parse import urljoin, urlsplit

import requests
import urllib3
from lxml import etree
from requests.adapters import BaseAdapter

import arxiv
from toolspecs.base.net import (
    DNS_RETRY_WAIT,
    LoaderError,
    LookupRetry,
    NoConnection,
    causes,
    failed_host,
    is_loopback,
    keep_body,
    lookup_failure,
    maybe_the_proxy,
    retry_after,
    temporary,
    under,
)
from toolspecs.base.net import base_url as checked_base_url
from toolspecs.loaders.arxiv.compat_arxiv import HookedClient, ParsedFeed, parse_feed
from toolspecs.loaders.arxiv.errors import ArxivQueryError, ArxivUnavailable, ArxivUnreachable

_ATOM = "{http://www.w3.org/2005/Atom}"
_USER_AGENT = f"toolspecs-arxiv (arxiv.py/{arxiv.__version__})"
# arXiv's terms of use: "no more than one request every three seconds".
_ARXIV_DELAY = 3.0
T = TypeVar("T")
# The largest feed we read: 50 results are about 200 KB.
MAX_FEED_BYTES = 10 * 2**20
MAX_REDIRECTS = 5
_CHUNK = 64 * 1024


def arxiv_url(url: str) -> bool:
    """Whether ``url`` is arXiv over https: ``arxiv.org`` or a host under it, no user or port."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    host = (parts.hostname or "").rstrip(".")
    return (
        parts.scheme == "https"
        and (host == "arxiv.org" or host.endswith(".arxiv.org"))
        and port in (None, 443)
        and parts.username is None
        and parts.password is None
    )


class _Refused(LoaderError):
    """A request or redirect we do not make, or an answer we stop reading: not retried."""

    def __init__(self, reason: str, status: int | None = None) -> None:
        super().__init__(reason, status=status, reason=reason)


class TooLarge(_Refused):
    """An answer larger than the cap of its request (``limit`` bytes)."""

    def __init__(self, limit: int) -> None:
        size = f"{limit / 2**20:g} MB" if limit >= 2**20 else f"{limit:,} bytes"
        super().__init__(f"the answer is larger than {size}")
        self.limit = limit


class Redirected(_Refused):
    """A URL, or a redirect to one, that is not where the client fetches (``allowed``)."""

    def __init__(
        self, url: str, status: int | None = None, allowed: str = "arXiv over https"
    ) -> None:
        shown = url if len(url) <= 100 else url[:99] + "…"
        super().__init__(f"it pointed to {shown}, which is not {allowed}", status)
        self.url = url


class _Transient(LoaderError):
    """A failure the next try may not meet; ``host``: no connection to it (refused, reset)."""

    def __init__(
        self,
        reason: str,
        retry_after: float | None = None,
        status: int | None = None,
        host: str | None = None,
    ) -> None:
        super().__init__(reason, status=status, reason=reason, retry_after=retry_after)
        self.host = host


class ArxivClient(HookedClient):
    """An ``arxiv.Client`` with timeouts, a shared rate limit and useful errors.

    Args:
        page_size: Results per API request.
        delay_seconds: Seconds between requests: arXiv asks for 3 (default: 3, or the
            transport's ``delay_seconds``; none on this machine).
        num_retries: Extra tries after a passing failure.
        timeout: Seconds to wait for each response, and for each part of its body.
        deadline: The most seconds one fetch may take in all (a caller's ``end`` may
            end it sooner); past it, ``ArxivUnavailable`` says when to try again.
        transport: A ``requests`` transport adapter, e.g. ``FakeArxiv().transport()``.
        base_url: Where arXiv is reached instead (a mirror, a local fake):
            ``<base_url>/api/query`` and ``<base_url>/pdf/<id>``; https, or plain http
            to this machine only (``BaseUrlRefused``).
    """

    def __init__(
        self,
        page_size: int = 100,
        delay_seconds: float | None = None,
        num_retries: int = 3,
        timeout: float = 30.0,
        transport: BaseAdapter | None = None,
        deadline: float = 30.0,
        base_url: str | None = None,
    ) -> None:
        self.base_url = None if base_url is None else checked_base_url(base_url, service="arXiv")
        if delay_seconds is None:
            delay_seconds = float(getattr(transport, "delay_seconds", _ARXIV_DELAY))
            if self.base_url is not None and is_loopback(urlsplit(self.base_url).hostname or ""):
                delay_seconds = 0.0  # this machine: arXiv's pace is for arXiv and mirrors
        super().__init__(page_size=page_size, delay_seconds=delay_seconds, num_retries=num_retries)
        if self.base_url is not None:  # arxiv.Client's documented endpoint format
            self.query_url_format = self.base_url.replace("{", "{{").replace("}", "}}")
            self.query_url_format += "/api/query?{}"
        if transport is not None:
            self.session.mount("https://", transport)  # the session ``get`` sends with
            self.session.mount("http://", transport)
        self.transport = transport
        self.timeout = timeout
        self.deadline = deadline
        self._lock = threading.Lock()
        # When the last request went out (monotonic: a wall clock set back stalls no pace).
        self._last_request: float | None = None

    def allows(self, url: str) -> bool:
        """Whether ``url`` is one this client fetches: under ``base_url``, else arXiv's."""
        return arxiv_url(url) if self.base_url is None else under(self.base_url, url)

    @property
    def allowed(self) -> str:
        """Where this client fetches, in words: ``arXiv over https`` or ``under <base>``."""
        return "arXiv over https" if self.base_url is None else f"under {self.base_url}"

    def get(
        self, url: str, *, max_bytes: int = MAX_FEED_BYTES, end: float | None = None
    ) -> requests.Response:
        """GET ``url`` within the rate limit and by ``end`` (``time.monotonic()``); its body read.

        Raises ``TooLarge`` past ``max_bytes``, ``Redirected`` to where it is not :meth:`allows`.
        """
        for _hop in range(MAX_REDIRECTS + 1):
            if not self.allows(url):
                raise Redirected(url, allowed=self.allowed)
            response = self._send(url, end)
            if not response.is_redirect:
                _read_body(response, max_bytes, end)
                return response
            response.close()
            target = urljoin(url, response.headers.get("location", ""))
            if not self.allows(target):
                raise Redirected(target, response.status_code, self.allowed)
            url = target
        raise _Transient(f"more than {MAX_REDIRECTS} redirects")

    def _send(self, url: str, end: float | None) -> requests.Response:
        # One request, its headers only: the rate limit's lock is held until they came.
        timeout = self.timeout
        if end is not None:
            left = end - time.monotonic()
            if left <= 0:
                raise _Transient("no time was left for another request")
            timeout = min(timeout, left)
            if not self._lock.acquire(timeout=left):
                raise _Transient("this process's other arXiv requests took all the time")
        else:
            self._lock.acquire()
        host = urlsplit(url).hostname or "arXiv"
        sent = True  # whether a request may have reached arXiv: then the pace is kept
        try:
            if self._last_request is not None:
                waited = time.monotonic() - self._last_request
                if waited < self.delay_seconds:
                    pause = self.delay_seconds - waited
                    if end is not None and time.monotonic() + pause >= end:
                        raise _Transient("no time was left to keep arXiv's pace")
                    time.sleep(pause)
            if end is not None:  # the time left after waiting for the lock and the pace
                timeout = min(self.timeout, end - time.monotonic())
                if timeout <= 0:
                    raise _Transient("no time was left for another request")
            try:
                response: requests.Response = self.session.get(
                    url,
                    headers={"user-agent": _USER_AGENT},
                    timeout=timeout,
                    allow_redirects=False,
                    stream=True,
                )
                return response
            except requests.Timeout as exc:
                raise _Transient(f"no answer from {host} within {timeout:g} s") from exc
            except requests.ConnectionError as exc:
                failed = failed_host(exc) or maybe_the_proxy(host)
                lookup = lookup_failure(exc)
                if lookup is not None:  # no request left: no pace to keep
                    sent = False
                    raise NoConnection(
                        failed, resolved=False, again=temporary(lookup), cause=exc
                    ) from exc
                reason = f"could not connect to {failed} ({_connection_failure(exc)})"
                raise _Transient(reason, host=failed) from exc
            finally:
                if sent:
                    self._last_request = time.monotonic()
        finally:
            self._lock.release()

    def get_with_retries(
        self, url: str, *, max_bytes: int = MAX_FEED_BYTES, end: float | None = None
    ) -> requests.Response:
        """:meth:`get`, retrying passing failures; ``ArxivUnavailable`` after the last try."""
        return self._retrying(
            lambda by: _check_status(self.get(url, max_bytes=max_bytes, end=by)), end
        )

    def wanted_page_size(self, search: arxiv.Search, start: int, page_size: int) -> int:
        """Ask arXiv for the papers still wanted (3, say), not for a whole page of 100."""
        if search.max_results:
            return int(max(1, min(page_size, search.max_results - start)))
        return page_size

    def read_feed(self, url: str, first_page: bool, end: float | None = None) -> ParsedFeed:
        """One page of results, fetched within the bounds and retried where it helps."""

        def attempt(by: float | None) -> ParsedFeed:
            return _parse(_check_status(self.get(url, end=by)).content, first_page)

        try:
            return self._retrying(attempt, end)
        except _Refused as exc:  # a feed too large, or a redirect away from arXiv
            raise ArxivUnavailable(exc.reason, status=exc.status) from exc

    def _retrying(self, attempt: Callable[[float | None], T], end: float | None = None) -> T:
        last: _Transient | None = None
        started, slept = time.monotonic(), 0.0
        # Each try may take the time left of the deadline, the caller's included.
        end = started + self.deadline if end is None else min(end, started + self.deadline)
        tried, lookups = 0, LookupRetry()
        while True:
            try:
                return attempt(end)
            except NoConnection as exc:
                # EAI_AGAIN once gets one more try, half a second later, within the deadline;
                # it keeps no pace of its own (no request left). Any other failure is final.
                spent = max(time.monotonic() - started, slept)
                if not lookups.allows(exc.again, started + spent + DNS_RETRY_WAIT < end):
                    raise ArxivUnreachable(exc.host, resolved=False) from exc.__cause__
                time.sleep(DNS_RETRY_WAIT)
                slept += DNS_RETRY_WAIT
            except _Transient as exc:
                tried += 1
                last = exc
                if tried > self.num_retries:
                    break  # no wait after the last try
                # get() waits delay_seconds itself; a longer Retry-After adds the rest.
                extra = max(0.0, (exc.retry_after or 0.0) - self.delay_seconds)
                # Real time, or the waits alone where sleeping is faked (tests).
                spent = max(time.monotonic() - started, slept)
                if started + spent + self.delay_seconds + extra > end:
                    break  # the caller is told when to try again, instead of waiting
                if extra:
                    time.sleep(extra)
                    slept += extra
        assert last is not None
        if last.host is not None:
            raise ArxivUnreachable(last.host, resolved=True, reason=last.reason)
        raise ArxivUnavailable(last.reason, last.retry_after, status=last.status)


def _connection_failure(exc: BaseException) -> str:
    for cause in causes(exc):
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, ConnectionResetError):
            return "connection reset"
    return type(exc).__name__


def _read_body(response: requests.Response, max_bytes: int, end: float | None) -> None:
    # Each chunk is one read from the socket (urllib3's read1), so a body that trickles in
    # is stopped at ``end``, not after its last byte.
    body = bytearray()
    try:
        declared = int(response.headers.get("content-length", ""))
    except ValueError:
        declared = -1
    try:
        if declared > max_bytes:
            raise TooLarge(max_bytes)
        while True:
            if end is not None and time.monotonic() > end:
                raise _Transient("the answer came too slowly to arrive in time")
            try:
                chunk = response.raw.read1(_CHUNK, decode_content=True)
            except (urllib3.exceptions.HTTPError, OSError) as exc:
                raise _Transient(f"the answer broke off ({type(exc).__name__})") from exc
            if not chunk:
                break
            body += chunk
            if len(body) > max_bytes:
                raise TooLarge(max_bytes)
    except BaseException:
        response.close()  # the connection is dropped, not reused half read
        raise
    keep_body(response, bytes(body))  # ``response.content`` is what was read here
    response.close()  # the connection goes back to the pool


def _check_status(response: requests.Response) -> requests.Response:
    status = response.status_code
    if status == 200:
        return response
    if status == 429 or status >= 500:
        raise _Transient(f"HTTP {status}", retry_after(response.headers.get("Retry-After")), status)
    raise ArxivQueryError(_error_summary(response.content) or f"HTTP {status}", status=status)


def _root(content: bytes, recover: bool = True) -> etree._Element | None:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=recover)
    try:
        return etree.fromstring(content, parser=parser)
    except etree.XMLSyntaxError:
        return None


def _error_summary(content: bytes) -> str | None:
    """The message of an arXiv error entry (``<id>…/api/errors#…</id>``), if any."""
    root = _root(content)
    if root is None:
        return None
    for entry in root.iter(f"{_ATOM}entry"):
        entry_id = entry.findtext(f"{_ATOM}id") or ""
        if "/api/errors" in entry_id:
            return (entry.findtext(f"{_ATOM}summary") or entry_id).strip()
    return None


def _parse(content: bytes, first_page: bool) -> ParsedFeed:
    # Strict: a feed cut short (a dropped connection) is retried, not half read.
    root = _root(content, recover=False)
    if root is None or root.tag != f"{_ATOM}feed":
        raise _Transient("the response was not a complete Atom feed")
    message = _error_summary(content)
    if message is not None:
        raise ArxivQueryError(message)
    parsed = parse_feed(content)
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
