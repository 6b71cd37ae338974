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
built. All three answer from the :class:`~toolspecs.core.context.ToolNames` of the tool
list whose tool is running (the call's :class:`~toolspecs.core.context.CallContext`, which
the tool's guard makes current for the call and for mapping its failure). Outside a
tool call (a direct Python call of a spec's method) every name is its own and every tool
counts as offered.

Naming a tool the agent was not given is a bug in our words: under ``TOOLSPECS_STRICT``
(the tests) :func:`ref` raises :class:`NotOffered` for it; otherwise it answers the name.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from toolspecs.core import context
from toolspecs.core.context import ToolNames, mentions
from toolspecs.core.errors import strict

__all__ = ["NotOffered", "named", "names_offered", "naming", "offered", "ref"]


class NotOffered(AssertionError):
    """:func:`ref` of a tool the agent was not given (a bug: ask :func:`offered` first)."""


@contextmanager
def naming(names: ToolNames) -> Iterator[None]:
    """Answer :func:`ref` and :func:`offered` from ``names`` within the block.

    The guard hands each call its tool list's names in the call's
    :class:`~toolspecs.core.context.CallContext`; this is for code that calls a spec's
    methods itself (a test of a reply under a prefix).
    """
    token = context.enter(replace(context.current(), names=names))
    try:
        yield
    finally:
        context.leave(token)


def ref(function: str) -> str:
    """The name the agent calls spec function ``function`` by: ``"gmail_get_message"``.

    Raises:
        NotOffered: Under ``TOOLSPECS_STRICT``, when the agent was not given ``function``
            (the reply would send it to a tool it does not have).
    """
    names = context.current().names
    if not names.offers(function) and strict():
        raise NotOffered(f"ref({function!r}) names a tool the agent was not given")
    return names.ref(function)


def offered(function: str) -> bool:
    """Whether the agent was given spec function ``function`` beside the tool it called.

    For replies and guidance that point to another tool: a tool the agent does not have
    must not be named (opt-in tools, ``--tools``). Outside a tool call every function
    counts as offered.
    """
    return context.current().names.offers(function)


def names_offered(text: str, functions: Iterable[str]) -> bool:
    """Whether the agent has every tool of ``functions`` (a spec's) that our ``text`` names.

    For a template declared once that names siblings (Google's ``ids_hint``): give it
    through :func:`named` when this holds, and words that name no tool when it does not.
    """
    functions = list(functions)
    return not functions or all(offered(m[1]) for m in mentions(functions).finditer(text))


def named(template: str) -> str:
    """Our own template (a failure row, a hint) with the tools under their public names.

    :meth:`ToolNames.definition` of the tool list whose tool is running: for the fixed
    texts a spec declares once and cannot build with :func:`ref` at the call. Apply it
    to the template before any value is filled in: a value (an error's reason, an echoed
    argument) is never renamed.
    """
    return context.current().names.definition(template)
