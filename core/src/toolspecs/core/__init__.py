"""toolspecs.core: the framework every toolspecs spec stands on.

Public API (everything else is an implementation detail):

- :class:`ToolSpec` and :func:`tool`: a ``BaseToolSpec`` whose tools are guarded;
  :class:`GuardedTool`, the tool every host uses (``fn`` returns the agent's text or
  raises ``ToolGuidance``; ``call`` never raises); :class:`Marks`, its policy marks.
- :class:`ToolGuidance` and its kinds (:class:`FixArguments`, :class:`RetryLater`,
  :class:`AskUser`, :class:`SignInNeeded`), :class:`ToolspecsError`, :class:`ConfigurationError`,
  :class:`Failure`, :class:`FailureTable`, :func:`guidance_for_failure`: failures of a
  spec's client mapped to guidance in one table.
- :class:`Synonyms`, :class:`Range`, :data:`Timezone`: annotations that tune how
  arguments are read.
- :class:`OutputBudget`, :func:`count_tokens`: the large-output policy.
- :func:`ref`: the name the agent calls a sibling tool by (``"gmail_get_message"`` under a
  prefix), for replies and guidance that point to it; what a tool returns is never renamed.
- :func:`list_specs`, :func:`load_spec`: the entry-point registry.
- :func:`format_datetime`, :func:`parse_datetime`: time as the user lives it.
"""

from toolspecs.core.bounds import count_tokens
from toolspecs.core.clock import format_datetime, parse_datetime, resolve_timezone
from toolspecs.core.errors import (
    AskUser,
    ConfigurationError,
    FixArguments,
    RetryLater,
    SignInNeeded,
    ToolGuidance,
    ToolspecsError,
)
from toolspecs.core.failures import Failure, FailureTable, guidance_for_failure
from toolspecs.core.inputs import Range, Synonyms, Timezone
from toolspecs.core.policy import Marks
from toolspecs.core.prefixed import ref
from toolspecs.core.registry import list_specs, load_spec
from toolspecs.core.spec import ToolSpec
from toolspecs.core.store import OutputBudget
from toolspecs.core.tool import GuardedTool

# isort: split
# The decorator, bound once the submodule toolspecs.core.tool is loaded (loading a submodule
# sets the package's attribute of that name to the module).
from toolspecs.core.declare import tool

__all__ = [
    "AskUser",
    "ConfigurationError",
    "Failure",
    "FailureTable",
    "FixArguments",
    "GuardedTool",
    "Marks",
    "OutputBudget",
    "Range",
    "RetryLater",
    "SignInNeeded",
    "Synonyms",
    "Timezone",
    "ToolGuidance",
    "ToolSpec",
    "ToolspecsError",
    "count_tokens",
    "format_datetime",
    "guidance_for_failure",
    "list_specs",
    "load_spec",
    "parse_datetime",
    "ref",
    "resolve_timezone",
    "tool",
]
