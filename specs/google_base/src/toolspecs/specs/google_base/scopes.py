"""The Google scopes each tool needs, declared beside its ``@tool``: policy as data.

A Google spec class whose tool declares none is refused (``needs_scopes()`` with no
scope for a tool that never calls Google).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from toolspecs.core.declare import function_name
from toolspecs.core.errors import ConfigurationError

F = TypeVar("F", bound=Callable[..., Any])
_ATTRIBUTE = "__toolspecs_google_scopes__"


def needs_scopes(*scopes: str) -> Callable[[F], F]:
    """Declare the Google scopes (full URLs) a spec function needs, above or below ``@tool``."""
    for scope in scopes:
        if not scope.startswith("https://"):
            raise ConfigurationError(f"needs_scopes: {scope!r} is not a Google scope URL")

    def mark(fn: F) -> F:
        setattr(fn, _ATTRIBUTE, tuple(dict.fromkeys(scopes)))
        return fn

    return mark


def declared_scopes(cls: type, function: str) -> tuple[str, ...] | None:
    """The scopes ``function`` of ``cls`` declared (inherited by an override), or ``None``."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(function)
        if found is None:
            continue
        declared = getattr(found, _ATTRIBUTE, None)
        if isinstance(declared, tuple):
            return declared
    return None


def undeclared(cls: type, base: type) -> list[str]:
    """The tools of ``cls`` defined under ``base`` that declare no scopes (not the core's)."""
    missing = []
    for entry in getattr(cls, "all_functions", []):
        name = function_name(entry)
        owner = next((k for k in cls.__mro__ if name in k.__dict__), None)
        if owner is None or not issubclass(owner, base):
            continue
        if declared_scopes(cls, name) is None:
            missing.append(name)
    return missing
