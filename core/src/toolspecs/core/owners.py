"""Whose stored results: a long result belongs to the caller that made it.

A spec keeps results too long to show (:class:`toolspecs.core.large_output.ResultStore`)
for its reader tool. One spec instance may serve several agents at once: the tool lists of
two agents in one Python app, the sessions of one MCP server. Each has its own store, so
no agent reads another's results, by id or by search:

- **A tool list** (one ``to_tool_list()`` call) is one owner: the results its tools store
  are read by its own reader tool only. Two agents built from two ``to_tool_list()`` calls
  of one spec are kept apart; ``spec.call_tool`` keeps one list of its own.
- **A host** that knows better sets the owner around a call with :func:`results_owner`:
  the MCP server does, per client session, over the tool list it serves. An app that
  shares one tool list between its users does the same, per user.
- Outside any tool call (a spec's methods called directly, as LlamaHub's tests do) the
  spec's own store is used, as before.

A store lives as long as its owner: when a session or a tool list is gone (garbage
collected), so are its results. Result ids count from 1 within each owner: an id means
nothing to another owner, so there is nothing to guess.
"""

from __future__ import annotations

import contextvars
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["ToolListOwner", "current_owner", "results_owner"]

_OWNER: contextvars.ContextVar[object | None] = contextvars.ContextVar(
    "toolspecs_results_owner", default=None
)


class ToolListOwner:
    """The owner of the results stored through one ``to_tool_list()``'s tools."""

    __slots__ = ("__weakref__",)


def current_owner() -> object | None:
    """Whose results the running call stores and reads (``None``: the spec's own)."""
    return _OWNER.get()


@contextmanager
def results_owner(owner: object) -> Iterator[None]:
    """Within the block, tool calls store and read the results of ``owner``.

    Args:
        owner: Any object that can be weakly referenced (a session, a user object); its
            results are dropped when it is garbage collected.

    Raises:
        TypeError: When ``owner`` cannot be weakly referenced (a str or an int): wrap it
            in an object of your own that lives as long as the user's session.
    """
    weakref.ref(owner)  # TypeError now, not at the first stored result
    with _owned_by(owner):
        yield


@contextmanager
def default_owner(owner: object | None) -> Iterator[None]:
    """:func:`results_owner` unless a host already set one (the guard's own, per tool list)."""
    if owner is None or _OWNER.get() is not None:
        yield
    else:
        with _owned_by(owner):
            yield


@contextmanager
def _owned_by(owner: object) -> Iterator[None]:
    token = _OWNER.set(owner)
    try:
        yield
    finally:
        _OWNER.reset(token)
