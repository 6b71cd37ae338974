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

# A spec, one of our tools, or any iterable of them (e.g. spec.to_tool_list(prefix="x_")).
Tools: TypeAlias = ToolSpec | GuardedTool | Iterable[ToolSpec | GuardedTool]


def guarded_tools(source: Tools) -> list[GuardedTool]:
    """The tools ``source`` stands for, in order: a spec's ``to_tool_list()``, or the tools given.

    Args:
        source: A spec, one of our tools, or an iterable of specs and tools.

    Returns:
        Our guarded tools.

    Raises:
        ConfigurationError: When an item is not ours, or two tools share a name (give
            one spec a prefix: ``spec.to_tool_list(prefix="gmail_")``).
    """
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
    """Import a host library, or say which extra installs it.

    Args:
        module: The module to import, e.g. ``"langchain_core.tools"``.
        extra: The toolspecs-core extra that installs it, e.g. ``"langchain"``.

    Raises:
        ImportError: Naming the ``pip install`` command.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f'{module} is not installed: pip install "toolspecs-core[{extra}]"'
        ) from exc


def json_beyond_limits(exc: ValueError | RecursionError) -> tuple[str, str]:
    """Why JSON arguments that are well formed could not be read, and what to send instead.

    ``json.loads`` refuses two things that are valid JSON: an integer longer than Python
    converts (4,300 digits by default: ``ValueError``), and arrays or objects nested past
    its recursion limit (``RecursionError``). Both must reach the model as guidance for
    that one call, never as an exception into the host's loop.

    Args:
        exc: What ``json.loads`` raised (not a ``json.JSONDecodeError``: the text was JSON).

    Returns:
        The problem, worded to follow "The arguments of <tool> ", and the next step.
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
