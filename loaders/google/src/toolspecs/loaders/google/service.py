"""Google API clients from the discovery documents bundled with google-api-python-client."""

from __future__ import annotations

from typing import Any, ClassVar

from llama_index.core.readers.base import BaseReader

from toolspecs.loaders.google.auth import GoogleAuth
from toolspecs.loaders.google.errors import GoogleApiError

NUM_RETRIES = 3


def build_service(api: str, version: str, credentials: Any = None, transport: Any = None) -> Any:
    """A ``googleapiclient`` resource for ``api``/``version``, with no network for discovery.

    Args:
        api: E.g. ``"calendar"``.
        version: E.g. ``"v3"``.
        credentials: Google credentials (ignored when ``transport`` is given).
        transport: An ``httplib2.Http``-like object, e.g. a test fake, used instead.
    """
    from googleapiclient.discovery import build

    if transport is not None:
        return build(api, version, http=transport, static_discovery=True, cache_discovery=False)
    return build(
        api, version, credentials=credentials, static_discovery=True, cache_discovery=False
    )


def execute(request: Any, num_retries: int = NUM_RETRIES) -> Any:
    """Run a request; googleapiclient retries 429, 5xx and rate-limit 403s with backoff.

    Raises:
        GoogleApiError: When Google still answers with an HTTP error.
    """
    from googleapiclient.errors import HttpError

    try:
        return request.execute(num_retries=num_retries)
    except HttpError as exc:
        if isinstance(exc, GoogleApiError):
            raise
        raise GoogleApiError.from_http_error(exc) from exc


class GoogleApiReader(BaseReader):
    """Base of the Google readers: one API client, built (and authorized) on first use.

    Args:
        auth: How to get credentials.
        transport: An ``httplib2.Http``-like object to send requests with (tests pass a
            fake such as ``toolspecs.loaders.google.testing.FakeCalendar``).
        service: A ready client for the API (used as it is).
    """

    api: ClassVar[str] = ""
    version: ClassVar[str] = ""

    def __init__(self, auth: GoogleAuth, transport: Any = None, service: Any = None) -> None:
        self.auth = auth
        self.transport = transport
        self._service = service

    @property
    def service(self) -> Any:
        """The API client, built on first use (no credentials needed with a ``transport``)."""
        if self._service is None:
            creds = None if self.transport is not None else self.auth.credentials()
            self._service = build_service(
                self.api, self.version, credentials=creds, transport=self.transport
            )
        return self._service
