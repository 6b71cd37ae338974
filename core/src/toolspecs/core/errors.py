"""Exceptions of toolspecs, and the text an agent reads when a call goes wrong.

Hierarchy::

    ToolspecsError                 base of everything toolspecs raises
    ├── ToolGuidance               a tool call failed; ``str()`` is text for the agent
    │   ├── FixArguments           change the arguments and call again      (kind "fix")
    │   ├── RetryLater             same call, later: rate limits, timeouts  (kind "retry")
    │   └── AskUser                stop and ask the person: keys, access    (kind "ask_user")
    │       └── SignInNeeded       the person must sign in (again): a host that can show
    │                              them a sign-in page does (the spec's ``sign_in``)
    └── ConfigurationError         a spec cannot be built or found: for the person, not the agent
                                   (also a ``ValueError``)

A failure of a spec's client becomes guidance by its failure table. Guidance is bounded:
at most :data:`GUIDANCE_TOKENS` tokens, ending with the next step.
"""

from __future__ import annotations

import os
from typing import ClassVar, Literal

from toolspecs.core.bounds import clip, count_tokens

GUIDANCE_TOKENS = 300
STRICT_ENV = "TOOLSPECS_STRICT"


def strict() -> bool:
    """Whether unexpected exceptions propagate (``TOOLSPECS_STRICT=1``) instead of becoming text."""
    return os.environ.get(STRICT_ENV, "").strip().lower() in ("1", "true", "yes")


Kind = Literal["fix", "retry", "ask_user"]
# When a call failed: its arguments could not be read (nothing ran), or during the call.
Stage = Literal["arguments", "call"]

_NEXT_STEP: dict[str, str] = {
    "fix": "Fix the arguments and call the tool again.",
    "retry": "Wait a little and try the same call again, or use another tool.",
    "ask_user": "Do not retry: tell the user what is wrong and ask them to fix it.",
}


class ToolspecsError(Exception):
    """Base class of every exception toolspecs raises."""


class ConfigurationError(ToolspecsError, ValueError):
    """A spec cannot be found or built, or is set up wrongly: a message for the person.

    Met during a tool call, it becomes :class:`AskUser` guidance.
    """


class ToolGuidance(ToolspecsError):
    """A tool call that must fail, with text that tells the agent what to do next."""

    kind: ClassVar[Kind] = "fix"
    # "arguments" when the call's arguments could not be read and the function never ran
    # (hosts with a separate channel for that, such as Lagent's ARGS_ERROR, use it).
    stage: Stage = "call"

    def __init__(self, message: str, next_step: str | None = None) -> None:
        step = next_step if next_step is not None else _NEXT_STEP[self.kind]
        self.next_step = clip(step.strip(), GUIDANCE_TOKENS // 3)
        room = GUIDANCE_TOKENS - (count_tokens(self.next_step) + 1 if self.next_step else 0)
        self.message = clip(message.strip(), room)
        super().__init__(self.text)

    @property
    def text(self) -> str:
        """The whole message as the agent reads it."""
        if not self.next_step:
            return self.message
        return f"{self.message} {self.next_step}"

    @property
    def retryable(self) -> bool:
        """Whether the same call may succeed later without any change."""
        return self.kind == "retry"


class FixArguments(ToolGuidance):
    """The arguments were wrong: change them and call again."""

    kind: ClassVar[Kind] = "fix"


class RetryLater(ToolGuidance):
    """A passing failure (rate limit, timeout, server error): the same call may work later."""

    kind: ClassVar[Kind] = "retry"

    def __init__(
        self, message: str, next_step: str | None = None, retry_after: float | None = None
    ) -> None:
        self.retry_after = retry_after
        if next_step is None and retry_after is not None:
            next_step = f"Wait {retry_after:g} seconds and try the same call again."
        super().__init__(message, next_step)


class AskUser(ToolGuidance):
    """Only the person can fix this (a missing key, no access): do not retry."""

    kind: ClassVar[Kind] = "ask_user"


class SignInNeeded(AskUser):
    """The person must sign in to the service (again): no token yet, revoked, a scope short.

    The text says how in words; a host that can show a sign-in page starts one instead.
    """
