"""What can go wrong when reading Google Calendar and Gmail, as this loader's exceptions.

Hierarchy::

    GoogleLoaderError          base: ``status``, ``reason``, ``retry_after``
    ├── GoogleAuthError        only the person can fix it (no OAuth client file, a malformed
    │                          token or key, a refused refresh); ``setting`` names the keyword
    ├── GoogleResponseError    a body that is not what the API returns (HTML, not a JSON
    │                          object, fields missing)
    ├── GoogleUnreachable      no answer from ``host``: a name that did not resolve, a refused
    │                          or broken connection, a timeout; ``host``, ``resolved``
    └── GoogleApiError         an HTTP error after the retries that fit the deadline (also a
                               ``googleapiclient.errors.HttpError``, so such code still catches it)

Other ``httplib2`` errors, an ``ssl.SSLError`` and a ``RefreshError`` are not wrapped.
Causes are walked, and a failed lookup judged, by :mod:`toolspecs.base.net` as every
loader does (:func:`unreachable`).
"""

from __future__ import annotations

import json
import os
import socket
import ssl
from typing import Any
from urllib.parse import urlsplit

from googleapiclient.errors import HttpError

from toolspecs.base.net import (
    DNS_RETRY_WAIT,
    LoaderError,
    causes,
    failed_host,
    maybe_the_proxy,
    temporary,
    unreachable_reason,
)
from toolspecs.base.net import retry_after as parse_retry_after
from toolspecs.loaders.google.compat_httplib2 import named_host


class GoogleLoaderError(LoaderError):
    """Base of the Google loader's exceptions (a ``toolspecs.base.net.LoaderError``)."""

    def __init__(
        self, reason: str, status: int | None = None, retry_after: float | None = None
    ) -> None:
        # LoaderError's, not super()'s: in GoogleApiError the next class is HttpError.
        LoaderError.__init__(self, reason, status=status, reason=reason, retry_after=retry_after)


class GoogleAuthError(GoogleLoaderError):
    """Google credentials cannot be had without the person: ``reason`` says what to set.

    ``setting`` is the :class:`~toolspecs.loaders.google.auth.GoogleAuth` keyword to set;
    ``path`` the file it is about. ``reason`` names the file by its name only (an agent may
    read it; where it lies on the user's machine is not for it); ``str()`` adds the path.
    """

    def __init__(self, reason: str, setting: str | None = None, path: str | None = None) -> None:
        self.setting = setting
        self.path = path
        super().__init__(reason)
        if path and os.path.basename(path) != path:
            Exception.__init__(self, f"{reason} (the file: {path})")


class GoogleResponseError(GoogleLoaderError):
    """Google's answer is not what the API returns (HTML, ``{}``, a cut body); passing, mostly."""

    @classmethod
    def unreadable(cls, resp: Any, content: Any) -> GoogleResponseError:
        """The error for a body that is not a JSON object (its type and size, not its text)."""
        kind = str(resp.get("content-type", "") if hasattr(resp, "get") else "") or "no type"
        size = len(content) if isinstance(content, (bytes, str)) else 0
        status = int(getattr(resp, "status", 0) or 0) or None
        return cls(
            f"Google answered HTTP {status} with {size} bytes of {kind.split(';')[0]}, "
            "not a JSON object",
            status=status,
        )


class GoogleUnreachable(GoogleLoaderError):
    """No answer could be had from ``host``: the request did not get through.

    ``resolved`` is ``False`` when the name did not resolve (no network or DNS), ``True`` for
    a refused, broken or timed-out connection. ``again``: the lookup failed with
    ``EAI_AGAIN``, worth one more try after a short wait; any other lookup failure is final.
    """

    def __init__(self, host: str, *, resolved: bool, reason: str = "", again: bool = False) -> None:
        self.host = host
        self.resolved = resolved
        self.again = again
        super().__init__(reason or unreachable_reason(host, resolved=resolved))


RATE_LIMIT_REASONS = frozenset(
    {"rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded", "RATE_LIMIT_EXCEEDED"}
)
"""Google's reasons for a 403 that means "too many requests": retried like a 429."""


class GoogleApiError(GoogleLoaderError, HttpError):  # type: ignore[misc]  # untyped base
    """Google answered a request with an HTTP error.

    ``reason`` is Google's message; ``google_reason`` its machine-readable reason
    (``"rateLimitExceeded"``, ...) or ``""``.
    """

    def __init__(self, resp: Any, content: bytes, uri: str | None = None) -> None:
        HttpError.__init__(self, resp, content, uri=uri)  # parses Google's message and details
        GoogleLoaderError.__init__(
            self,
            self.reason or f"HTTP {resp.status}",
            status=int(resp.status),
            retry_after=parse_retry_after(
                str(resp.get("retry-after", "") if hasattr(resp, "get") else "")
            ),
        )
        self.google_reason = _google_reason(content)

    @property
    def passing(self) -> bool:
        """Whether the same request may work a little later: 429, 5xx, rate-limit 403."""
        status = self.status or 0
        return (
            status == 429
            or status >= 500
            or (status == 403 and self.google_reason in RATE_LIMIT_REASONS)
        )

    @classmethod
    def from_http_error(cls, exc: HttpError) -> GoogleApiError:
        """The same failure as this loader's error."""
        return cls(exc.resp, exc.content, uri=exc.uri)

    # HttpError's text (status, address, Google's message), not GoogleLoaderError's.
    __str__ = HttpError.__repr__
    __repr__ = HttpError.__repr__


def _google_reason(content: bytes) -> str:
    try:
        error = json.loads(content.decode("utf-8")).get("error", {})
        listed = [*error.get("errors", []), *error.get("details", [])]
        reasons = [str(item.get("reason") or "") for item in listed if isinstance(item, dict)]
        return next((r for r in reasons if r), str(error.get("status") or ""))
    except (ValueError, AttributeError, TypeError):  # not JSON, or not Google's shape
        return ""


AGAIN_WAIT = DNS_RETRY_WAIT
"""Seconds to wait before the one more try a name that failed with ``EAI_AGAIN`` gets."""


def unreachable(exc: BaseException, uri: str) -> GoogleUnreachable | None:
    """The loader's error for a request to ``uri`` that got no answer; ``None`` for others."""
    import httplib2

    host = urlsplit(uri).hostname or "Google"
    wrapped = list(causes(exc))
    lookups = [cause for cause in wrapped if isinstance(cause, socket.gaierror)]
    if lookups or any(isinstance(c, httplib2.ServerNotFoundError) for c in wrapped):
        again = any(temporary(cause) for cause in lookups)
        # The name that did not resolve, or "<host> (or the proxy)" when unknowable.
        named = failed_host(exc) or maybe_the_proxy(
            next(filter(None, map(named_host, wrapped)), host)
        )
        return GoogleUnreachable(named, resolved=False, again=again)
    if any(isinstance(cause, ssl.SSLError) for cause in wrapped):
        return None  # a certificate or TLS failure: not a missing connection
    for cause in wrapped:
        if isinstance(cause, TimeoutError):
            return GoogleUnreachable(host, resolved=True, reason=f"no answer from {host} in time")
        if isinstance(cause, ConnectionError):
            what = (
                "connection refused"
                if isinstance(cause, ConnectionRefusedError)
                else type(cause).__name__
            )
            return GoogleUnreachable(
                host, resolved=True, reason=f"could not connect to {host} ({what})"
            )
    return None
