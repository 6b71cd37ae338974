"""Specs and their sandboxes, found through entry points; built-ins register like any other.

Group ``toolspecs.specs`` names spec classes; group ``toolspecs.sandboxes`` names, under
the spec's name, a function returning the constructor arguments that put the spec on a
seeded fake (no keys, no network), called with ``latency=SECONDS`` when one is asked for.
The core lists no spec: what is installed is what the entry points say.
"""

from __future__ import annotations

import inspect
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from toolspecs.core.errors import ConfigurationError
from toolspecs.core.spec import ToolSpec

GROUP = "toolspecs.specs"
SANDBOX_GROUP = "toolspecs.sandboxes"


def _entry_points(group: str = GROUP) -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=group)}


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "_")


def list_specs() -> list[str]:
    """The names of the installed specs, sorted."""
    return sorted(_entry_points())


def spec_class(name: str) -> type[ToolSpec]:
    """The class registered under ``name`` (``ConfigurationError`` when none is)."""
    found = _entry_points().get(_key(name))
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
    """Build the spec registered under ``name`` with ``kwargs`` (credentials, options)."""
    cls = spec_class(name)
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ConfigurationError(f"cannot build spec {name!r}: {exc}") from exc


def list_sandboxes() -> tuple[str, ...]:
    """The names of the installed specs that register a sandbox, sorted."""
    return tuple(sorted(_entry_points(SANDBOX_GROUP)))


def sandbox_arguments(name: str, latency: float = 0.0) -> dict[str, Any]:
    """The constructor arguments that put spec ``name`` on a seeded fake.

    ``latency``: seconds the fake waits before answering each request (0: at once).
    """
    if not latency >= 0:  # NaN too
        raise ConfigurationError(f"a sandbox latency is 0 seconds or more, not {latency!r}")
    key = _key(name)
    found = _entry_points(SANDBOX_GROUP).get(key)
    if found is None:
        known = ", ".join(list_sandboxes()) or "none"
        raise ConfigurationError(f"spec {name!r} has no sandbox; sandboxes: {known}")
    try:
        build = found.load()
        if not callable(build):
            raise ConfigurationError(
                f"sandbox {key!r} ({found.value}) is not a function that returns "
                "constructor arguments"
            )
        if not latency:
            arguments = build()
        elif not _takes_latency(build):
            raise ConfigurationError(
                f"the {key} sandbox ({found.value}) takes no latency: it answers at once"
            )
        else:
            arguments = build(latency=latency)
    except ImportError as exc:
        package = found.dist.name if found.dist is not None else found.value
        raise ConfigurationError(
            f"the {key} sandbox needs its package: pip install {package} ({exc})"
        ) from exc
    if not isinstance(arguments, dict):
        raise ConfigurationError(
            f"sandbox {key!r} ({found.value}) returned {type(arguments).__name__}, "
            "not a dict of constructor arguments"
        )
    return arguments


def _takes_latency(build: Any) -> bool:
    try:
        parameters = inspect.signature(build).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        p.kind is p.VAR_KEYWORD or (p.name == "latency" and p.kind is not p.POSITIONAL_ONLY)
        for p in parameters
    )


def sandbox_spec(name: str, *, latency: float = 0.0, **options: Any) -> ToolSpec:
    """Spec ``name`` over its seeded fake (no keys, no network), with more ``options``."""
    return load_spec(name, **{**options, **sandbox_arguments(name, latency)})
