"""One HTTP object per thread, so that one client's requests run side by side.

``httplib2.Http`` is not thread-safe. google-api-python-client's documented way out
("Thread Safety") is ``build(requestBuilder=...)`` giving each request its thread's HTTP
object: :class:`ThreadRequests`. For a client built with credentials each thread gets a
:class:`~toolspecs.loaders.google.authorized_http.SerialAuthorizedHttp` over
``build_http()``; a ``transport=`` factory makes one per thread; a ``transport=`` object
is shared as it is (the fakes are thread-safe). A batch sends with its thread's too.

A client whose endpoint is this machine sends without the environment's proxy: httplib2
refuses plain-http connections once ``HTTP_PROXY`` is set without PySocks, even to hosts
in ``NO_PROXY``.

The credentials are shared as google-auth's own: googleapiclient's batch code treats
them as google-auth's only if they are (``isinstance``; a wrapper of ours once made every
batch fail). google-auth renews an expired token in ``before_request`` with no lock, so
threads would race to renew it; ``SerialAuthorizedHttp`` renews under one lock per
credentials.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def is_http_factory(transport: Any) -> bool:
    """Whether ``transport`` makes HTTP objects (a callable) rather than being one."""
    return callable(transport) and not hasattr(transport, "request")


class PerThreadHttp:
    """Each thread's own HTTP object, made by ``make`` on the thread's first request."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make
        self._local = threading.local()

    def get(self) -> Any:
        """The calling thread's HTTP object."""
        http = getattr(self._local, "http", None)
        if http is None:
            http = self._local.http = self.make()
        return http


class ThreadRequests:
    """A ``requestBuilder`` for ``build()`` whose requests send with their thread's HTTP."""

    def __init__(self, transport: Any = None, *, direct: bool = False) -> None:
        self.direct = direct
        self._https: PerThreadHttp | None = None
        if is_http_factory(transport):
            self._https = PerThreadHttp(transport)
        elif transport is not None:
            self._https = PerThreadHttp(lambda: transport)
        self._making = threading.Lock()

    def http(self, shared: Any = None) -> Any:
        """The calling thread's HTTP object (``shared``: the one ``build`` made)."""
        if self._https is None:
            with self._making:
                if self._https is None:
                    self._https = PerThreadHttp(_copies(shared, self.direct))
        return self._https.get()

    def __call__(self, http: Any, *args: Any, **kwargs: Any) -> Any:
        """A ``googleapiclient.http.HttpRequest`` sent with the calling thread's HTTP."""
        from googleapiclient.http import HttpRequest

        return HttpRequest(self.http(http), *args, **kwargs)


def _copies(shared: Any, direct: bool = False) -> Callable[[], Any]:
    import google_auth_httplib2  # 0.1 s of httplib2 and pyparsing: when a client is made
    from googleapiclient.http import build_http

    from toolspecs.loaders.google.authorized_http import SerialAuthorizedHttp

    if not isinstance(shared, google_auth_httplib2.AuthorizedHttp):
        # Credentials of another kind (oauth2client's) authorized it themselves: shared.
        return lambda: shared
    credentials = shared.credentials
    renewing = threading.Lock()

    def make() -> Any:
        http = build_http()
        if direct:
            http.proxy_info = None  # httplib2's documented "no proxy"
        return SerialAuthorizedHttp(credentials, http, renewing)

    return make
