"""Hosting many users on ``toolspecs serve``: plug-ins found through entry points.

A hosting (entry point ``toolspecs.hosting``) adds its flags to ``serve`` and gives the
server each user's tools: it knows its specs' types, the server knows none.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from toolspecs.cli.assemble import ServeSettings
    from toolspecs.core.spec import ToolSpec
    from toolspecs.core.tool import GuardedTool
    from toolspecs.server.signin_app import SignInProvider
    from toolspecs.server.user_tools import UserTools

__all__ = ["GROUP", "Hosted", "Hosting", "Serving", "host_users", "hostings", "missing_hosting"]

GROUP = "toolspecs.hosting"

# The hostings this repository publishes: the flags each adds, and what installs it.
PUBLISHED = {
    "google": ("--google-", 'the Google hosting: pip install "toolspecs-google-base[server]"')
}


@dataclass(frozen=True)
class Serving:
    """What ``toolspecs serve`` serves, as a hosting reads it.

    ``names`` are the served tools' (every user's have these); ``build`` makes one user's
    tools: new specs, built as ``serve`` built the served ones, handed first to the function
    given (which makes them act for the user).
    """

    specs: Mapping[str, ToolSpec]
    names: Sequence[str]
    store: str | None
    build: Callable[[Callable[[Mapping[str, ToolSpec]], None]], list[GuardedTool]]


@dataclass(frozen=True)
class Hosted:
    """What a hosting gives the server when its flags are given.

    ``sign_in``: when the server is its clients' authorization server, the provider, made
    once the URL is known; ``public_url``: the https origin behind a proxy; ``serving_line``:
    the line printed once serving, from the URL and the line the server would print.
    """

    user_tools: UserTools
    sign_in: Callable[[str], SignInProvider] | None = None
    public_url: str | None = None
    serving_line: Callable[[str, str], str] | None = None


@runtime_checkable
class Hosting(Protocol):
    """A way of serving many users, which a package adds to ``toolspecs serve``."""

    def add_arguments(self, serve: argparse.ArgumentParser) -> None:
        """Add its flags to ``toolspecs serve`` (argument groups; standard library only)."""
        ...

    def user_claims(self, args: argparse.Namespace) -> Sequence[str]:
        """The access-token claims it reads (``--auth-issuer``); none without its flags."""
        ...

    def hosted(self, args: argparse.Namespace, serving: Serving) -> Hosted | None:
        """What it gives the server; ``None`` without its flags (ConfigurationError: bad flags)."""
        ...


def hostings() -> dict[str, Hosting]:
    """The installed hostings, by entry-point name, sorted."""
    found: dict[str, Hosting] = {}
    for point in sorted(entry_points(group=GROUP), key=lambda point: point.name):
        found[point.name] = point.load()()
    return found


def missing_hosting(unknown: Sequence[str], installed: Mapping[str, Hosting]) -> str | None:
    """What to install for a flag of a published hosting that is not installed; else ``None``."""
    for flag in unknown:
        for name, (prefix, install) in PUBLISHED.items():
            if name not in installed and flag.startswith(prefix):
                return f"{flag.split('=')[0]} needs {install}"
    return None


def host_users(
    args: argparse.Namespace,
    settings: ServeSettings,
    specs: Mapping[str, ToolSpec],
    names: Sequence[str],
) -> Hosted | None:
    """What the hosting whose flags were given brings to ``serve``; ``None`` without one."""
    from toolspecs.cli.assemble import build_specs, served_tools
    from toolspecs.core.errors import ConfigurationError

    def build(act: Callable[[Mapping[str, ToolSpec]], None]) -> list[GuardedTool]:
        own = build_specs(settings)  # new instances (and, with --sandbox, new fakes)
        act(own)
        return served_tools(own, settings.prefixes)

    serving = Serving(specs, names, settings.store, build)
    given = {name: hosting.hosted(args, serving) for name, hosting in args.hostings.items()}
    chosen = [name for name, hosted in given.items() if hosted is not None]
    if len(chosen) > 1:
        raise ConfigurationError(f"give the flags of one hosting, not of {' and '.join(chosen)}")
    return given[chosen[0]] if chosen else None
