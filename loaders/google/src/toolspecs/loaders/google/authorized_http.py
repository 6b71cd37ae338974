"""One HTTP object per thread, so that one client's requests run side by side.

``httplib2.Http`` is not thread-safe. google-api-python-client's documented way out
("Thread Safety") is ``build(requestBuilder=...)`` giving each request its thread's HTTP
object (:class:`~toolspecs.loaders.google.service.ThreadRequests`). For a client built
with credentials each thread gets a :class:`SerialAuthorizedHttp` over ``build_http()``; a
``transport=`` factory makes one per thread; a ``transport=`` object is shared as it is
(the fakes are thread-safe). A batch sends with its thread's too.

A client whose endpoint is this machine sends without the environment's proxy: httplib2
refuses plain-http connections once ``HTTP_PROXY`` is set without PySocks, even to hosts
in ``NO_PROXY``.

The credentials are shared as google-auth's own: googleapiclient's batch code treats
them as google-auth's only if they are (``isinstance``; a wrapper of ours once made every
batch fail). google-auth renews an expired token in ``before_request`` with no lock, so
threads would race to renew it; ``SerialAuthorizedHttp`` renews under one lock per
credentials. Imported when a client is made (httplib2 and pyparsing take about 0.1 s).
"""

from __future__ import annotations

import threading
from typing import Any

import google_auth_httplib2

from google.auth.transport import DEFAULT_MAX_REFRESH_ATTEMPTS, DEFAULT_REFRESH_STATUS_CODES

RENEWALS = DEFAULT_MAX_REFRESH_ATTEMPTS
"""Renewals after a 401 answer to one request, as google-auth-httplib2 allows."""
RENEW_ON = tuple(DEFAULT_REFRESH_STATUS_CODES)


class SerialAuthorizedHttp(google_auth_httplib2.AuthorizedHttp):  # type: ignore[misc]
    """A thread's ``AuthorizedHttp`` renewing its credentials under the shared lock.

    The credentials stay google-auth's own, as googleapiclient's batch code expects; the
    renewals (an expired token, and a 401 at most twice, as google-auth-httplib2 does) happen
    here instead of in google-auth-httplib2's ``request``.
    """

    def __init__(self, credentials: Any, http: Any, renewing: threading.Lock) -> None:
        super().__init__(credentials, http=http, refresh_status_codes=())
        self.renewing = renewing
        self.renewal_request = google_auth_httplib2.Request(http)

    def request(
        self, uri: str, method: str = "GET", body: Any = None, headers: Any = None, **kwargs: Any
    ) -> Any:
        """httplib2's ``request``: the token renewed first if expired, and after a 401."""
        credentials = self.credentials
        if not credentials.valid:
            with self.renewing:
                if not credentials.valid:
                    credentials.refresh(self.renewal_request)
        position = body.tell() if hasattr(body, "tell") and hasattr(body, "seek") else None
        for attempt in range(RENEWALS + 1):
            sent = credentials.token
            response, content = super().request(uri, method, body=body, headers=headers, **kwargs)
            if response.status not in RENEW_ON or attempt == RENEWALS:
                break
            with self.renewing:
                if credentials.token == sent:  # else another thread renewed it meanwhile
                    credentials.refresh(self.renewal_request)
            if position is not None:
                body.seek(position)
        return response, content
