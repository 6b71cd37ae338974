"""A GET bounded in time, size and tries, sent with requests or httpx.

The whole call, retries and waits included, ends within its budget (the deadline is
checked after every chunk, so a body sent a byte at a time still ends there); a reply
over ``max_bytes`` is dropped; statuses worth it and failed connections are tried again
after ``Retry-After`` or ``backoff``; an unresolved name is final, but for ``EAI_AGAIN``.
The last reply is returned whatever its status; no usable reply raises ``GetFailed``.
``with_requests=True`` sends with ``requests.get`` (so code that patches it sees it).
"""

from __future__ import annotations

import datetime as dt
import socket
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlencode, urlsplit

from toolspecs.base.net.compat_requests import arrived, keep_body
from toolspecs.base.net.errors import GetTimeout, HeaderRefused, NoConnection, ReplyTooLarge

if TYPE_CHECKING:
    import httpx
    import requests

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
"""Statuses worth one more try: rate limits and passing server errors (not 501)."""
BACKOFF_SECONDS = 1.0
"""The wait before another try when the server did not say (``Retry-After``)."""
TRY_SECONDS = 2.0
"""Time kept for the next try itself: a wait is skipped when less would be left."""


# What an HTTP library's error wraps: requests, httpx, httplib2 and google-auth each wrap
# the socket's error their own way; causes() walks all of them. A socket.gaierror is a
# name that did not resolve: EAI_AGAIN (no network, or a DNS hiccup) gets one more try,
# any other is final.
DNS_RETRY_WAIT = 0.5
"""Seconds to wait before the one more try a lookup that failed with ``EAI_AGAIN`` gets."""

# getattr: a platform may lack the constant.
_EAI_AGAIN = getattr(socket, "EAI_AGAIN", None)


def causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and every exception it wraps (causes, ``args``, urllib3's ``reason``), each once."""
    seen: set[int] = set()
    stack = [exc]
    while stack:
        found = stack.pop()
        if id(found) in seen:
            continue
        seen.add(id(found))
        yield found
        inner = (found.__cause__, found.__context__, getattr(found, "reason", None), *found.args)
        stack.extend(item for item in inner if isinstance(item, BaseException))


def lookup_failure(exc: BaseException) -> socket.gaierror | None:
    """The ``socket.gaierror`` among ``exc``'s causes: a name that did not resolve."""
    return next((cause for cause in causes(exc) if isinstance(cause, socket.gaierror)), None)


def temporary(lookup: socket.gaierror) -> bool:
    """Whether the lookup failed with ``EAI_AGAIN``: worth one more try, no more."""
    return _EAI_AGAIN is not None and lookup.errno == _EAI_AGAIN


def failed_host(exc: BaseException) -> str | None:
    """The host urllib3 could not connect to (the proxy's, behind one); else ``None``."""
    urllib3_errors = sys.modules.get("urllib3.exceptions")
    if urllib3_errors is None:
        return None
    for cause in causes(exc):
        if isinstance(cause, urllib3_errors.NewConnectionError):
            host = getattr(getattr(cause, "conn", None), "host", None)
            if isinstance(host, str) and host:
                return host
    return None


def proxied(scheme: str = "https") -> bool:
    """Whether a proxy is set for ``scheme`` (``HTTPS_PROXY``, ``ALL_PROXY``...)."""
    proxies = urllib.request.getproxies()
    return bool(proxies.get(scheme) or proxies.get("all"))


def maybe_the_proxy(host: str, scheme: str = "https") -> str:
    """``host``, or ``"<host> (or the proxy)"`` when a proxy is set: the name may be its."""
    return f"{host} (or the proxy)" if proxied(scheme) else host


class LookupRetry:
    """The one more try a call gives a lookup that failed with ``EAI_AGAIN`` (one per call)."""

    wait = DNS_RETRY_WAIT

    def __init__(self) -> None:
        self.used = False

    def allows(self, again: bool, fits: bool = True) -> bool:
        """Whether to wait :attr:`wait` and try again (``fits``: within the deadline)."""
        if not again or self.used or not fits:
            return False
        self.used = True
        return True


def retry_after(value: str | None) -> float | None:
    """A ``Retry-After`` value (seconds, or an HTTP date) in seconds; ``None`` when not a time."""
    value = (value or "").strip()
    if not value:
        return None
    if value.isascii() and value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT
        when = when.replace(tzinfo=dt.timezone.utc)
    return max(0.0, (when - dt.datetime.now(dt.timezone.utc)).total_seconds())


@dataclass
class Reply:
    """One reply, read within the limits; ``ok`` and ``text`` as the library judged them."""

    ok: bool
    status: int
    reason_phrase: str
    headers: Mapping[str, str]
    body: bytes
    text: str


@dataclass(eq=False, kw_only=True)
class BoundedGet:
    """GETs bounded by a budget of seconds, a size cap and a number of retries.

    ``timeout`` is per connect and per read; ``max_bytes`` counts the body decompressed;
    ``retries`` are extra tries after a status in ``retry_statuses`` or a failed connection;
    ``transport`` is the httpx transport (``None``: httpx's own).
    """

    timeout: float
    max_bytes: int
    retries: int
    transport: httpx.BaseTransport | None = None
    retry_statuses: frozenset[int] = RETRY_STATUSES
    backoff: float = BACKOFF_SECONDS
    try_seconds: float = TRY_SECONDS

    def __post_init__(self) -> None:
        self._client: httpx.Client | None = None
        self._client_lock = threading.Lock()

    @property
    def http(self) -> httpx.Client:
        """The httpx client, made on first use (httpx is imported then)."""
        with self._client_lock:
            if self._client is None:
                import httpx

                self._client = httpx.Client(timeout=self.timeout, transport=self.transport)
            return self._client

    def close(self) -> None:
        """Close the httpx client's connections."""
        with self._client_lock:
            if self._client is not None:
                self._client.close()

    def get(
        self,
        url: str,
        params: Mapping[str, Any],
        headers: Mapping[str, str] | None = None,
        *,
        budget: float,
        with_requests: bool = False,
    ) -> Reply:
        """GET ``url`` within ``budget`` seconds, tried again as the module says."""
        end = time.monotonic() + budget
        lookups = LookupRetry()
        tried = 0
        while True:
            failure: NoConnection | None = None
            try:
                if with_requests:
                    reply = self._with_requests(url, params, headers, end, budget)
                else:
                    reply = self._with_httpx(url, params, headers, end, budget)
            except NoConnection as exc:
                fits = time.monotonic() + lookups.wait + self.try_seconds <= end
                if lookups.allows(exc.again, fits):
                    time.sleep(lookups.wait)
                    continue
                if not exc.resolved:
                    raise
                failure, wait = exc, self.backoff
            else:
                if reply.ok or reply.status not in self.retry_statuses:
                    return reply
                asked = retry_after(reply.headers.get("Retry-After"))
                wait = self.backoff if asked is None else asked
            if tried == self.retries or time.monotonic() + wait + self.try_seconds > end:
                # No time for the wait and another try: the caller is told when to retry.
                if failure is not None:
                    raise failure
                return reply
            tried += 1
            time.sleep(wait)

    def _with_httpx(
        self,
        url: str,
        params: Mapping[str, Any],
        headers: Mapping[str, str] | None,
        end: float,
        budget: float,
    ) -> Reply:
        import httpx

        timeout = self._time_for_request(end, budget)
        try:
            # httpx's timeouts are per read, fixed when the request starts; _read checks
            # the deadline after every chunk.
            with self.http.stream(
                "GET", url, params=params, headers=headers, timeout=httpx.Timeout(timeout)
            ) as response:
                body = self._read(response.iter_bytes(), response, end, budget)
                return Reply(
                    response.is_success,
                    response.status_code,
                    response.reason_phrase,
                    response.headers,
                    body,
                    _decode(response, body),
                )
        except (httpx.TimeoutException, httpx.RequestError) as exc:
            self._failed(exc, url, budget)

    def _with_requests(
        self,
        url: str,
        params: Mapping[str, Any],
        headers: Mapping[str, str] | None,
        end: float,
        budget: float,
    ) -> Reply:
        import requests

        timeout = self._time_for_request(end, budget)
        try:
            response = requests.get(
                f"{url}?{urlencode(params)}",
                headers=dict(headers or {}),
                timeout=timeout,
                stream=True,
                allow_redirects=False,
            )
            try:
                body = self._read(arrived(response), response, end, budget)
                keep_body(response, body)
                text = response.text
            finally:
                response.close()
        except requests.RequestException as exc:
            self._failed(exc, url, budget)
        try:
            response.raise_for_status()
        except requests.HTTPError:
            ok = False
        else:
            ok = True
        return Reply(ok, response.status_code, response.reason, response.headers, body, text)

    def _time_for_request(self, end: float, budget: float) -> float:
        left = end - time.monotonic()
        if left <= 0:
            raise GetTimeout(budget, "no time was left for another request")
        return min(self.timeout, left)

    def _failed(self, exc: Exception, url: str, budget: float) -> NoReturn:
        parts = urlsplit(url)
        host = parts.hostname or url
        if _library_error(exc, "requests.exceptions", "InvalidHeader") or _library_error(
            exc, "httpx", "LocalProtocolError"
        ):
            raise HeaderRefused(exc) from None
        if _library_error(exc, "requests.exceptions", "Timeout") or _library_error(
            exc, "httpx", "TimeoutException"
        ):
            seconds = min(self.timeout, budget)
            what = f"no answer from {host} within {seconds:g} seconds"
            raise GetTimeout(seconds, what, host=host, cause=exc) from None
        lookup = lookup_failure(exc)
        if lookup is None:
            raise NoConnection(host, resolved=True, cause=exc) from None
        # The name that failed may be the proxy's: named when the error says which.
        if proxied(parts.scheme):
            host = failed_host(exc) or f"{host} (or the proxy)"
        raise NoConnection(host, resolved=False, again=temporary(lookup), cause=exc) from None

    def _read(
        self,
        chunks: Iterator[bytes],
        response: httpx.Response | requests.Response,
        end: float,
        budget: float,
    ) -> bytes:
        declared, status = response.headers.get("Content-Length"), response.status_code
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            raise ReplyTooLarge(self.max_bytes, status)
        kept: list[bytes] = []
        size = 0
        for chunk in chunks:
            size += len(chunk)
            if size > self.max_bytes:
                raise ReplyTooLarge(self.max_bytes, status)
            if time.monotonic() > end:
                raise GetTimeout(
                    budget, f"the reply did not arrive in full within {budget:g} seconds"
                )
            kept.append(chunk)
        return b"".join(kept)


def _library_error(exc: BaseException, module: str, name: str) -> bool:
    # Never imports ``module``: a request sent with one library is told apart without
    # loading the other.
    loaded = sys.modules.get(module)
    kind = getattr(loaded, name, None) if loaded is not None else None
    return isinstance(kind, type) and isinstance(exc, kind)


def _decode(response: httpx.Response, body: bytes) -> str:
    try:
        return body.decode(response.charset_encoding or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return body.decode("utf-8", errors="replace")
