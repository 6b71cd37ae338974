"""Sandboxes: each installed spec over its shipped fake, seeded with realistic data.

``toolspecs serve --sandbox NAME ...`` serves these, so anyone can connect an MCP client
with no keys and no network; the README and notebooks build them the same way::

    from toolspecs.server.sandbox import sandbox_spec

    calendar = sandbox_spec("google_calendar", timezone="Europe/Paris")

Each spec registers its own sandbox through the entry point group
``toolspecs.sandboxes``, as a third-party spec would (:mod:`toolspecs.core.registry`);
the fakes live in the loader packages and are served on 127.0.0.1 in this process, so a
sandbox spec is built as a user builds it (credentials and ``client_options``,
``base_url``, ``app_id``) and its calls go through the same HTTP clients. What one server
changes, another does not see. ``SANDBOXES`` names the installed ones.
"""

from __future__ import annotations

from typing import Any

from toolspecs.core.registry import list_sandboxes as _list_sandboxes
from toolspecs.core.registry import sandbox_arguments, sandbox_spec

# SANDBOXES comes from __getattr__ below.
__all__ = ["SANDBOXES", "sandbox_arguments", "sandbox_spec"]  # noqa: F822


def __getattr__(name: str) -> Any:
    # SANDBOXES is read from the installed metadata when it is first asked for, not when
    # toolspecs.server is imported.
    if name == "SANDBOXES":
        return _list_sandboxes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "SANDBOXES"})
