"""What one tool call carries besides its arguments: :class:`CallContext`.

A host passes one to the guard, which completes it and hands it down as an argument.
A spec function has LlamaHub's signature (the agent's arguments only), so its own code
reads the call from the one context variable here, which the guard sets (:func:`current`).
"""

from __future__ import annotations

import contextvars
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["CallContext", "ToolNames", "current", "mentions"]


@dataclass(frozen=True)
class ToolNames:
    """The tools of one tool list (``None``: all offered), and the prefix they are under."""

    prefix: str = ""
    functions: frozenset[str] | None = None

    def ref(self, function: str) -> str:
        """The name the agent calls spec function ``function`` by."""
        return f"{self.prefix}{function}"

    def offers(self, function: str) -> bool:
        """Whether the agent has tool ``function`` (unprefixed) beside the one it called."""
        return self.functions is None or function in self.functions

    def definition(self, text: str) -> str:
        """A definition or template of ours with the list's tools under their names.

        Never what a tool returns, nor values filled in.
        """
        if not self.prefix or not self.functions or not text:
            return text
        return mentions(self.functions).sub(lambda m: self.ref(m[1]), text)


def mentions(functions: Iterable[str]) -> re.Pattern[str]:
    """The names of ``functions`` as words of a text (``load_data``, not ``x.load_data``)."""
    pattern = "|".join(re.escape(n) for n in sorted(functions, key=len, reverse=True))
    return re.compile(rf"(?<![\w.])({pattern})(?!\w)")


@dataclass(frozen=True)
class CallContext:
    """One call's caller-side facts: whose results, the deadline's end, the tools' names."""

    owner: object | None = None
    end: float | None = None
    names: ToolNames = field(default_factory=ToolNames)

    def remaining(self, default: float | None = None) -> float | None:
        """Seconds left before :attr:`end` (never below 0), or ``default`` without one."""
        if self.end is None:
            return default
        return max(0.0, self.end - time.monotonic())

    def ending(self, seconds: float | None) -> float | None:
        """The end of a call of ``seconds`` made within this one: the earlier of the two."""
        if seconds is None:
            return self.end
        end = time.monotonic() + seconds
        return end if self.end is None or end < self.end else self.end


_NONE = CallContext()

_CURRENT: contextvars.ContextVar[CallContext] = contextvars.ContextVar(
    "toolspecs_call", default=_NONE
)


def current() -> CallContext:
    """The context of the running tool call (outside any: an empty one)."""
    return _CURRENT.get()


def enter(context: CallContext) -> contextvars.Token[CallContext]:
    """Make ``context`` the running call's; hand the token to :func:`leave` in a ``finally``."""
    return _CURRENT.set(context)


def leave(token: contextvars.Token[CallContext]) -> None:
    """Undo :func:`enter`."""
    _CURRENT.reset(token)
