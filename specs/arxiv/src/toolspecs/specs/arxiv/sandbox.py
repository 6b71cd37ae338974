"""The arXiv sandbox: the spec over ``FakeArxiv``.

``FakeArxiv`` answers arXiv's API and PDFs over a catalogue of real entries
(``1706.03762`` is a 30-page paper).

Registered under the entry point group ``toolspecs.sandboxes`` (see
:mod:`toolspecs.core.registry`), as a third-party spec would register its own:
``toolspecs call --sandbox arxiv.FUNCTION`` and ``toolspecs.mcp.sandbox_spec("arxiv")``
build the spec with :func:`arguments`.
"""

from __future__ import annotations

from typing import Any

from toolspecs.loaders.arxiv.testing import FakeArxiv

__all__ = ["arguments"]


def arguments(latency: float = 0.0) -> dict[str, Any]:
    """The constructor arguments of the arXiv sandbox, over a new fake.

    Args:
        latency: Seconds the fake waits before answering each request.
    """
    return {"transport": FakeArxiv(latency=latency).transport()}
