"""toolspecs.base.net: the network plumbing every toolspecs loader shares.

- :mod:`~toolspecs.base.net.errors`: :class:`LoaderError`, the base of each loader's
  errors (``status``, ``reason``, ``retry_after``), and what the bounded GET raises.
- :mod:`~toolspecs.base.net.failures`: cause-walking, failed name lookups and the one
  more try ``EAI_AGAIN`` gets, the host that failed (a proxy's, behind one).
- :mod:`~toolspecs.base.net.waits`: ``Retry-After`` as seconds.
- :mod:`~toolspecs.base.net.bounded`: a GET bounded in time, size and tries, with
  requests or httpx (their extras: ``toolspecs-base[requests]``, ``[httpx]``).
- :mod:`~toolspecs.base.net.compat_requests`: every reliance on requests' internals.
- :mod:`~toolspecs.base.net.base_urls`: a service's base URL as a user configures it
  (https, or http on the loopback interface only), and whether a URL lies under it.
- :mod:`~toolspecs.base.net.testing`: a fake service's HTTP server on 127.0.0.1, for
  the loaders' shipped fakes.

No dependency beyond the standard library; no agent wording.
"""

from toolspecs.base.net.base_urls import BaseUrlRefused, base_url, is_loopback, under
from toolspecs.base.net.bounded import BoundedGet, Reply
from toolspecs.base.net.compat_requests import arrived, keep_body
from toolspecs.base.net.errors import (
    GetFailed,
    GetTimeout,
    HeaderRefused,
    LoaderError,
    NoConnection,
    ReplyTooLarge,
    unreachable_reason,
)
from toolspecs.base.net.failures import (
    DNS_RETRY_WAIT,
    LookupRetry,
    causes,
    failed_host,
    lookup_failure,
    maybe_the_proxy,
    proxied,
    temporary,
)
from toolspecs.base.net.waits import retry_after

__all__ = [
    "DNS_RETRY_WAIT",
    "BaseUrlRefused",
    "BoundedGet",
    "GetFailed",
    "GetTimeout",
    "HeaderRefused",
    "LoaderError",
    "LookupRetry",
    "NoConnection",
    "Reply",
    "ReplyTooLarge",
    "arrived",
    "base_url",
    "causes",
    "failed_host",
    "is_loopback",
    "keep_body",
    "lookup_failure",
    "maybe_the_proxy",
    "proxied",
    "retry_after",
    "temporary",
    "under",
    "unreachable_reason",
]
