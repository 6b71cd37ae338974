"""Which tools an access token may call: one read and one write scope per served spec.

Behind an authorization server (:mod:`toolspecs.server.oauth`), each spec served gives two
scopes, named after the spec as ``toolspecs serve`` names it:

- ``toolspecs:NAME.read``: the spec's read-only tools (``readOnlyHint``: search, read a
  draft, a stored result);
- ``toolspecs:NAME.write``: every tool of the spec, the ones that change data (create a
  draft, send, create an event) and the read-only ones.

``toolspecs serve --http gmail google_calendar@work`` understands ``toolspecs:gmail.read``,
``toolspecs:gmail.write``, ``toolspecs:google_calendar@work.read`` and
``toolspecs:google_calendar@work.write``, and publishes them as ``scopes_supported`` in its
Protected Resource Metadata; the organisation's authorization server decides who gets
which. ``tools/list`` shows a user only the tools their token's scopes allow, and a call
of another tool returns guidance naming the scope it needs (not a protocol error: the
agent can tell the person what to ask for).

The static bearer token (:mod:`toolspecs.server.auth`) and stdio have no scopes: every
served tool is callable, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from toolspecs.core.tool import GuardedTool

__all__ = ["PREFIX", "permits", "refusal", "scope_of", "tool_scopes"]

PREFIX = "toolspecs:"


def scope_of(spec: str, tool: GuardedTool) -> str:
    """The scope a call of ``tool`` of spec ``spec`` needs (its ``.read`` or ``.write``)."""
    kind = "read" if tool.marks.annotations()["readOnlyHint"] else "write"
    return f"{PREFIX}{spec}.{kind}"


def tool_scopes(tools_by_spec: Mapping[str, Sequence[GuardedTool]]) -> dict[str, str]:
    """Each served tool's name and the scope it needs.

    Args:
        tools_by_spec: The served tools of each spec, by the spec's served name
            (``gmail``, ``google_calendar@work``).
    """
    return {
        tool.metadata.get_name(): scope_of(spec, tool)
        for spec, tools in tools_by_spec.items()
        for tool in tools
    }


def supported(tools_by_spec: Mapping[str, Sequence[GuardedTool]]) -> list[str]:
    """Every scope of the served specs (for ``scopes_supported``), read before write."""
    return [f"{PREFIX}{spec}.{kind}" for spec in tools_by_spec for kind in ("read", "write")]


def permits(granted: Iterable[str], needed: str) -> bool:
    """Whether scopes ``granted`` allow a call that needs ``needed`` (write covers read)."""
    have = set(granted)
    return needed in have or (
        needed.endswith(".read") and needed.removesuffix(".read") + ".write" in have
    )


def refusal(tool: str, needed: str) -> str:
    """The guidance of a call the token's scopes do not allow: what is needed, what to do."""
    return (
        f"Your access does not include the tool {tool!r}: it needs the scope {needed!r}, "
        "which your access token does not carry. Do not retry; ask the person to have "
        "that scope granted by their organisation's sign-in, sign in again, and call it then."
    )
