"""The Wolfram|Alpha sandbox: the spec over ``FakeWolframAlpha``.

The fake gives recorded answers and exact arithmetic.

Registered under the entry point group ``toolspecs.sandboxes`` (see
:mod:`toolspecs.core.registry`), as a third-party spec would register its own:
``toolspecs call --sandbox wolfram_alpha.FUNCTION`` and
``toolspecs.mcp.sandbox_spec("wolfram_alpha")`` build the spec with :func:`arguments`.
"""

from __future__ import annotations

from typing import Any

from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha

__all__ = ["arguments"]


def arguments(latency: float = 0.0) -> dict[str, Any]:
    """The constructor arguments of the Wolfram|Alpha sandbox, over a new fake.

    Args:
        latency: Seconds the fake waits before answering each request.
    """
    return {"app_id": "sandbox", "transport": FakeWolframAlpha(latency=latency).transport()}
