"""Tool names under a prefix: the definitions are renamed, our own words ask for names.

As pydantic-ai's ``toolsets/prefixed.py``: definitions get the public name; what a tool
returns is never rewritten (a mail saying "call load_data()" reaches the agent as
written). Our own words name a sibling with ``ref("get_message")`` after asking
``offered``; a template declared once goes through :func:`named` before its values are
filled in. Outside a tool call every name is its own and every tool counts as offered.
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
    """Answer :func:`ref` and :func:`offered` from ``names`` within the block (for tests)."""
    token = context.enter(replace(context.current(), names=names))
    try:
        yield
    finally:
        context.leave(token)


def ref(function: str) -> str:
    """The name the agent calls spec function ``function`` by: ``"gmail_get_message"``.

    Naming a tool the agent was not given is a bug: under ``TOOLSPECS_STRICT`` it raises
    :class:`NotOffered`.
    """
    names = context.current().names
    if not names.offers(function) and strict():
        raise NotOffered(f"ref({function!r}) names a tool the agent was not given")
    return names.ref(function)


def offered(function: str) -> bool:
    """Whether the agent was given spec function ``function`` beside the tool it called."""
    return context.current().names.offers(function)


def names_offered(text: str, functions: Iterable[str]) -> bool:
    """Whether the agent has every tool of ``functions`` (a spec's) that our ``text`` names."""
    functions = list(functions)
    return not functions or all(offered(m[1]) for m in mentions(functions).finditer(text))


def named(template: str) -> str:
    """Our own template (a failure row, a hint) with the tools under their public names."""
    return context.current().names.definition(template)
