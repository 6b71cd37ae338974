"""Whose stored results: a long result belongs to the caller that made it.

A spec keeps results too long to show (:class:`toolspecs.core.memory_store.ResultStore`)
for its reader tool. One spec instance may serve several agents at once: the tool lists of
two agents in one Python app, the sessions of one MCP server. Each has its own store, so
no agent reads another's results, by id or by search:

- **A tool list** (one ``to_tool_list()`` call) is one owner: the results its tools store
  are read by its own reader tool only. Two agents built from two ``to_tool_list()`` calls
  of one spec are kept apart; ``spec.call_tool`` keeps one list of its own.
- **A host** that knows better names the owner in the call's
  :class:`~toolspecs.core.context.CallContext` (the MCP server does, per client session,
  over the tool list it serves), or around its calls with :func:`results_owner` (an app
  that shares one tool list between its users, per user: llama-index calls the tools).
- Outside any tool call (a spec's methods called directly, as LlamaHub's tests do) the
  spec's own store is used, as before.

A store lives as long as its owner: when a session or a tool list is gone (garbage
collected), so are its results. Result ids count from 1 within each owner: an id means
nothing to another owner, so there is nothing to guess.

**Across processes** (a Redis store, ``ToolSpec.result_store``) an owner is named by a
key, part of every key its results are stored under (:func:`owner_key`): by default a
random one per owner object, so nothing outside this process can name it; a host whose
users reach several replicas names it itself, ``results_owner(session, key=...)``
(from the signed-in user and their session, never from what an agent sends).
"""

from __future__ import annotations

import secrets
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from toolspecs.core import context

__all__ = ["ToolListOwner", "current_owner", "name_owner", "owner_key", "results_owner"]


class ToolListOwner:
    """The owner of the results stored through one ``to_tool_list()``'s tools."""

    __slots__ = ("__weakref__",)


def current_owner() -> object | None:
    """Whose results the running call stores and reads (``None``: the spec's own)."""
    return context.current().owner


# Each owner's key in a shared store; random unless a host named it.
_KEYS: weakref.WeakKeyDictionary[object, str] = weakref.WeakKeyDictionary()
_KEYS_LOCK = threading.Lock()


def owner_key(owner: object) -> str:
    """The name of ``owner``'s results in a shared store (Redis).

    The key given to :func:`results_owner`, else a random one (128 bits) made on first
    use and kept as long as the owner lives.
    """
    with _KEYS_LOCK:
        key = _KEYS.get(owner)
        if key is None:
            key = _KEYS[owner] = secrets.token_urlsafe(16)
        return key


@contextmanager
def results_owner(owner: object, key: str | None = None) -> Iterator[None]:
    """Within the block, tool calls store and read the results of ``owner``.

    Args:
        owner: Any object that can be weakly referenced (a session, a user object); its
            results are dropped when it is garbage collected (in memory; in Redis, when
            they expire).
        key: Names ``owner`` in a shared store (Redis), the same in every process that
            serves it, e.g. the signed-in user's id and their session's. Without one,
            its results are reachable only through this process.

    Raises:
        TypeError: When ``owner`` cannot be weakly referenced (a str or an int): wrap it
            in an object of your own that lives as long as the user's session.
    """
    name_owner(owner, key)
    token = context.enter(replace(context.current(), owner=owner))
    try:
        yield
    finally:
        context.leave(token)


def name_owner(owner: object, key: str | None) -> None:
    """Check that ``owner`` can own results, and name it ``key`` in a shared store.

    For a host that passes ``owner`` in a call's
    :class:`~toolspecs.core.context.CallContext`; :func:`results_owner` does the same.

    Raises:
        TypeError: As :func:`results_owner`.
    """
    weakref.ref(owner)  # TypeError now, not at the first stored result
    if key is not None:
        if not key:
            raise ValueError("results_owner: key must not be empty")
        with _KEYS_LOCK:
            _KEYS[owner] = key
