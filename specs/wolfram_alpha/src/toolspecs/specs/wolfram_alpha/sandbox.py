"""The Wolfram|Alpha sandbox: the spec over ``FakeWolframAlpha`` on 127.0.0.1, with an AppID.

The fake gives recorded answers and exact arithmetic, and takes one AppID
(:data:`APP_ID`), as Wolfram checks a key; a
:class:`~toolspecs.loaders.wolfram_alpha.testing.WolframAlphaServer` serves both APIs on
a free port of 127.0.0.1, in this process (a daemon thread), gzip-compressed as Wolfram
sends. The spec is built as a user builds it: ``app_id=`` and ``base_url=``. The LLM API
goes out with requests and the Full Results API with httpx, as a user's call does;
nothing leaves this machine (no proxy of the environment in between:
:func:`~toolspecs.base.net.testing.direct_to_loopback`).

**One server per process (and per latency), shared by every spec built.** Wolfram|Alpha
is read only: nothing a spec does changes what the fake answers, so a new server per
build would only add threads and sockets. The server is started by the first build and
lives as long as the process (a daemon thread). A test that looks at the fake's
requests, or makes it fail, starts a server of its own::

    with sandbox.start() as wolfram:
        spec = WolframAlphaToolSpec(**sandbox.connect(wolfram))
        wolfram.fake.requests  # what the spec sent

Registered under the entry point group ``toolspecs.sandboxes`` (see
:mod:`toolspecs.core.registry`), as a third-party spec would register its own:
``toolspecs call --sandbox wolfram_alpha.FUNCTION`` and
``toolspecs.server.sandbox_spec("wolfram_alpha")`` build the spec with :func:`arguments`.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from toolspecs.base.net.testing import direct_to_loopback
from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha, WolframAlphaServer

__all__ = ["APP_ID", "arguments", "connect", "shared_server", "start"]

APP_ID = "sandbox"
"""The one AppID the sandbox's fake takes."""

_SHARED: dict[tuple[int, float], WolframAlphaServer] = {}  # (process, latency) -> its server
_STARTING = threading.Lock()


def start(latency: float = 0.0) -> WolframAlphaServer:
    """A new server of a new ``FakeWolframAlpha`` taking :data:`APP_ID`, started.

    Stop it, or use ``with``.

    Args:
        latency: Seconds the fake waits before answering each request.
    """
    direct_to_loopback()
    fake = FakeWolframAlpha(app_ids={APP_ID}, latency=latency)
    server = WolframAlphaServer(fake, gzip=True)
    server.start()
    return server


def shared_server(latency: float = 0.0) -> WolframAlphaServer:
    """This process's server for ``latency``, started by the first call (see the module)."""
    key = (os.getpid(), latency)  # a forked child has no thread serving its parent's
    with _STARTING:
        server = _SHARED.get(key)
        if server is None:
            server = _SHARED[key] = start(latency)
        return server


def connect(server: WolframAlphaServer) -> dict[str, Any]:
    """Constructor arguments reaching ``server``: ``app_id`` and ``base_url``."""
    return {"app_id": APP_ID, "base_url": server.url}


def arguments(latency: float = 0.0) -> dict[str, Any]:
    """The constructor arguments of the Wolfram|Alpha sandbox, on :func:`shared_server`.

    Args:
        latency: Seconds the fake waits before answering each request.
    """
    return connect(shared_server(latency))
