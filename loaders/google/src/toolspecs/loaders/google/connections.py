"""One HTTP object per thread, so that one client's requests run side by side.

googleapiclient sends with ``httplib2.Http``, which is not thread-safe: two threads that
share one may mix their answers. Its documented way out (the "Thread Safety" page of
google-api-python-client) is to build the service once and give each request an HTTP
object of its own thread, through ``build(requestBuilder=...)``. :class:`ThreadRequests`
is that builder: each request it builds carries its thread's HTTP object, made on the
thread's first request and reused by its later ones (their connections kept alive):

- for a client built with credentials, a ``google_auth_httplib2.AuthorizedHttp`` over
  the ``httplib2.Http`` that ``googleapiclient.http.build_http()`` makes, as
  ``build(credentials=...)`` makes its one (same timeout and redirect codes), with the
  credentials ``build`` settled on (scoped, if they needed scopes);
- for a ``transport=`` factory (a callable that makes an ``httplib2.Http``-like object),
  what it makes; a ``transport=`` object is shared by every thread as it is (the fakes in
  :mod:`toolspecs.loaders.google.testing` are thread-safe).

A batch request (``service.new_batch_http_request()``) sends with its first request's
HTTP object: its thread's too.

A client whose endpoint is this machine (``client_options`` naming 127.0.0.1: a fake
Google, a local proxy) sends without the environment's proxy (``direct=True``):
httplib2 refuses every plain-http connection once ``HTTP_PROXY`` is set and PySocks is
missing, even to a host ``NO_PROXY`` lists, and a proxy of the network could not reach
this machine's servers anyway.

The credentials themselves are shared, and each thread's ``AuthorizedHttp`` holds them as
they are: googleapiclient's batch code takes them from the HTTP object and treats them as
google-auth credentials only if they are (``isinstance``), else as oauth2client's (a
wrapper of ours there made every batch fail for real users). google-auth renews an
expired token inside ``before_request`` with no lock (``Credentials._blocking_refresh``),
so threads that all found it expired would each ask the token server, and one could read
the token while another writes it.
:class:`~toolspecs.loaders.google.authorized_http.SerialAuthorizedHttp` renews it before the
request under one lock per credentials (a thread that waited finds it renewed), and after
a 401 renews it unless another thread did meanwhile. A 401 inside a batch is renewed by
googleapiclient itself (once per batch), with the credentials' own ``refresh``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["PerThreadHttp", "ThreadRequests", "is_http_factory"]


def is_http_factory(transport: Any) -> bool:
    """Whether ``transport`` makes HTTP objects (a callable) rather than being one."""
    return callable(transport) and not hasattr(transport, "request")


class PerThreadHttp:
    """Each thread's own HTTP object, made by ``make`` on the thread's first request.

    Args:
        make: Makes one ``httplib2.Http``-like object (called once per thread).
    """

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
    """A ``requestBuilder`` for ``build()`` whose requests send with their thread's HTTP.

    Args:
        transport: A ``transport=`` factory (one HTTP object per thread from it), or a
            ``transport=`` object (shared by every thread as it is); ``None``: the HTTP
            object ``build`` made from the credentials is copied per thread.
        direct: The endpoint is this machine: the copies use no proxy (see the module).
    """

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
    """Makes the HTTP object of one thread, like ``shared`` (what ``build`` made).

    ``direct``: without the environment's proxy (an endpoint on this machine).
    """
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
