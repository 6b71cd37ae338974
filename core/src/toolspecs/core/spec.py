"""The spec base class: functions become guarded llama-index tools.

A spec lists its ``spec_functions`` as LlamaHub specs do; ``to_tool_list()`` returns
ordinary ``FunctionTool`` objects whose call:

1. binds and renames arguments (declared aliases, ``camelCase``, positional),
2. reports unknown, missing and unreadable arguments before the function runs,
3. coerces every value through :mod:`toolspecs.core.inputs`,
4. turns ``ToolGuidance`` and expected failures into text with ``is_error=True``,
5. stores results over the spec's budget and adds a ``read_<function>`` tool.

Our own bugs are not hidden: with ``TOOLSPECS_STRICT=1`` (the test suite sets it)
an unexpected exception propagates; otherwise the agent is told the tool failed.
"""

from __future__ import annotations

import datetime as dt
import functools
import inspect
import logging
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from llama_index.core.base.llms.types import TextBlock
from llama_index.core.schema import BaseNode
from llama_index.core.tools.function_tool import FunctionTool
from llama_index.core.tools.tool_spec.base import SPEC_FUNCTION_TYPE, BaseToolSpec
from llama_index.core.tools.types import ToolMetadata, ToolOutput

from toolspecs.core import clock, inputs, large_output, schema
from toolspecs.core.errors import AskUser, FixArguments, ToolGuidance
from toolspecs.core.failures import DEFAULT_FAILURES, FailureTable

logger = logging.getLogger("toolspecs")

STRICT_ENV = "TOOLSPECS_STRICT"

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class ToolOptions:
    """How a spec function is exposed; set with :func:`tool`."""

    aliases: Mapping[str, str] = field(default_factory=dict)
    large_output: bool = False
    empty: str | None = None


def tool(
    *,
    aliases: Mapping[str, str] | None = None,
    large_output: bool = False,
    empty: str | None = None,
) -> Callable[[F], F]:
    """Declare how a spec function is exposed as a tool.

    Args:
        aliases: Other names the agent may use for an argument, e.g. ``{"q": "query"}``.
        large_output: Whether results over the budget are stored and get a
            ``read_<function>`` tool (otherwise they are cut short with a note).
        empty: What the agent reads when the function returns nothing (an empty
            list or text), formatted with the call's arguments, e.g.
            ``"No papers match {query!r}. Try broader keywords."``. Direct Python
            callers still get the empty value.

    Returns:
        A decorator. Called directly from Python, the function coerces its arguments
        as the tool does (``spec.create_event(start_datetime="2026-11-21T16:00")``
        gets a datetime), and raises ``FixArguments`` for values it cannot read.
    """
    options = ToolOptions(aliases=dict(aliases or {}), large_output=large_output, empty=empty)

    def mark(fn: F) -> F:
        signature = inspect.signature(fn)
        found: dict[str, Any] = {}

        @functools.wraps(fn)
        def coercing(self: ToolSpec, *args: Any, **kwargs: Any) -> Any:
            if not found:
                found.update(schema.hints(fn))
            bound = signature.bind(self, *args, **kwargs)
            ctx = inputs.Context(zone=self.spec_timezone)
            for name, value in list(bound.arguments.items())[1:]:
                if value is None or name not in found:
                    continue
                try:
                    bound.arguments[name] = inputs.coerce(value, found[name], ctx)
                except inputs.CoercionError as exc:
                    raise FixArguments(f"{fn.__name__}: {name}: {exc}.") from None
            return fn(*bound.args, **bound.kwargs)

        coercing.__toolspecs_options__ = options  # type: ignore[attr-defined]
        return coercing  # type: ignore[return-value]

    return mark


def options_of(fn: Callable[..., Any]) -> ToolOptions:
    """The :class:`ToolOptions` of a function (defaults when it was not decorated)."""
    found = getattr(fn, "__toolspecs_options__", None)
    return found if isinstance(found, ToolOptions) else ToolOptions()


def strict() -> bool:
    """Whether unexpected exceptions propagate (``TOOLSPECS_STRICT=1``) instead of becoming text."""
    return os.environ.get(STRICT_ENV, "").strip().lower() in ("1", "true", "yes")


@dataclass
class _Outcome:
    raw: Any = None
    guidance: ToolGuidance | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)
    prepared: dict[str, Any] = field(default_factory=dict)


class ToolSpec(BaseToolSpec):
    """Base class of toolspecs specs: a ``BaseToolSpec`` whose tools are guarded.

    Subclasses set ``spec_functions`` (as in LlamaHub), ``service_name`` (how the
    agent should call the service in messages) and may override ``output_budget``,
    ``guidance_for`` and ``spec_timezone``.
    """

    spec_functions: list[SPEC_FUNCTION_TYPE] = []  # noqa: RUF012  (BaseToolSpec's own annotation)
    service_name: ClassVar[str] = "The service"
    output_budget: ClassVar[large_output.OutputBudget] = large_output.OutputBudget()
    # Marks every passage a read_<function> tool returns, for specs whose results quote
    # third parties (mail): the fences of the full text do not survive cutting it up.
    passage_label: ClassVar[str] = ""
    timezone: str | dt.tzinfo | None = None
    # What the spec's client raises, mapped to guidance (see toolspecs.core.failures).
    failures: ClassVar[FailureTable] = DEFAULT_FAILURES

    @property
    def results(self) -> large_output.ResultStore:
        """Where this spec keeps results that were too long to show."""
        store = self.__dict__.get("_toolspecs_results")
        if store is None:
            store = large_output.ResultStore(self.output_budget)
            self.__dict__["_toolspecs_results"] = store
        return store

    def spec_timezone(self) -> dt.tzinfo:
        """The timezone naive and relative times are read in (see ``clock.resolve_timezone``)."""
        return clock.resolve_timezone(self.timezone)

    def failure_context(self) -> dict[str, Any]:
        """More values for the templates of ``failures`` (e.g. where valid ids come from)."""
        return {}

    def guidance_for(self, exc: BaseException) -> ToolGuidance | None:
        """Turn an expected failure into guidance by ``failures``; ``None`` means it is a bug."""
        return self.failures.guidance(exc, self.service_name, self.failure_context())

    def get_date(self) -> str:
        """Get the current date, weekday, time and timezone with its UTC offset.

        Use it to work out dates such as 'tomorrow' or 'next Friday'.
        """
        return clock.describe_now(self.spec_timezone())

    # -- tools -------------------------------------------------------------------

    def get_metadata_from_fn_name(
        self, fn_name: str, spec_functions: list[SPEC_FUNCTION_TYPE] | None = None
    ) -> ToolMetadata:
        """The composed prompt of a spec function (see :mod:`toolspecs.core.schema`)."""
        return schema.build_metadata(fn_name, getattr(self, fn_name))

    def to_tool_list(
        self,
        spec_functions: list[SPEC_FUNCTION_TYPE] | None = None,
        func_to_metadata_mapping: dict[str, ToolMetadata] | None = None,
        prefix: str = "",
    ) -> list[FunctionTool]:
        """The spec's functions as guarded ``FunctionTool`` objects.

        A function declared with ``large_output=True`` is followed by its
        ``read_<function>`` tool.

        Args:
            spec_functions: Which functions to expose; defaults to ``spec_functions``.
            func_to_metadata_mapping: Metadata to use instead of the composed prompt.
            prefix: Put before every tool name, e.g. ``"gmail_"`` when two specs in one
                agent share names (Gmail and Calendar both have ``load_data``). Mentions
                of the spec's own tools in descriptions, answers and guidance follow.

        Returns:
            The tools, in the order of ``spec_functions``.
        """
        mapping = func_to_metadata_mapping or {}
        entries: list[tuple[str, Callable[..., Any]]] = []
        for entry in spec_functions or self.spec_functions:
            name = entry if isinstance(entry, str) else entry[0]
            fn = getattr(self, name)
            entries.append((name, fn))
            if options_of(fn).large_output:
                reader = self._make_reader(name, prefix)
                entries.append((reader.__name__, reader))
        renames = Renames({name: f"{prefix}{name}" for name, _ in entries} if prefix else {})
        return [self._guarded_tool(name, fn, mapping.get(name), renames) for name, fn in entries]

    def call_tool(self, name: str, **kwargs: Any) -> ToolOutput:
        """Call one tool by name as an agent would: ``call_tool("arxiv_query", query="x")``.

        Raises:
            KeyError: When the spec has no tool of that name.
        """
        for candidate in self.to_tool_list():
            if candidate.metadata.name == name:
                return candidate.call(**kwargs)
        raise KeyError(name)

    def _make_reader(self, function: str, prefix: str = "") -> Callable[..., str]:
        def reader(query: str, result_id: int | None = None) -> str:
            stored = self.results.get(f"{prefix}{function}", result_id)
            if not query.strip():
                raise FixArguments("The query is empty.", "Send the words you are looking for.")
            return large_output.read_passages(stored, query, self.passage_label)

        reader.__name__ = f"read_{function}"
        summary = f"Search a stored long result of {function}; returns matching passages verbatim."
        reader.__doc__ = f"""{summary}

        Args:
            query: Words likely to appear in the passage you want.
            result_id: Which stored result (default: the latest).
        """
        reader.__annotations__ = {"query": str, "result_id": int | None, "return": str}
        return reader

    def _guarded_tool(
        self,
        name: str,
        fn: Callable[..., Any],
        metadata: ToolMetadata | None,
        renames: Renames | None = None,
    ) -> FunctionTool:
        renames = renames or Renames({})
        public = renames.name(name)
        guard = _Guard(self, public, fn, renames, renames.name(f"read_{name}"))
        if metadata is None:
            metadata = schema.build_metadata(public, fn)
            metadata.description = renames.text(metadata.description)
            model = metadata.fn_schema
            if renames.names and model is not None and issubclass(model, schema.ToolArguments):
                model.toolspecs_schema = renames.within(model.toolspecs_schema)
        return FunctionTool(fn=guard.run, metadata=metadata, callback=guard.shape)


@dataclass(frozen=True)
class Renames:
    """Tool names as the agent sees them when a spec's tools carry a prefix."""

    names: Mapping[str, str]

    def name(self, name: str) -> str:
        """The public name of one tool."""
        return self.names.get(name, name)

    def text(self, text: str) -> str:
        """``text`` with every mention of the spec's tools under its public name."""
        if not self.names or not text:
            return text
        pattern = "|".join(re.escape(n) for n in sorted(self.names, key=len, reverse=True))
        return re.sub(rf"(?<![\w.])({pattern})(?!\w)", lambda m: self.names[m[1]], text)

    def within(self, value: Any) -> Any:
        """A JSON schema with the mentions in its descriptions renamed."""
        if isinstance(value, dict):
            return {
                key: self.text(item) if key == "description" and isinstance(item, str)
                else self.within(item)
                for key, item in value.items()
            }  # fmt: skip
        if isinstance(value, list):
            return [self.within(item) for item in value]
        return value


class _Guard:
    """The call path of one tool: arguments in, text (or guidance) out."""

    def __init__(
        self,
        spec: ToolSpec,
        name: str,
        fn: Callable[..., Any],
        renames: Renames,
        read_tool: str,
    ) -> None:
        self.spec = spec
        self.name = name
        self.renames = renames
        self.read_tool = read_tool
        # Call the undecorated function: the arguments are coerced here already, so the
        # coercion @tool adds for direct Python calls would only do it a second time.
        raw = getattr(getattr(fn, "__func__", None), "__wrapped__", None)
        self.fn = raw.__get__(spec) if raw is not None else fn
        self.options = options_of(fn)
        self.params = schema.parameters(fn)
        self.hints = schema.hints(fn)

    def run(self, *args: Any, **kwargs: Any) -> _Outcome:
        given = dict(kwargs)
        try:
            prepared = self.prepare(args, kwargs)
            return _Outcome(raw=self.fn(**prepared), kwargs=given, prepared=prepared)
        except Exception as exc:
            guidance = self.spec.guidance_for(exc)
            if guidance is None:
                if strict():
                    raise
                logger.exception("toolspecs: %s failed unexpectedly", self.name)
                guidance = AskUser(
                    f"{self.name} failed with an internal error ({type(exc).__name__}). "
                    "This is a fault in the tool, not in your call.",
                    "Do not retry the same call: tell the user the tool failed.",
                )
            return _Outcome(guidance=guidance, kwargs=given)

    def prepare(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """Bind, rename, check and coerce the arguments; raise one guidance listing every fault."""
        names = [p.name for p in self.params]
        problems: list[str] = []
        given: dict[str, Any] = {}
        if len(args) > len(names):
            problems.append(f"{len(args)} positional values given, but it takes {len(names)}")
        given.update(zip(names, args, strict=False))
        required = [p.name for p in self.params if p.default is p.empty]
        for key, value in kwargs.items():
            target = self._resolve(key, names, required)
            if target is None:
                problems.append(f"unknown argument {key!r}")
            elif target in given:
                problems.append(f"{target!r} given twice (as {key!r})")
            else:
                given[target] = value
        ctx = inputs.Context(zone=self.spec.spec_timezone)
        prepared: dict[str, Any] = {}
        for param in self.params:
            value = given.get(param.name)
            if value is None:
                if param.default is param.empty:
                    problems.append(f"missing required argument {param.name!r}")
                else:
                    prepared[param.name] = param.default
                continue
            try:
                prepared[param.name] = inputs.coerce(value, self.hints.get(param.name, Any), ctx)
            except inputs.CoercionError as exc:
                problems.append(f"{param.name}: {exc}")
        if problems:
            listed = ", ".join(
                p.name if p.default is not p.empty else f"{p.name} (required)" for p in self.params
            )
            raise FixArguments(
                f"{self.name} was called wrongly: {'; '.join(problems)}. "
                f"Its arguments are: {listed}."
            )
        return prepared

    def _resolve(self, key: str, names: list[str], required: list[str]) -> str | None:
        if key in names:
            return key
        aliases = self.options.aliases
        if key in aliases:
            return aliases[key]
        snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key.strip()).lower().replace("-", "_")
        if snake in names:
            return snake
        if snake in aliases:
            return aliases[snake]
        if snake == "input" and len(required) == 1:
            return required[0]
        return None

    def shape(self, outcome: _Outcome) -> ToolOutput:
        """The ``ToolOutput`` the agent gets: text within budget, or guidance with ``is_error``."""
        raw_input = {"args": (), "kwargs": outcome.kwargs}
        if outcome.guidance is not None:
            guidance = self.renames.text(outcome.guidance.text)
            return ToolOutput(
                tool_name=self.name,
                content=guidance,
                raw_input=raw_input,
                raw_output=guidance,
                is_error=True,
                exception=outcome.guidance,
            )
        text = self.renames.text(as_text(outcome.raw))
        if not text.strip():
            template = self.options.empty or f"{self.name} returned nothing."
            text = self.renames.text(template.format(**outcome.prepared))
        budget = self.spec.output_budget
        tokens = large_output.count_tokens(text)
        if tokens > budget.max_tokens:
            text = self._over_budget(outcome.raw, text, tokens)
        return ToolOutput(
            tool_name=self.name,
            blocks=[TextBlock(text=text)],
            raw_input=raw_input,
            raw_output=outcome.raw,
        )

    def _over_budget(self, raw: Any, text: str, tokens: int) -> str:
        budget = self.spec.output_budget
        if self.options.large_output:
            try:
                documents = raw if isinstance(raw, list) else text
                stored = self.spec.results.add(self.name, documents)
                return large_output.stored_message(stored, text, self.read_tool)
            except Exception:
                if strict():
                    raise
                logger.exception("toolspecs: could not store the result of %s", self.name)
        return large_output.truncated_message(text, budget, tokens)


def as_text(raw: Any) -> str:
    """What the agent reads of a spec function's return value."""
    if raw is None:
        return ""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, BaseNode):
        return raw.get_content()
    if isinstance(raw, list) and all(isinstance(item, BaseNode) for item in raw):
        return "\n\n".join(item.get_content() for item in raw)
    return str(raw)
