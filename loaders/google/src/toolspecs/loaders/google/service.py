"""Google API clients from the discovery documents bundled with google-api-python-client."""

from __future__ import annotations

from typing import Any

NUM_RETRIES = 3


def build_service(api: str, version: str, credentials: Any = None, http: Any = None) -> Any:
    """A ``googleapiclient`` resource for ``api``/``version``, with no network for discovery.

    Args:
        api: E.g. ``"calendar"``.
        version: E.g. ``"v3"``.
        credentials: Google credentials (ignored when ``http`` is given).
        http: An ``httplib2.Http``-like object, e.g. a test fake, used instead.
    """
    from googleapiclient.discovery import build

    if http is not None:
        return build(api, version, http=http, static_discovery=True, cache_discovery=False)
    return build(
        api, version, credentials=credentials, static_discovery=True, cache_discovery=False
    )


def execute(request: Any, num_retries: int = NUM_RETRIES) -> Any:
    """Run a request; googleapiclient retries 429, 5xx and rate-limit 403s with backoff."""
    return request.execute(num_retries=num_retries)
