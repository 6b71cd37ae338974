"""What every adapter takes: a spec, several specs, or our tools; and lazy host imports."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable
from types import ModuleType
from typing import TypeAlias

from toolspecs.core.errors import ConfigurationError
from toolspecs.core.spec import ToolSpec
from toolspecs.core.tool import GuardedTool, names_used_twice

Tools: TypeAlias = ToolSpec | GuardedTool | Iterable[ToolSpec | GuardedTool]


def guarded_tools(source: Tools) -> list[GuardedTool]:
    """The tools ``source`` stands for, in order: a spec's ``to_tool_list()``, or those given."""
    items = [source] if isinstance(source, (ToolSpec, GuardedTool)) else list(source)
    tools: list[GuardedTool] = []
    for item in items:
        if isinstance(item, ToolSpec):
            tools.extend(t for t in item.to_tool_list() if isinstance(t, GuardedTool))
        elif isinstance(item, GuardedTool):
            tools.append(item)
        else:
            raise ConfigurationError(
                f"{item!r} is not a toolspecs spec or tool; pass a ToolSpec or its to_tool_list()"
            )
    twice = names_used_twice(t.metadata.get_name() for t in tools)
    if twice:
        raise ConfigurationError(
            f"two tools are named {', '.join(map(repr, twice))}; give one spec a prefix, "
            "e.g. spec.to_tool_list(prefix='gmail_')"
        )
    return tools


def require(module: str, extra: str) -> ModuleType:
    """Import a host library, or raise an ImportError naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f'{module} is not installed: pip install "toolspecs-core[{extra}]"'
        ) from exc


def json_beyond_limits(exc: ValueError | RecursionError) -> tuple[str, str]:
    """Why well-formed JSON arguments could not be read, and what to send instead.

    ``json.loads`` refuses too long an integer (``ValueError``) and too deep a nesting
    (``RecursionError``): guidance for that call, never an exception into the host's loop.
    """
    if isinstance(exc, RecursionError):
        return (
            "are nested too deeply to read (lists or objects inside each other, "
            "thousands of levels deep)",
            "Send one JSON object of named arguments whose values are text, numbers or "
            'short lists, such as {"query": "..."}.',
        )
    limit = sys.get_int_max_str_digits() or 4300
    return (
        f"hold a number too long to read (more than {limit:,} digits)",
        "Send numbers of ordinary size (a count such as 5), or the value as text "
        'in quotes if it is not a count, such as {"query": "..."}.',
    )
