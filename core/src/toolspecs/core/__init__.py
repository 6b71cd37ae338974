"""toolspecs.core: the framework every toolspecs spec stands on.

Public API (everything else is an implementation detail):

- :class:`ToolSpec` and :func:`tool`: a ``BaseToolSpec`` whose tools are guarded.
- :class:`ToolGuidance` and its kinds (:class:`FixArguments`, :class:`RetryLater`,
  :class:`AskUser`), :class:`ToolspecsError`, :class:`ConfigurationError`,
  :class:`Failure`, :class:`FailureTable`, :func:`guidance_for_failure`: failures of a
  spec's client mapped to guidance in one table.
- :class:`Synonyms`, :class:`Range`: annotations that tune input coercion.
- :class:`OutputBudget`, :func:`count_tokens`: the large-output policy.
- :func:`list_specs`, :func:`load_spec`: the entry-point registry.
- :class:`TTLCache`: a small cache for calls an agent repeats.
- :func:`format_datetime`, :func:`parse_datetime`: time as the user lives it.
"""

from toolspecs.core.cache import TTLCache
from toolspecs.core.clock import format_datetime, parse_datetime, resolve_timezone
from toolspecs.core.errors import (
    AskUser,
    ConfigurationError,
    FixArguments,
    RetryLater,
    ToolGuidance,
    ToolspecsError,
)
from toolspecs.core.failures import Failure, FailureTable, guidance_for_failure
from toolspecs.core.inputs import Range, Synonyms
from toolspecs.core.large_output import OutputBudget, count_tokens
from toolspecs.core.registry import list_specs, load_spec
from toolspecs.core.spec import ToolSpec, tool

__all__ = [
    "AskUser",
    "ConfigurationError",
    "Failure",
    "FailureTable",
    "FixArguments",
    "OutputBudget",
    "Range",
    "RetryLater",
    "Synonyms",
    "TTLCache",
    "ToolGuidance",
    "ToolSpec",
    "ToolspecsError",
    "count_tokens",
    "format_datetime",
    "guidance_for_failure",
    "list_specs",
    "load_spec",
    "parse_datetime",
    "resolve_timezone",
    "tool",
]
