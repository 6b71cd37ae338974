"""Tool names under a prefix: the definitions are renamed, our own words ask for names.

``spec.to_tool_list(prefix="gmail_")`` wraps the spec's tools the way pydantic-ai's
``toolsets/prefixed.py`` does: each definition (name, description, argument texts) gets
the public name, and a call comes in under it. What a tool returns is never rewritten:
a mail body saying "call load_data()" reaches the agent as it was written. Our own text
that points the agent to a sibling tool asks for its name, and whether the agent has it::

    from toolspecs.core.prefixed import offered, ref

    if offered("get_message"):  # opt-in tools and --tools: the agent may not have it
        note = f"Read it with {ref('get_message')}(message_id=...)."  # gmail_get_message

A template declared once (a failure row, a spec's ``ids_hint``) goes through
:func:`named` before its values are filled in; guidance is never renamed after it is
built. All three answer from the :class:`ToolNames` of the tool list whose tool is
running (one context variable, set by the tool's guard for each call and for mapping
its failure). Outside a tool call (a direct Python call of a spec's method) every name
is its own and every tool counts as offered.

Naming a tool the agent was not given is a bug in our words: under ``TOOLSPECS_STRICT``
(the tests) :func:`ref` raises :class:`NotOffered` for it; otherwise it answers the name.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from toolspecs.core.errors import strict

__all__ = ["NotOffered", "ToolNames", "named", "names_offered", "naming", "offered", "ref"]


class NotOffered(AssertionError):
    """:func:`ref` of a tool the agent was not given (a bug: ask :func:`offered` first)."""


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
        return _mentions(self.functions).sub(lambda m: self.ref(m[1]), text)


def _mentions(functions: Iterable[str]) -> re.Pattern[str]:
    """The names of ``functions`` as words of a text (``load_data``, not ``x.load_data``)."""
    pattern = "|".join(re.escape(n) for n in sorted(functions, key=len, reverse=True))
    return re.compile(rf"(?<![\w.])({pattern})(?!\w)")


_NAMES: contextvars.ContextVar[ToolNames] = contextvars.ContextVar(
    "toolspecs_tool_names",
    default=ToolNames(),  # noqa: B039  (frozen: nothing can change the shared default)
)


@contextmanager
def naming(names: ToolNames) -> Iterator[None]:
    """Answer :func:`ref` and :func:`offered` from ``names`` (a tool's guard, for its call)."""
    token = _NAMES.set(names)
    try:
        yield
    finally:
        _NAMES.reset(token)


def enter(names: ToolNames) -> contextvars.Token[ToolNames]:
    """:func:`naming` without a context manager, for the guard's every call.

    About 1 µs less a call (``bench/calls.py``). Hand the token to :func:`leave` in a
    ``finally``.
    """
    return _NAMES.set(names)


def leave(token: contextvars.Token[ToolNames]) -> None:
    """Undo :func:`enter`."""
    _NAMES.reset(token)


def ref(function: str) -> str:
    """The name the agent calls spec function ``function`` by: ``"gmail_get_message"``.

    Raises:
        NotOffered: Under ``TOOLSPECS_STRICT``, when the agent was not given ``function``
            (the reply would send it to a tool it does not have).
    """
    names = _NAMES.get()
    if not names.offers(function) and strict():
        raise NotOffered(f"ref({function!r}) names a tool the agent was not given")
    return names.ref(function)


def offered(function: str) -> bool:
    """Whether the agent was given spec function ``function`` beside the tool it called.

    For replies and guidance that point to another tool: a tool the agent does not have
    must not be named (opt-in tools, ``--tools``). Outside a tool call every function
    counts as offered.
    """
    return _NAMES.get().offers(function)


def names_offered(text: str, functions: Iterable[str]) -> bool:
    """Whether the agent has every tool of ``functions`` (a spec's) that our ``text`` names.

    For a template declared once that names siblings (Google's ``ids_hint``): give it
    through :func:`named` when this holds, and words that name no tool when it does not.
    """
    functions = list(functions)
    return not functions or all(offered(m[1]) for m in _mentions(functions).finditer(text))


def named(template: str) -> str:
    """Our own template (a failure row, a hint) with the tools under their public names.

    :meth:`ToolNames.definition` of the tool list whose tool is running: for the fixed
    texts a spec declares once and cannot build with :func:`ref` at the call. Apply it
    to the template before any value is filled in: a value (an error's reason, an echoed
    argument) is never renamed.
    """
    return _NAMES.get().definition(template)
