"""The Google scopes each tool needs, declared beside the tool: policy as data.

::

    @needs_scopes(GMAIL_COMPOSE, GMAIL_READONLY)
    @tool(destructive=False, open_world=False)
    def create_draft(self, ...): ...

A spec asks Google for the scopes of the tools it offers and no others
(:meth:`GoogleToolSpec.requested_scopes <toolspecs.specs.google_base.GoogleToolSpec>`);
a tool whose scopes the user's token was not granted answers with guidance before any
request. Every tool a Google spec declares must say what it needs (``needs_scopes()``
with none for a tool that never calls Google): the spec class is refused otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from toolspecs.core.declare import function_name
from toolspecs.core.errors import ConfigurationError

__all__ = ["declared_scopes", "needs_scopes", "undeclared"]

F = TypeVar("F", bound=Callable[..., Any])
_ATTRIBUTE = "__toolspecs_google_scopes__"


def needs_scopes(*scopes: str) -> Callable[[F], F]:
    """Declare the Google scopes a spec function needs (above or below ``@tool``).

    Args:
        *scopes: Full scope URLs (``toolspecs.loaders.google.scopes``); none for a tool
            that never calls Google.
    """
    for scope in scopes:
        if not scope.startswith("https://"):
            raise ConfigurationError(f"needs_scopes: {scope!r} is not a Google scope URL")

    def mark(fn: F) -> F:
        setattr(fn, _ATTRIBUTE, tuple(dict.fromkeys(scopes)))
        return fn

    return mark


def declared_scopes(cls: type, function: str) -> tuple[str, ...] | None:
    """The scopes ``function`` of spec class ``cls`` declared (an override inherits them).

    ``None`` when it declared none.
    """
    for klass in cls.__mro__:
        found = klass.__dict__.get(function)
        if found is None:
            continue
        declared = getattr(found, _ATTRIBUTE, None)
        if isinstance(declared, tuple):
            return declared
    return None


def undeclared(cls: type, base: type) -> list[str]:
    """The tools of ``cls`` defined under ``base`` (a Google spec) that declare no scopes.

    A tool that ``base``'s own bases define (the core's ``get_date``) calls no Google API.
    """
    missing = []
    for entry in getattr(cls, "all_functions", []):
        name = function_name(entry)
        owner = next((k for k in cls.__mro__ if name in k.__dict__), None)
        if owner is None or not issubclass(owner, base):
            continue
        if declared_scopes(cls, name) is None:
            missing.append(name)
    return missing
