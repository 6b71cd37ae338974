"""toolspecs.base.net: the network plumbing every loader shares (stdlib only, no agent wording)."""

from toolspecs.base.net.base_urls import BaseUrlRefused, base_url, is_loopback, under
from toolspecs.base.net.bounded import (
    DNS_RETRY_WAIT,
    BoundedGet,
    LookupRetry,
    Reply,
    causes,
    failed_host,
    lookup_failure,
    maybe_the_proxy,
    proxied,
    retry_after,
    temporary,
)
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
