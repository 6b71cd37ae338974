"""The arXiv sandbox: the spec over ``FakeArxiv`` on 127.0.0.1, reached as arXiv is.

``FakeArxiv`` answers arXiv's API and PDFs over a catalogue of real entries
(``1706.03762`` is a 30-page paper); an
:class:`~toolspecs.loaders.arxiv.testing.ArxivServer` serves it on a free port of
127.0.0.1, in this process (a daemon thread), gzip-compressed as arXiv sends. The spec is
built as a user points it at a mirror: ``base_url=``. Every call goes through the
``arxiv`` package's URL building, our client, requests and urllib3, as a user's does;
nothing leaves this machine (no proxy of the environment in between:
:func:`~toolspecs.base.net.testing.direct_to_loopback`).

**One server per process (and per latency), shared by every spec built.** arXiv is read
only: nothing a spec does changes what the fake answers, so a new server per build would
only add threads and sockets. The server is started by the first build and lives as long
as the process (a daemon thread). A test that looks at the fake's requests, or makes it
fail, starts a server of its own::

    with sandbox.start() as arxiv:
        spec = ArxivToolSpec(**sandbox.connect(arxiv))
        arxiv.fake.requests  # what the spec sent

Registered under the entry point group ``toolspecs.sandboxes`` (see
:mod:`toolspecs.core.registry`), as a third-party spec would register its own:
``toolspecs call --sandbox arxiv.FUNCTION`` and ``toolspecs.server.sandbox_spec("arxiv")``
build the spec with :func:`arguments`.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from toolspecs.base.net.testing import direct_to_loopback
from toolspecs.loaders.arxiv.testing import ArxivServer, FakeArxiv

__all__ = ["arguments", "connect", "shared_server", "start"]

_SHARED: dict[tuple[int, float], ArxivServer] = {}  # (process, latency) -> its server
_STARTING = threading.Lock()


def start(latency: float = 0.0) -> ArxivServer:
    """A new server of a new ``FakeArxiv``, started (stop it, or use ``with``).

    Args:
        latency: Seconds the fake waits before answering each request.
    """
    direct_to_loopback()
    server = ArxivServer(FakeArxiv(latency=latency), gzip=True)
    server.start()
    return server


def shared_server(latency: float = 0.0) -> ArxivServer:
    """This process's server for ``latency``, started by the first call (see the module)."""
    key = (os.getpid(), latency)  # a forked child has no thread serving its parent's
    with _STARTING:
        server = _SHARED.get(key)
        if server is None:
            server = _SHARED[key] = start(latency)
        return server


def connect(server: ArxivServer) -> dict[str, Any]:
    """Constructor arguments reaching ``server``: ``base_url``."""
    return {"base_url": server.url}


def arguments(latency: float = 0.0) -> dict[str, Any]:
    """The constructor arguments of the arXiv sandbox: :func:`shared_server`'s ``base_url``.

    Args:
        latency: Seconds the fake waits before answering each request.
    """
    return connect(shared_server(latency))
