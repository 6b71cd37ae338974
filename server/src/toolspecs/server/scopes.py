"""Which tools an access token may call: one read and one write scope per served spec.

``toolspecs:NAME.read`` (read-only tools) and ``toolspecs:NAME.write`` (all). A call of
a tool the scopes do not allow is guidance naming the scope, not a protocol error, so the
agent can tell the person what to ask for.
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
    """Each served tool's name and the scope it needs, from the tools of each served spec."""
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
