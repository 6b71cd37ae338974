"""The tools a spec offers, read from the spec: no test lists a spec's tool set by hand.

A spec names its tools in one place, its class: ``spec_functions`` (the default set, what
``to_tool_list()`` hands a host) and ``more_functions`` (offered on request). The reviewed
snapshot ``tests/snapshots/<spec>.json`` pins both: the default set's names and every
tool's schema (``tests/test_schemas.py``, rewritten by ``TOOLSPECS_UPDATE_SNAPSHOTS=1``).
A test that needs "what a host is offered" or "every tool" reads it here, so adding a
tool changes its spec, its snapshot and its own tests, and no test that merely lists
tools. A test that calls one tool by name still names it.
Imported as ``toolsets`` (tests/ is on the path of every test).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolspecs.core import ToolSpec, load_spec


def names(tools: Iterable[Any]) -> list[str]:
    """The names of ``tools`` (llama-index tools, or MCP's listed tools), in order."""
    return [getattr(t, "metadata", t).name for t in tools]


def by_name(tools: Iterable[Any]) -> dict[str, Any]:
    """``tools`` (of ``to_tool_list()``) by their names."""
    return {t.metadata.name: t for t in tools}


def _spec(spec: str | ToolSpec) -> ToolSpec:
    return load_spec(spec) if isinstance(spec, str) else spec


def offered(*specs: str | ToolSpec) -> list[str]:
    """What ``to_tool_list()`` gives, spec after spec: each default set, then its reader.

    A spec named by its registered name is built with no arguments (``load_spec``), as
    ``toolspecs serve NAME`` builds it; a spec given as an object is asked as it is.
    """
    return [name for spec in specs for name in names(_spec(spec).to_tool_list())]


def every_tool(spec: str | ToolSpec) -> list[str]:
    """Every tool of ``spec``: the default set, the opt-in ones, then its reader.

    Those the spec's options leave out (``allow_destructive``, ``allow_send``) are left out
    here too: pass a spec built with them to have them.
    """
    built = _spec(spec)
    return names(built.to_tool_list(spec_functions=built.all_functions))
