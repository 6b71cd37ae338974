"""A stand-in for the person behind an MCP client, for tests of confirmations.

Pass a :class:`ScriptedPerson` as mcp's ``Client(..., elicitation_callback=person)``: the
client then declares form elicitation, and every question the server asks (a destructive
call's confirmation, :mod:`toolspecs.server.confirm`) gets the scripted answer and is kept
in ``person.questions``. It works for both protocol modes: on 2026-07-28 mcp's client
calls it for each ``InputRequiredResult`` and retries the call with the answer.
"""

from __future__ import annotations

from typing import Any, Literal

import anyio
import mcp_types

__all__ = ["ScriptedPerson"]


class ScriptedPerson:
    """Answers every question the same way, and remembers each question.

    Args:
        action: ``"accept"`` (the form was sent), ``"decline"`` or ``"cancel"``.
        confirm: The form's ``confirm`` value when accepted (``None``: no content).
        wait: Seconds to take before answering (a person who does not answer in time).
    """

    def __init__(
        self,
        action: Literal["accept", "decline", "cancel"] = "accept",
        confirm: bool | None = True,
        wait: float = 0,
    ) -> None:
        self.action = action
        self.confirm = confirm
        self.wait = wait
        self.questions: list[str] = []

    async def __call__(self, context: Any, params: Any) -> mcp_types.ElicitResult:
        """Mcp's elicitation callback: record the question, then answer as scripted."""
        self.questions.append(params.message)
        if self.wait:
            await anyio.sleep(self.wait)
        content: dict[str, str | int | float | bool | list[str] | None] | None = (
            None if self.confirm is None else {"confirm": self.confirm}
        )
        return mcp_types.ElicitResult(action=self.action, content=content)
