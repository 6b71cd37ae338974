"""The Gmail sandbox: the spec over ``FakeGmail``.

The fake holds the shipped sample mails and two long reports.

Registered under the entry point group ``toolspecs.sandboxes`` (see
:mod:`toolspecs.core.registry`), as a third-party spec would register its own:
``toolspecs call --sandbox gmail.FUNCTION`` and ``toolspecs.mcp.sandbox_spec("gmail")``
build the spec with :func:`arguments`.
"""

from __future__ import annotations

from typing import Any

from toolspecs.loaders.google.testing import sample_mailbox

__all__ = ["arguments"]


def arguments(latency: float = 0.0) -> dict[str, Any]:
    """The constructor arguments of the Gmail sandbox, over a new fake.

    Args:
        latency: Seconds the fake waits before answering each request.
    """
    return {"transport": sample_mailbox(long_messages=2, latency=latency)}
