"""Each user's own specs: ``serve --google-sign-in`` and ``serve --google-delegate``.

Both ways give every user new instances of the served specs, built as ``serve`` builds
them, whose Google specs act as that user. The parser imports the modules of both flags,
so this one is imported only when a server is built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolspecs.cli.assemble import ServeSettings, build_specs, served_tools
from toolspecs.core.spec import ToolSpec
from toolspecs.core.tool import GuardedTool

__all__ = ["acting_as", "google_scopes"]


def google_scopes(specs: Mapping[str, ToolSpec]) -> list[str]:
    """The Google scopes the served tools need (least privilege), each once, in order."""
    scopes: list[str] = []
    for spec in specs.values():
        requested = getattr(spec, "requested_scopes", None)
        if callable(requested):
            scopes.extend(requested())
    return list(dict.fromkeys(scopes))


def acting_as(
    settings: ServeSettings, credentials: Callable[[], Any], hint: str
) -> list[GuardedTool]:
    """One user's tools: new specs, the Google ones with ``credentials()`` (asked once).

    Args:
        settings: What ``serve`` was asked for.
        credentials: The user's Google credentials; asked for only if a Google spec is
            served.
        hint: What a refused refresh tells the agent to do.
    """
    own = build_specs(settings)  # new instances (and, with --sandbox, new fakes)
    creds = None
    for spec in own.values():
        if hasattr(spec, "requested_scopes"):
            if creds is None:
                creds = credentials()
            # LlamaHub's attribute: the Google specs read their credentials from it.
            setattr(spec, "creds", creds)  # noqa: B010
            # What a refused refresh tells the agent (sign in again, ask the administrator),
            # not "pass new creds=" (the spec's hint for a Python caller). An instance
            # attribute over GoogleToolSpec.reauthorize_hint, the method its failure table
            # reads.
            setattr(spec, "reauthorize_hint", lambda: hint)  # noqa: B010
    return served_tools(own, settings.prefixes)
