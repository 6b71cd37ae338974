"""toolspecs.core: the framework every toolspecs spec stands on (public API: ``__all__``)."""

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
# After toolspecs.core.tool is loaded: loading it sets the package's attribute ``tool``.
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
