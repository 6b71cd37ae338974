"""What one tool call carries besides its arguments: :class:`CallContext`.

A host builds one (whose results the call stores, when it knows: an MCP session, a
signed-in user) and passes it to the tool's guard (``Guard.run``/``Guard.arun``); the
guard completes it (its tool list's names, the deadline's end) and hands it down as an
argument to what it calls itself.

The spec function it then calls has LlamaHub's signature (the agent's arguments, nothing
more), so what the function's own code needs of the call is read from the one context
variable of this module, which the guard sets for the call (:func:`current`):
:func:`toolspecs.core.deadline.remaining`, :func:`toolspecs.core.prefixed.ref`,
``ToolSpec.results``. It is also how an app that hands a tool list to llama-index (which
calls ``tool.call(**arguments)``, with no room for a context) names whose results a
block of calls stores: :func:`toolspecs.core.owners.results_owner` sets its owner.
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
    """The tools of one tool list, and the prefix the agent sees them under.

    Args:
        prefix: Put before every tool name (``"gmail_"``); ``""`` keeps them.
        functions: The spec functions the list offers (unprefixed, its reader
            included); ``None``: no tool list, every function counts as offered.
    """

    prefix: str = ""
    functions: frozenset[str] | None = None

    def ref(self, function: str) -> str:
        """The name the agent calls spec function ``function`` by."""
        return f"{self.prefix}{function}"

    def offers(self, function: str) -> bool:
        """Whether the agent has tool ``function`` (unprefixed) beside the one it called."""
        return self.functions is None or function in self.functions

    def definition(self, text: str) -> str:
        """A description or argument text of ours with the list's tools under their names.

        Only the definitions and templates of our own (docstrings, ``empty``, failure
        rows) go through this, before any value is filled in: what a tool returns, and
        guidance built at the call, are never rewritten.
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
    """One call's caller-side facts, passed down instead of set aside in context variables.

    Args:
        owner: Whose results the call stores and reads (:mod:`toolspecs.core.owners`);
            ``None``: the tool list's (the guard's own), else the spec's.
        end: When the call's deadline falls (``time.monotonic()``); ``None``: none.
        names: The tools of the calling tool list and their prefix, which
            :func:`~toolspecs.core.prefixed.ref`, ``offered`` and ``named`` answer from.
    """

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

# The one context variable: the running call's context, for the code of a spec function
# (its signature is LlamaHub's: the agent's arguments only). Set by the guard per call.
_CURRENT: contextvars.ContextVar[CallContext] = contextvars.ContextVar(
    "toolspecs_call",
    default=_NONE,
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
