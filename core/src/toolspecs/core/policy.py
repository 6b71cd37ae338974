"""Policy marks: what a tool does to the world, as data hosts can filter and show.

Every spec function carries MCP's four tool hints (``ToolAnnotations``), with MCP's
meaning; undeclared, MCP's worst-case defaults. One reading is narrower than the most
literal: an update that changes only the fields given, whose old values the agent has
just read and can put back (``update_event``), is marked non-destructive, as MCP calls
"additive" updates; hosts that confirm every overwrite confirm every non-read-only tool.
"""

from __future__ import annotations

from dataclasses import dataclass

# Why a tool needs each option that :meth:`Marks.needs` names, for people.
WHY: dict[str, str] = {
    "allow_destructive": "it is destructive (it may delete or overwrite what exists)",
    "allow_send": "it reaches beyond the user's account (other people or the web)",
}


@dataclass(frozen=True)
class Marks:
    """The side-effect marks of one tool (MCP's four hints); ``declared``: set by the author."""

    read_only: bool = False
    destructive: bool = True
    idempotent: bool = False
    open_world: bool = True
    declared: bool = False

    @classmethod
    def of(
        cls,
        read_only: bool | None,
        destructive: bool | None,
        idempotent: bool | None,
        open_world: bool | None,
    ) -> Marks:
        """Marks from ``@tool`` keywords; a read-only tool is non-destructive and idempotent."""
        given = (read_only, destructive, idempotent, open_world)
        if all(value is None for value in given):
            return cls()
        reads = bool(read_only)
        if reads and destructive:
            raise ValueError("a tool cannot be both read_only and destructive")
        return cls(
            read_only=reads,
            destructive=(not reads) if destructive is None else destructive,
            idempotent=reads if idempotent is None else idempotent,
            open_world=True if open_world is None else open_world,
            declared=True,
        )

    def allowed(self, *, allow_destructive: bool = True, allow_send: bool = True) -> bool:
        """Whether a spec with these options offers a tool with these marks."""
        return not self.needs(allow_destructive=allow_destructive, allow_send=allow_send)

    def needs(self, *, allow_destructive: bool = True, allow_send: bool = True) -> tuple[str, ...]:
        """The options a spec must turn on to offer a tool with these marks (none: offered)."""
        if self.read_only:
            return ()
        needed: list[str] = []
        if self.destructive and not allow_destructive:
            needed.append("allow_destructive")
        if self.open_world and not allow_send:
            needed.append("allow_send")
        return tuple(needed)

    def annotations(self) -> dict[str, bool]:
        """MCP's ``ToolAnnotations`` hints: ``readOnlyHint``, ``destructiveHint``, ..."""
        return {
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }

    def describe(self) -> str:
        """A short phrase for people: ``read-only, open world``."""
        if self.read_only:
            words = ["read-only"]
        else:
            words = ["changes data"]
            words.append("destructive" if self.destructive else "not destructive")
            if self.idempotent:
                words.append("idempotent")
        words.append("open world" if self.open_world else "closed world")
        return ", ".join(words)
