"""What the Google sandboxes share: a seeded fake Google on 127.0.0.1, reached as Google is.

The Calendar and Gmail sandboxes (``toolspecs call --sandbox``, ``toolspecs serve
--sandbox``, ``sandbox_spec``) each start a
:class:`~toolspecs.loaders.google.testing.FakeGoogleServer` holding their sample data, in
this process (a daemon thread, a free port of 127.0.0.1), and build the spec as a user
who signed in does: google-auth ``Credentials`` (an access token the server takes for an
hour, a refresh token it renews at its token endpoint) and ``client_options`` naming the
server. Every call then goes through google-auth, ``AuthorizedHttp``, googleapiclient (its
batch code too) and httplib2, as a user's does; nothing leaves this machine
(:func:`~toolspecs.base.net.testing.direct_to_loopback`: no proxy of the environment
in between).

**One server per spec built, stopped when the spec is gone.** A sandbox's mailbox and
calendar change as the spec works (drafts, labels, events), and what one sandbox changes
another must not see, so each build gets its own server with its own seeded fakes. The
spec holds its ``client_options`` (a ``ClientOptions``, kept as given) as long as it
lives; when that object is garbage-collected, the server stops (``weakref.finalize``, in
a thread of its own, so the collection never waits for it). A process that builds
sandboxes many times (the tests, ``serve --sandbox`` building each session's or each
user's specs) holds one server per spec alive, not one per spec ever built. The
credentials are not what the server's lifetime follows: ``serve --sandbox
--google-sign-in`` (or ``--google-delegate``) gives each user's specs that user's own
credentials, from another Google, which the server takes
(:attr:`~toolspecs.loaders.google.testing.FakeGoogleServer.other_tokens`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any

from toolspecs.base.net.testing import direct_to_loopback
from toolspecs.loaders.google.testing import FakeCalendar, FakeGmail, FakeGoogleServer

__all__ = ["connect", "owned_by_spec", "serve"]


def serve(calendar: FakeCalendar | None = None, gmail: FakeGmail | None = None) -> FakeGoogleServer:
    """A new fake Google serving ``calendar`` and ``gmail``, started.

    It takes the tokens of another Google too (a sign-in elsewhere; see the module), and
    this machine is reached without a proxy. Stop it (``server.stop()``, or ``with``), or
    hand it to :func:`owned_by_spec`.
    """
    direct_to_loopback()
    server = FakeGoogleServer(calendar=calendar, gmail=gmail)
    server.other_tokens = True
    return server.start()


def connect(server: FakeGoogleServer, user: str, scopes: Sequence[str]) -> dict[str, Any]:
    """Constructor arguments that reach ``server`` as ``user``, who consented to ``scopes``.

    Returns:
        ``creds`` (google-auth ``Credentials``: see
        :meth:`~toolspecs.loaders.google.testing.FakeGoogleServer.user_credentials`) and
        ``client_options`` (a ``ClientOptions`` naming the server).
    """
    from google.api_core.client_options import ClientOptions

    return {
        "creds": server.user_credentials(user, scopes),
        "client_options": ClientOptions(api_endpoint=server.url),
    }


def owned_by_spec(server: FakeGoogleServer, user: str, scopes: Sequence[str]) -> dict[str, Any]:
    """:func:`connect`'s arguments, the server stopping once a spec built with them is gone.

    The server stops when its ``client_options`` object is garbage-collected: with the
    spec built from these arguments (or with the arguments, if no spec is built).
    """
    arguments = connect(server, user, scopes)
    stop = weakref.finalize(arguments["client_options"], _stop_soon, server)
    stop.atexit = False  # the daemon thread ends with the process
    return arguments


def _stop_soon(server: FakeGoogleServer) -> None:
    # Called by the garbage collector, in whatever thread collects: stopping waits for the
    # server's loop (up to half a second), so another thread waits for it.
    threading.Thread(target=server.stop, name="fake-google-stop", daemon=True).start()
