"""Whose stored results: a long result belongs to the caller that made it.

One spec may serve several agents at once, so each owner has its own store and no agent
reads another's results, by id or by search. A tool list is one owner; a host names a
better one (an MCP session, a user) in the call's context or with :func:`results_owner`;
outside any call the spec's own store is used. A store lives as long as its owner.

In a shared store (Redis) an owner is named by a key in every key of its results:
random (128 bits) by default, so nothing outside this process can name it; a host with
replicas names it from the signed-in user and session, never from what an agent sends.
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


_KEYS: weakref.WeakKeyDictionary[object, str] = weakref.WeakKeyDictionary()
_KEYS_LOCK = threading.Lock()


def owner_key(owner: object) -> str:
    """The name of ``owner``'s results in a shared store: the key given, else a random one."""
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
            results go when it is garbage collected (in Redis, when they expire).
        key: Names ``owner`` in a shared store, the same in every process that serves
            it; without one, its results are reachable only through this process.
    """
    name_owner(owner, key)
    token = context.enter(replace(context.current(), owner=owner))
    try:
        yield
    finally:
        context.leave(token)


def name_owner(owner: object, key: str | None) -> None:
    """Check that ``owner`` can own results (weakly referenced), and name it ``key``."""
    weakref.ref(owner)  # TypeError now, not at the first stored result
    if key is not None:
        if not key:
            raise ValueError("results_owner: key must not be empty")
        with _KEYS_LOCK:
            _KEYS[owner] = key
