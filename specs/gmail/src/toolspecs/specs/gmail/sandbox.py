"""The Gmail sandbox: the spec over a fake Gmail on 127.0.0.1, signed in as a user is.

The fake (``sample_mailbox``) holds the shipped sample mails and two long reports; a
:class:`~toolspecs.loaders.google.testing.FakeGoogleServer` serves it with Google's OAuth
endpoints, in this process. The spec is built as a user builds it: google-auth
``Credentials`` of the mailbox's owner (who consented to reading, composing and labelling
mail) and ``client_options`` naming the server. Each build has a server of its own,
stopped once the spec is gone (see :mod:`toolspecs.specs.google_base.sandbox`).

Registered under the entry point group ``toolspecs.sandboxes`` (see
:mod:`toolspecs.core.registry`), as a third-party spec would register its own:
``toolspecs call --sandbox gmail.FUNCTION`` and ``toolspecs.server.sandbox_spec("gmail")``
build the spec with :func:`arguments`. A test that looks at the mailbox after a call
starts its own server and builds the spec on it::

    with sandbox.start() as google:
        spec = GmailToolSpec(**sandbox.connect(google))
        spec.create_draft(...)
        google.gmail.drafts  # what the call changed
"""

from __future__ import annotations

from typing import Any

from toolspecs.loaders.google.scopes import GMAIL_COMPOSE, GMAIL_MODIFY, GMAIL_READONLY
from toolspecs.loaders.google.testing import FakeGoogleServer, sample_mailbox
from toolspecs.specs.google_base import sandbox as google

__all__ = ["SCOPES", "arguments", "connect", "start"]

SCOPES = (GMAIL_READONLY, GMAIL_COMPOSE, GMAIL_MODIFY)
"""What the sandbox's user consented to: every tool's scopes."""


def start(latency: float = 0.0) -> FakeGoogleServer:
    """A new fake Google serving the sandbox's mailbox, started (stop it, or use ``with``).

    Args:
        latency: Seconds the fake waits before answering each request.
    """
    return google.serve(gmail=sample_mailbox(long_messages=2, latency=latency))


def connect(server: FakeGoogleServer) -> dict[str, Any]:
    """Constructor arguments reaching ``server`` as the mailbox's owner.

    Returns:
        ``creds`` and ``client_options``.
    """
    return google.connect(server, server.gmail.address, SCOPES)


def arguments(latency: float = 0.0) -> dict[str, Any]:
    """The constructor arguments of the Gmail sandbox, over a new server.

    The server stops once the spec built with them is gone.

    Args:
        latency: Seconds the fake waits before answering each request.
    """
    server = start(latency)
    return google.owned_by_spec(server, server.gmail.address, SCOPES)
