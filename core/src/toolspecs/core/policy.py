"""Policy marks: what a tool does to the world, as data hosts can filter and show.

Every spec function carries MCP's four tool hints, with MCP's meaning
(``ToolAnnotations`` in the MCP schema):

- ``read_only``: it does not change anything (reads, searches, the date);
- ``destructive``: it may destroy what exists (deleting an event; sending a draft,
  which consumes it and cannot be called back). We mark ``False`` the tools that add
  (creating an event or a draft) and the updates that change only the fields they are
  given, whose old values the agent has just read and can put back (``update_event``,
  ``update_draft``, like a label change): MCP calls such tools non-destructive when
  their updates are "additive", and we read a reversible patch as one. This is the one
  place where our reading is narrower than the most literal one; hosts that want to
  confirm every overwrite can confirm every tool that is not ``read_only``;
- ``idempotent``: calling it again with the same arguments has no further effect;
- ``open_world``: it reaches beyond the user's own account: the public web, or
  other people (arXiv and Wolfram|Alpha queries, sending mail, inviting attendees).

A function declared without marks gets MCP's defaults, which assume the worst
(not read-only, destructive, not idempotent, open world). ``ToolSpec.to_tool_list()``
offers a tool only when the spec's options allow its marks (:meth:`Marks.allowed`).
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
    """The side-effect marks of one tool (MCP's four hints).

    Args:
        read_only: It changes nothing.
        destructive: It may change or remove what exists irreversibly.
        idempotent: Repeating the same call has no further effect.
        open_world: It reaches the public web or other people.
        declared: Whether the spec author set them (``False``: MCP's worst-case defaults).
    """

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
        """Whether a spec with these options offers a tool with these marks.

        Args:
            allow_destructive: Offer tools that may destroy what exists.
            allow_send: Offer tools that change things beyond the user's account
                (send mail, invite people).
        """
        return not self.needs(allow_destructive=allow_destructive, allow_send=allow_send)

    def needs(self, *, allow_destructive: bool = True, allow_send: bool = True) -> tuple[str, ...]:
        """The options a spec must turn on to offer a tool with these marks (none: offered).

        Args:
            allow_destructive: The spec's ``allow_destructive``.
            allow_send: The spec's ``allow_send``.

        Returns:
            Among ``("allow_destructive", "allow_send")``, those that are off and would
            have to be on; :data:`WHY` says why each is needed, in words.
        """
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
