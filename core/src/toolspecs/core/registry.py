"""Specs found through entry points (group ``toolspecs.specs``), built-ins included.

A package registers a spec in its ``pyproject.toml``::

    [project.entry-points."toolspecs.specs"]
    arxiv = "toolspecs.specs.arxiv:ArxivToolSpec"

Each spec takes its credentials from its arguments first, then from the
environment variables its README documents.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points
from typing import Any

from toolspecs.core.errors import ConfigurationError
from toolspecs.core.spec import ToolSpec

GROUP = "toolspecs.specs"


def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def list_specs() -> list[str]:
    """The names of the installed specs, sorted."""
    return sorted(_entry_points())


def spec_class(name: str) -> type[ToolSpec]:
    """The class registered under ``name``.

    Raises:
        ConfigurationError: When no installed spec has that name, or it is not a ToolSpec.
    """
    found = _entry_points().get(name.strip().lower().replace("-", "_"))
    if found is None:
        known = ", ".join(list_specs()) or "none"
        raise ConfigurationError(f"no spec named {name!r}; installed specs: {known}")
    try:
        cls = found.load()
    except ImportError as exc:
        raise ConfigurationError(
            f"spec {name!r} is registered but cannot be imported ({exc}); reinstall its package"
        ) from exc
    if not (isinstance(cls, type) and issubclass(cls, ToolSpec)):
        raise ConfigurationError(f"entry point {name!r} is not a toolspecs ToolSpec: {found.value}")
    return cls


def load_spec(name: str, **kwargs: Any) -> ToolSpec:
    """Build the spec registered under ``name`` with ``kwargs`` (credentials, options).

    Raises:
        ConfigurationError: When the spec is unknown or its constructor rejects the arguments.
    """
    cls = spec_class(name)
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ConfigurationError(f"cannot build spec {name!r}: {exc}") from exc
