"""The spec base class: functions declared with ``@tool`` become guarded tools.

Every tool costs tokens in every request, so the default set (``spec_functions``) is
lean; ``more_functions`` are offered on request and ``all_functions`` is both. Guards get
a :class:`~toolspecs.core.calls.CallPolicy` from the spec, never the spec itself.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, ClassVar

from llama_index.core.schema import Document
from llama_index.core.tools.function_tool import FunctionTool
from llama_index.core.tools.tool_spec.base import SPEC_FUNCTION_TYPE, BaseToolSpec
from llama_index.core.tools.types import ToolMetadata, ToolOutput

from toolspecs.core import bounds, clock, deadline, large_output, owners, schema
from toolspecs.core.calls import CallPolicy
from toolspecs.core.context import ToolNames
from toolspecs.core.declare import (
    ToolOptions,
    declare,
    function_name,
    inherited_options,
    options_of,
    tool,
    undecorated,
)
from toolspecs.core.errors import ConfigurationError, FixArguments, ToolGuidance
from toolspecs.core.failures import DEFAULT_FAILURES, FailureTable
from toolspecs.core.memory_store import MemoryStore
from toolspecs.core.policy import Marks
from toolspecs.core.prefixed import offered
from toolspecs.core.prompts import TaskPrompt
from toolspecs.core.store import OutputBudget, ResultBackend, StoredResult, StoredResults
from toolspecs.core.tool import Guard, GuardedTool, names_used_twice

__all__ = ["ToolSpec"]

_CREATING = threading.Lock()


class ToolSpec(BaseToolSpec):
    """Base class of toolspecs specs: a ``BaseToolSpec`` whose tools are guarded."""

    spec_functions: list[SPEC_FUNCTION_TYPE] = []  # noqa: RUF012  (BaseToolSpec's own annotation)
    more_functions: ClassVar[list[str]] = []
    all_functions: ClassVar[list[SPEC_FUNCTION_TYPE]] = []
    service_name: ClassVar[str] = "The service"
    output_budget: ClassVar[OutputBudget] = OutputBudget()
    # The reader's mark on every passage (Gmail: "quoted mail"): fences do not survive
    # cutting the text up. Empty: passages passage_source() names are marked third-party.
    passage_label: ClassVar[str] = ""
    # Searches the stored results of all large-output functions. A name no other spec
    # uses (read_stored_emails) forces no prefix when two specs are served together.
    reader_name: ClassVar[str] = "read_stored_result"
    timezone: str | dt.tzinfo | None = None
    failures: ClassVar[FailureTable] = DEFAULT_FAILURES
    # Offer tools marked destructive / tools that change things beyond the user's account.
    allow_destructive: bool = True
    allow_send: bool = True
    # Common tasks a person picks in a client (MCP prompts/list).
    prompts: ClassVar[tuple[TaskPrompt, ...]] = ()
    # Ask the person before a destructive call where the host can (MCP elicitation).
    confirm_destructive: bool = True
    # False: the client must not be used from two threads at once, so calls take turns.
    thread_safe: ClassVar[bool] = True
    # Seconds a call may take, retries and waits included (None: no deadline).
    call_deadline: float | None = deadline.DEFAULT_SECONDS
    # Where long results are kept: None, in this process; a RedisStore shares them
    # between processes. Set it before to_tool_list().
    result_store: ResultBackend | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Check the spec's declarations when the class is defined."""
        super().__init_subclass__(**kwargs)
        check_spec_class(cls)

    @property
    def results(self) -> StoredResults:
        """Where the running call's owner (a tool list, an MCP session) keeps long results."""
        return self.results_of(owners.current_owner())

    def results_of(self, owner: object | None) -> StoredResults:
        """Where ``owner`` keeps long results (``None``: the spec's own)."""
        backend = self.result_store
        if backend is None:
            backend = self.__dict__.get("_toolspecs_memory")
            if backend is None:
                with _CREATING:  # two first calls in two threads must share one store
                    backend = self.__dict__.setdefault("_toolspecs_memory", MemoryStore())
        return backend.results(
            self if owner is None else owner, self.results_scope(), self.output_budget
        )

    def results_scope(self) -> str:
        """Names this spec's stored results in a shared store: its class, and its account."""
        cls = type(self)
        return f"{cls.__module__}.{cls.__qualname__}:{self.default_prefix}"

    @property
    def call_lock(self) -> threading.RLock:
        """Held during each call of a spec that is not ``thread_safe``."""
        lock: threading.RLock | None = self.__dict__.get("_toolspecs_call_lock")
        if lock is None:
            with _CREATING:
                lock = self.__dict__.setdefault("_toolspecs_call_lock", threading.RLock())
        return lock

    def spec_timezone(self) -> dt.tzinfo:
        """The timezone naive and relative times are read in (``timezone``, else the default)."""
        return clock.timezone_setting(self.timezone)

    def zone_for_call(self, arguments: Mapping[str, Any]) -> dt.tzinfo:
        """The zone of one call's times when it names none (default ``spec_timezone()``)."""
        return self.spec_timezone()

    def known_zone_for_call(self, arguments: Mapping[str, Any]) -> dt.tzinfo | None:
        """``zone_for_call`` when it needs no request, else ``None`` (default: it never does).

        A spec whose zone may take a request (a calendar's) overrides it, so that checking
        the arguments never reaches the network.
        """
        return self.zone_for_call(arguments)

    def passage_source(self, document: Document) -> str:
        """Who wrote one stored document, for the header of its passages (default: none).

        A named source (``"message 18c… from ada@example.com"``) is a third party: its
        passages are marked as quoted text, not instructions, and cannot forge the header.
        """
        return ""

    def failure_context(self) -> dict[str, Any]:
        """More values for the templates of ``failures`` (e.g. where valid ids come from)."""
        return {}

    def call_policy(self) -> CallPolicy:
        """What the guards of this spec's tools need of it (they never hold the spec)."""
        return CallPolicy(
            service=self.service_name,
            deadline=lambda: self.call_deadline,  # an instance may change it later
            lock=None if self.thread_safe else self.call_lock,
            budget=lambda: self.output_budget,
            guidance=self.guidance_for,
            results=self.results_of,
            source=self.passage_source,
            before=self.before_call,
            confirm=self.confirmation_for,
        )

    def confirmation_for(self, function: str, arguments: Mapping[str, Any]) -> str | None:
        """:meth:`confirmation`, or ``None`` (do not ask) when ``confirm_destructive`` is off."""
        return self.confirmation(function, arguments) if self.confirm_destructive else None

    def confirmation(self, function: str, arguments: Mapping[str, Any]) -> str | None:
        """The question a person answers before ``function`` runs with ``arguments``.

        Specs say what will happen (Gmail: the draft's recipients); a failure here is mapped
        to guidance like the call's own. ``None``: these arguments destroy nothing.
        """
        shown = ", ".join(f"{name}={bounds.shown(value)}" for name, value in arguments.items())
        return bounds.clip(f"Allow {self.service_name} to {function}({shown})?", 500)

    def before_call(self, function: str) -> None:
        """Runs before each call's function, under its lock and deadline; may raise guidance.

        A spec refuses a call here before it reaches its service (a token lacking a scope).
        """

    def guidance_for(self, exc: BaseException) -> ToolGuidance | None:
        """Turn an expected failure into guidance by ``failures``; ``None`` means it is a bug."""
        return self.failures.guidance(exc, self.service_name, self.failure_context())

    @property
    def default_prefix(self) -> str:
        """The tool-name prefix when none is asked for (none; Google's ``work_`` account)."""
        return ""

    def offers_tool(self, function: str) -> bool:
        """Whether the agent has tool ``function`` (always, outside a tool call)."""
        return offered(function)

    def offers(self, marks: Marks) -> bool:
        """Whether this spec offers a tool with ``marks``, by its options' filters."""
        return marks.allowed(allow_destructive=self.allow_destructive, allow_send=self.allow_send)

    def marks_of(self, function: str, declared: Marks) -> Marks:
        """The marks of ``function`` on this instance (default: ``declared``, as ``@tool`` set).

        A tool that does more when an option is on says so here: Calendar's ``update_event``
        is destructive only with ``allow_destructive``.
        """
        return declared

    def _marks(self, function: str) -> Marks:
        return self.marks_of(function, options_of(getattr(self, function)).marks)

    @tool(read_only=True, open_world=False)
    def get_date(self) -> str:
        """Get the current date, weekday, time and timezone with its UTC offset.

        Use it to work out dates such as 'tomorrow' or 'next Friday'.
        """
        return clock.describe_now(self.spec_timezone())

    def argument_docs(self, function: str) -> Mapping[str, str | None]:
        """This instance's own text for arguments of ``function`` (default: the docstring's).

        A string replaces the argument's ``Args:`` line; ``None`` leaves an optional
        argument out of the schema (a call that sends it is still read).
        """
        return {}

    def arguments_model(self, name: str) -> type[schema.ToolArguments]:
        """The argument model of the spec function ``name``, as direct calls read it."""
        fn = getattr(self, name)
        raw = undecorated(fn)
        return self._model(name, getattr(raw, "__func__", raw), options_of(fn).aliases)

    def get_metadata_from_fn_name(
        self, fn_name: str, spec_functions: list[SPEC_FUNCTION_TYPE] | None = None
    ) -> ToolMetadata:
        """The composed prompt of a spec function, with its argument model as ``fn_schema``."""
        fn = getattr(self, fn_name)
        description = schema.describe(schema.parse_docstring(fn.__doc__))
        return ToolMetadata(
            name=fn_name, description=description, fn_schema=self.arguments_model(fn_name)
        )

    def to_tool_list(
        self,
        spec_functions: list[SPEC_FUNCTION_TYPE] | None = None,
        func_to_metadata_mapping: dict[str, ToolMetadata] | None = None,
        prefix: str | None = None,
    ) -> list[FunctionTool]:
        """The spec's functions as guarded tools, those its options allow, then the reader.

        Args:
            spec_functions: Which functions to expose (any of ``all_functions``); default
                ``spec_functions``.
            func_to_metadata_mapping: Metadata to use instead of the composed prompt.
            prefix: Put before every tool name (``"gmail_"``) when two specs share names;
                mentions in descriptions follow. Default :attr:`default_prefix`.
        """
        return self.build_tools(spec_functions, func_to_metadata_mapping, prefix)

    def build_tools(
        self,
        spec_functions: list[SPEC_FUNCTION_TYPE] | None = None,
        func_to_metadata_mapping: dict[str, ToolMetadata] | None = None,
        prefix: str | None = None,
    ) -> list[FunctionTool]:
        """:meth:`to_tool_list` without what a subclass adds (Google asks for scopes there)."""
        if prefix is None:
            prefix = self.default_prefix
        mapping = func_to_metadata_mapping or {}
        entries: list[tuple[str, Callable[..., Any]]] = []
        paired: dict[str, Callable[..., Any]] = {}
        stored: list[str] = []
        declared = {function_name(entry) for entry in self.all_functions}
        for entry in spec_functions or self.spec_functions:
            name = function_name(entry)
            if name not in declared and not callable(getattr(self, name, None)):
                raise ConfigurationError(
                    f"{type(self).__name__} has no function {name!r}; its functions: "
                    + ", ".join(sorted(declared))
                )
            fn = getattr(self, name)
            if not isinstance(entry, str):  # LlamaHub's (sync, async) pair
                paired[name] = undecorated(getattr(self, entry[1]))
            if not self.offers(self._marks(name)):
                continue
            entries.append((name, fn))
            if options_of(fn).large_output:
                stored.append(name)
        if stored:
            public = [f"{prefix}{function}" for function in stored]
            read = stored_reader(
                self.reader_name,
                lambda: self.results,
                public,
                self.passage_label,
                blocking=self.result_store is not None and self.result_store.blocking,
            )
            entries.append((self.reader_name, read))
        names = [name for name, _ in entries]
        twice = names_used_twice(names)
        if twice:
            raise ConfigurationError(
                f"{type(self).__name__}: two tools are named {', '.join(map(repr, twice))}"
            )
        tool_names = ToolNames(prefix, frozenset(names))
        owner = owners.ToolListOwner()  # the results this list's tools store are its own
        policy = self.call_policy()
        return [
            self._guarded_tool(
                name, fn, mapping.get(name), tool_names, paired.get(name), owner, policy
            )
            for name, fn in entries
        ]

    def call_tool(self, name: str, **kwargs: Any) -> ToolOutput:
        """Call one tool by name as an agent would: ``call_tool("arxiv_query", query="x")``.

        Opt-in ``more_functions`` can be called too. ``KeyError`` for no such tool names
        the option that offers one the options leave out.
        """
        prefix = self.default_prefix
        if prefix and not name.startswith(prefix):  # its own name works without it
            name = f"{prefix}{name}"
        found = self._offered_tools().get(name)
        if found is None:
            needed = self.withheld(name)
            if needed:
                turn_on = ", ".join(f"{option}=True" for option in needed)
                raise KeyError(
                    f"{name!r} is left out by the spec's options; build "
                    f"{type(self).__name__} with {turn_on} to offer it"
                )
            raise KeyError(name)
        return found.call(**kwargs)

    def withheld(self, name: str) -> tuple[str, ...]:
        """The options that would offer tool ``name`` (empty: offered, or no such tool)."""
        reader_needs: list[tuple[str, ...]] = []
        for entry in self._callable_functions():
            function = function_name(entry)
            options = options_of(getattr(self, function))
            if name != function and not (options.large_output and name == self.reader_name):
                continue
            marks = self._marks(function)
            if self.offers(marks):
                return ()
            needs: tuple[str, ...] = marks.needs(
                allow_destructive=self.allow_destructive, allow_send=self.allow_send
            )
            if name == function:
                return needs
            reader_needs.append(needs)  # the reader comes with any one of its functions
        return min(reader_needs, key=len, default=())

    def _offered_tools(self) -> dict[str, FunctionTool]:
        # Rebuilt when the functions, their offering or argument texts change; the tools
        # read everything else (timezone, client, deadline) from the spec when called.
        callable_functions = self._callable_functions()
        state = []
        for entry in callable_functions:
            names = (entry,) if isinstance(entry, str) else tuple(entry)
            bound = [getattr(self, n) for n in names]
            functions = tuple(getattr(fn, "__func__", fn) for fn in bound)
            marks = self._marks(names[0])
            offered = (marks, self.offers(marks))
            docs = tuple(sorted((n, tuple(sorted(self.argument_docs(n).items()))) for n in names))
            state.append((names, functions, offered, docs))
        key = tuple(state)
        cached: tuple[Any, dict[str, FunctionTool]] | None
        cached = self.__dict__.get("_toolspecs_tools")
        if cached is None or cached[0] != key:
            tools = self.build_tools(callable_functions)
            cached = (key, {t.metadata.get_name(): t for t in tools})
            self.__dict__["_toolspecs_tools"] = cached
        return cached[1]

    def _callable_functions(self) -> list[SPEC_FUNCTION_TYPE]:
        listed = list(self.spec_functions)
        names = {function_name(entry) for entry in listed}
        return [*listed, *(name for name in self.more_functions if name not in names)]

    def _model(
        self,
        name: str,
        fn: Callable[..., Any],
        aliases: Mapping[str, str],
        names: ToolNames | None = None,
    ) -> type[schema.ToolArguments]:
        names = names or ToolNames()
        cache: dict[tuple[Any, ...], type[schema.ToolArguments]]
        cache = self.__dict__.setdefault("_toolspecs_models", {})
        # By code, not by function object: each to_tool_list() makes new reader closures.
        func = getattr(fn, "__func__", fn)
        code = getattr(func, "__code__", func)
        docs = dict(self.argument_docs(name))
        key = (code, name, names if names.prefix else None, tuple(sorted(docs.items())))
        if key not in cache:
            cache[key] = schema.build_model(
                names.ref(name),
                fn,
                aliases,
                zone=self.zone_for_call,
                rename=names.definition,
                docs=docs,
                known_zone=self.known_zone_for_call,
            )
        return cache[key]

    def _guarded_tool(
        self,
        name: str,
        fn: Callable[..., Any],
        metadata: ToolMetadata | None,
        names: ToolNames,
        afn: Callable[..., Any] | None = None,
        owner: object | None = None,
        policy: CallPolicy | None = None,
    ) -> GuardedTool:
        public = names.ref(name)
        raw = undecorated(fn)
        model = self._model(name, raw, options_of(fn).aliases, names)
        if metadata is None:
            description = schema.describe(schema.parse_docstring(fn.__doc__))
            metadata = ToolMetadata(
                name=public, description=names.definition(description), fn_schema=model
            )
        options = options_of(fn)
        if name != self.reader_name:  # this instance's marks (see marks_of)
            options = replace(options, marks=self.marks_of(name, options.marks))
        # Only a list that offers the reader may send the agent to it (see Guard.text).
        read_tool = names.ref(self.reader_name) if names.offers(self.reader_name) else ""
        policy = policy or self.call_policy()
        guard = Guard(policy, public, raw, options, model, names, read_tool, afn, owner)
        return GuardedTool(guard, metadata, self)


def check_spec_class(cls: type[Any]) -> None:
    """Check a spec class's declarations (one error naming every fault); set ``all_functions``."""
    errors: list[str] = []
    tool_names: list[str] = []
    stores = False
    default = [function_name(entry) for entry in cls.spec_functions]
    cls.all_functions = [
        *cls.spec_functions,
        *(name for name in cls.more_functions if name not in default),
    ]
    for entry in cls.all_functions:
        name = function_name(entry)
        listed = "spec_functions" if name in default else "more_functions"
        fn = getattr(cls, name, None)
        if not callable(fn):
            errors.append(f"{name} is listed in {listed} but is not a method")
            continue
        if not hasattr(fn, "__toolspecs_options__"):
            inherited = inherited_options(cls, name)
            if inherited is not None:
                # An override without @tool keeps the declaration it overrides:
                # its marks, aliases and large-output reader.
                fn = declare(fn, inherited)
                setattr(cls, name, fn)
            else:
                errors.extend(f"{name}: {e}" for e in schema.declaration_errors(fn, {}))
        errors.extend(f"{name}: {e}" for e in getattr(fn, "__toolspecs_errors__", ()))
        tool_names.append(name)
        stores = stores or options_of(fn).large_output
    if stores:
        tool_names.append(cls.reader_name)
    errors.extend(f"two tools are named {name!r}" for name in names_used_twice(tool_names))
    if errors:
        raise ConfigurationError(f"{cls.__name__}: {'; '.join(errors)}")


def stored_reader(
    name: str,
    results: Callable[[], StoredResults],
    functions: list[str],
    label: str = "",
    *,
    blocking: bool = False,
) -> Callable[..., large_output.PassagesRead]:
    """The reader tool's function: it searches the stored results of ``functions``.

    ``results`` is asked at each call (the running call's owner's store).
    """

    def reader(query: str, result_id: int | None = None) -> large_output.PassagesRead:
        if not query.strip():
            raise FixArguments("The query is empty.", "Send the words you are looking for.")
        stored = _stored_result(results(), functions, result_id)
        return large_output.read_passages(stored, query, label)

    reader.__name__ = name
    reader.__doc__ = _READER_DOC
    reader.__annotations__ = {
        "query": str,
        "result_id": int | None,
        "return": large_output.PassagesRead,
    }
    options = replace(READER_OPTIONS, blocking=True) if blocking else READER_OPTIONS
    reader.__toolspecs_options__ = options  # type: ignore[attr-defined]
    return reader


_READER_DOC = """Search stored long results; returns the best-matching passages verbatim.

Args:
    query: Words in the passage you want.
    result_id: From the preview; default the latest.
"""
READER_OPTIONS = ToolOptions(
    marks=Marks.of(read_only=True, destructive=None, idempotent=None, open_world=False),
    output=large_output.PassagesRead,
    blocking=False,  # it searches results held in memory (a Redis store's: blocking)
)


def _stored_result(
    store: StoredResults, functions: list[str], result_id: int | None
) -> StoredResult:
    latest: list[StoredResult] = []
    for function in functions:
        try:
            latest.append(store.get(function))
        except FixArguments:
            continue
    if not latest:
        raise FixArguments(
            "There is no stored result to read.",
            f"Call {' or '.join(functions)} first; a result too long to show is stored "
            "and its preview says to read it here.",
        )
    if result_id is None:
        return max(latest, key=lambda stored: stored.result_id)
    owner = store.dropped(result_id)
    if owner in functions:
        return store.get(owner, result_id)  # raises: that result is gone, call it again
    for function in functions:
        try:
            return store.get(function, result_id)
        except FixArguments:
            continue
    known = ", ".join(f"{r.result_id} ({r.function})" for r in latest)
    raise FixArguments(
        f"There is no stored result {result_id}; the latest ones are {known}.",
        "Call again with the result_id a preview gave, or leave result_id out for the latest.",
    )
