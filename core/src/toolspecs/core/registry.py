"""Specs and their sandboxes, found through entry points; built-ins register like any other.

A package registers a spec in its ``pyproject.toml``::

    [project.entry-points."toolspecs.specs"]
    arxiv = "toolspecs.specs.arxiv:ArxivToolSpec"

Each spec takes its credentials from its arguments first, then from the
environment variables its README documents.

A spec may also register a sandbox (group ``toolspecs.sandboxes``, under the spec's
name): a function that returns the constructor arguments putting the spec on a seeded
fake, with no keys and no network (``toolspecs call --sandbox``,
``toolspecs serve --sandbox``, :func:`sandbox_spec`). The built-in sandboxes serve their
fake on 127.0.0.1, in the process, and return what a user passes to reach a service:
credentials and ``client_options`` (Google), ``base_url`` (arXiv), ``app_id`` and
``base_url`` (Wolfram|Alpha); each sandbox module says how long its server lives::

    [project.entry-points."toolspecs.sandboxes"]
    arxiv = "toolspecs.specs.arxiv.sandbox:arguments"

It is called with no arguments, or with ``latency=SECONDS`` when one is asked for
(``--sandbox-latency 150ms``): the fake then waits that long before answering each
request, as a real service's round trip would. A sandbox that takes no ``latency``
keyword cannot simulate one, and asking it for one is a configuration error.

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
    """The class registered under ``name``.

    Raises:
        ConfigurationError: When no installed spec has that name, or it is not a ToolSpec.
    """
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
    """Build the spec registered under ``name`` with ``kwargs`` (credentials, options).

    Raises:
        ConfigurationError: When the spec is unknown or its constructor rejects the arguments.
    """
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

    What one sandbox changes, another does not see: a sandbox whose service keeps what a
    spec changes (a mailbox, a calendar) seeds a new fake for every call; a read-only one
    (arXiv, Wolfram|Alpha) may serve every spec from one.

    Args:
        name: A spec with a sandbox (:func:`list_sandboxes`).
        latency: Seconds the fake waits before answering each request (its round trip);
            0: it answers at once.

    Returns:
        E.g. ``{"creds": Credentials(...), "client_options": ClientOptions(...)}`` for a
        fake Google on 127.0.0.1; ``{"app_id": ..., "base_url": ...}`` for Wolfram|Alpha.

    Raises:
        ConfigurationError: When the spec has no sandbox or it cannot be imported, or a
            latency is asked of a sandbox that takes none.
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
    """Spec ``name`` (from the registry) over its seeded fake: no keys, no network.

    Args:
        name: A spec with a sandbox (:func:`list_sandboxes`).
        latency: Seconds the fake waits before answering each request, e.g. ``0.15`` for
            what a deployment sees of a real service; 0 (default): at once.
        **options: More constructor arguments, e.g. ``allow_send=False``,
            ``timezone="Europe/Paris"``.

    Returns:
        The spec.

    Raises:
        ConfigurationError: When the spec has no sandbox, is not installed, or rejects
            the options.
    """
    return load_spec(name, **{**options, **sandbox_arguments(name, latency)})
