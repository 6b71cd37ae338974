"""The guarded tool: one honest object that every host can use.

Every way in follows one path: ``fn``/``async_fn`` return the agent's text or raise
``ToolGuidance``; ``call``/``acall`` never raise (``raw_output`` keeps the function's own
value, the Documents for ``LoadAndSearchToolSpec``).

Each tool's :class:`Guard` takes a call policy (deadline, lock, budget), not the spec; its
one synchronous path, :meth:`Guard.invoke`, goes to the worker pool (``run``, ``arun``),
one hop, and is waited for up to the deadline. Our own bugs are not hidden: with
``TOOLSPECS_STRICT=1`` an exception no failure row maps propagates; otherwise it becomes
guidance that tells the agent the tool failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import logging
import os
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from llama_index.core.async_utils import asyncio_run
from llama_index.core.base.llms.types import TextBlock
from llama_index.core.schema import Document
from llama_index.core.tools.function_tool import FunctionTool
from llama_index.core.tools.types import ToolMetadata, ToolOutput
from pydantic import WithJsonSchema

from toolspecs.core import bounds, context, large_output, schema, structured
from toolspecs.core.calls import Abandoned, CallPolicy, GuardedOutput, Outcome
from toolspecs.core.context import CallContext, ToolNames
from toolspecs.core.declare import ToolOptions
from toolspecs.core.errors import AskUser, RetryLater, ToolGuidance, strict
from toolspecs.core.large_output import as_text
from toolspecs.core.policy import Marks
from toolspecs.core.store import StoredResult

__all__ = ["GuardedTool", "names_used_twice"]

logger = logging.getLogger("toolspecs")

# How much sooner than the guard a spec's client is told to give up (seconds).
_MARGIN = 1.0


def _left(end: float | None) -> float | None:
    return None if end is None else max(0.0, end - time.monotonic())


@dataclass(eq=False)
class Guard:
    """The call path of one tool: arguments in, text (or guidance) out; it never sees the spec.

    ``read_tool`` is empty when the tool list does not offer the reader (a long result is
    then cut); ``afn`` is awaited in async calls instead (a LlamaHub ``(sync, async)`` pair).
    """

    policy: CallPolicy
    name: str
    fn: Callable[..., Any]
    options: ToolOptions
    model: type[schema.ToolArguments]
    names: ToolNames
    read_tool: str
    afn: Callable[..., Any] | None = None
    owner: object | None = None

    def __post_init__(self) -> None:
        if self.afn is None and inspect.iscoroutinefunction(self.fn):
            self.afn = self.fn
        self.function = getattr(self.fn, "__name__", self.name)
        self.inline = not self.options.blocking

    def run(
        self, args: tuple[Any, ...], kwargs: Mapping[str, Any], call: CallContext | None = None
    ) -> Outcome:
        """:meth:`invoke` in a worker thread that the caller stops waiting for at the deadline.

        A late result is dropped (a call still queued or waiting for the lock is never made).
        ``blocking=False`` functions and specs without a deadline run on the caller's thread:
        handing a trivial call to a worker cost more than the rest of it.
        """
        outer = context.current() if call is None else call
        seconds = self.policy.deadline()
        end = outer.ending(seconds)
        if seconds is None or self.inline:
            return self.invoke(args, kwargs, outer, end)
        answer: queue.SimpleQueue[Any] = queue.SimpleQueue()
        abandoned = Abandoned()
        WORKERS.run(answer.put, self.invoke, args, kwargs, outer, end, abandoned)
        try:
            result = answer.get(timeout=_left(end))
        except queue.Empty:
            abandoned.set()  # a call still queued, or waiting for the spec's lock, is not made
            raise self.late(seconds) from None
        if isinstance(result, BaseException):
            raise result
        return result  # type: ignore[no-any-return]

    async def arun(
        self, args: tuple[Any, ...], kwargs: Mapping[str, Any], call: CallContext | None = None
    ) -> Outcome:
        """:meth:`run` for async callers: the same :meth:`invoke`, one hop off the event loop.

        ``blocking=False`` functions run here unless the spec's lock is taken (then a worker
        waits for it, not the event loop); async functions are awaited here.
        """
        outer = context.current() if call is None else call
        seconds = self.policy.deadline()
        end = outer.ending(seconds)
        if self.afn is not None:
            return await self._ainvoke(args, kwargs, outer, end)
        lock = self.policy.lock
        if self.inline and (lock is None or lock.acquire(blocking=False)):
            try:
                return self.invoke(args, kwargs, outer, end)
            finally:
                if lock is not None:
                    lock.release()
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Outcome] = loop.create_future()

        def settle(result: Any) -> None:
            if done.done():  # its caller stopped waiting
                return
            if isinstance(result, BaseException):
                done.set_exception(result)
            else:
                done.set_result(result)

        def answer(result: Any) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed while the call ran
                loop.call_soon_threadsafe(settle, result)

        abandoned = Abandoned()
        WORKERS.run(answer, self.invoke, args, kwargs, outer, end, abandoned)
        try:
            return await asyncio.wait_for(done, _left(end))
        except (TimeoutError, asyncio.TimeoutError):  # distinct classes before Python 3.11
            abandoned.set()
            raise self.late(seconds or 0) from None
        except asyncio.CancelledError:
            abandoned.set()  # a cancelled call still waiting for the spec's lock is never made
            raise

    def invoke(
        self,
        args: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        outer: CallContext,
        end: float | None,
        abandoned: Abandoned | None = None,
    ) -> Outcome:
        """The one synchronous call of the tool, on whichever thread runs it.

        The client is told to finish a little early: its own guidance ("the service did not
        answer") says more than the guard's.
        """
        if abandoned is not None and abandoned.is_set():
            return Outcome(None, "")  # its caller stopped waiting while it was queued
        lock = self.policy.lock
        if lock is not None:
            wait = -1.0 if end is None else end - time.monotonic()
            if (end is not None and wait <= 0) or not lock.acquire(timeout=wait):
                raise self.late(self.policy.deadline() or 0)
        try:
            if abandoned is not None and abandoned.is_set():
                return Outcome(None, "")  # its caller was told it timed out: do nothing now
            ends = None
            if end is not None:
                left = end - time.monotonic()
                if left <= 0:
                    raise self.late(self.policy.deadline() or 0)
                ends = end - min(_MARGIN, left / 2)
            call = self.completed(outer, ends)
            token = context.enter(call)
            try:
                reading = schema.read_arguments(self.model, args, kwargs)  # asks no service
                arguments = reading.in_call_zone()  # a calendar's zone may be a request
                if self.policy.before is not None:
                    self.policy.before(self.function)
                raw = self.fn(**arguments)
                if inspect.iscoroutine(raw):  # an async spec function, called synchronously
                    raw = asyncio_run(raw)
                return self.shown(raw, arguments, call.owner)
            except Exception as exc:
                raise self.guidance(exc) from exc
            finally:
                context.leave(token)
        finally:
            if lock is not None:
                lock.release()

    def completed(self, outer: CallContext, end: float | None) -> CallContext:
        """The context a call runs in: the host's owner (else the guard's), names and end."""
        owner = self.owner if outer.owner is None else outer.owner
        return CallContext(owner, end, self.names)

    @property
    def asks_first(self) -> bool:
        """Whether a host that can show a person a question asks before this call runs."""
        return self.options.marks.destructive is True and self.policy.confirm is not None

    async def confirmation(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> str | None:
        """The question for the person before this call (``None``: none), asked as a call is.

        Bad arguments or a failure while the spec looks raise the call's own guidance.
        """
        confirm = self.policy.confirm
        if not self.asks_first or confirm is None:
            return None
        function = self.function

        def question(**arguments: Any) -> str | None:
            return confirm(function, arguments)

        question.__name__ = function  # what policy.before checks (a Google scope) is its
        options = ToolOptions(marks=self.options.marks)
        asking = Guard(self.policy, self.name, question, options, self.model, self.names, "")
        asking.owner = self.owner
        asked = await asking.arun(args, kwargs)
        return asked.raw if isinstance(asked.raw, str) else None

    def late(self, seconds: float) -> RetryLater:
        """The guidance for a call still running at its deadline."""
        service = self.policy.service
        step = "Try again in a minute; if it keeps happening, ask for less (fewer results)."
        if not self.options.marks.read_only:
            step = (
                "It may still have been done: check (e.g. list or get what it changes) "
                "before trying again, so that it is not done twice."
            )
        return RetryLater(
            f"{self.name} did not finish within its {seconds:g} s deadline "
            f"({service} is slow or not answering).",
            step,
            60,
        )

    async def _ainvoke(
        self,
        args: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        outer: CallContext,
        end: float | None,
    ) -> Outcome:
        assert self.afn is not None
        loop = asyncio.get_running_loop()
        call = self.completed(outer, end)
        token = context.enter(call)  # this task's own copy of the context variables
        try:
            # Only the zone's request and storing a long result leave the event loop.
            reading = schema.read_arguments(self.model, args, kwargs)  # asks no service
            arguments = (
                reading.arguments
                if reading.zone_from is None
                else await asyncio.wait_for(
                    loop.run_in_executor(
                        WORKERS, contextvars.copy_context().run, reading.in_call_zone
                    ),
                    _left(end),
                )
            )
            if self.policy.before is not None:
                self.policy.before(self.function)
            raw = await asyncio.wait_for(self.afn(**arguments), _left(end))
            if self.short(raw):
                return self.shown(raw, arguments, call.owner)
            return await loop.run_in_executor(WORKERS, self.shown, raw, arguments, call.owner)
        except (TimeoutError, asyncio.TimeoutError):  # distinct classes before Python 3.11
            raise self.late(self.policy.deadline() or 0) from None
        except Exception as exc:
            raise self.guidance(exc) from exc
        finally:
            context.leave(token)

    def guidance(self, exc: Exception) -> ToolGuidance:
        """What the agent is told about ``exc``; re-raises our bugs in strict mode."""
        found = self.policy.guidance(exc)  # in the call's context: a row may name siblings
        if found is not None:
            return found
        if strict():
            raise exc
        logger.exception("toolspecs: %s failed unexpectedly", self.name)
        return AskUser(
            f"{self.name} failed with an internal error ({type(exc).__name__}). "
            "This is a fault in the tool, not in your call.",
            "Do not retry the same call: tell the user the tool failed.",
        )

    def output(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> ToolOutput:
        """The ``ToolOutput`` of one call; never raises (but for our bugs in strict mode)."""
        try:
            outcome = self.run(args, kwargs)
        except ToolGuidance as guidance:
            return self.failed(args, kwargs, guidance)
        return self.succeeded(args, kwargs, outcome)

    async def aoutput(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> ToolOutput:
        """:meth:`output` for async callers."""
        try:
            outcome = await self.arun(args, kwargs)
        except ToolGuidance as guidance:
            return self.failed(args, kwargs, guidance)
        return self.succeeded(args, kwargs, outcome)

    def succeeded(
        self, args: tuple[Any, ...], kwargs: Mapping[str, Any], outcome: Outcome
    ) -> GuardedOutput:
        """The ``ToolOutput`` of a call that worked: the text, ``raw_output``, ``structured``."""
        made = GuardedOutput(
            tool_name=self.name,
            blocks=[TextBlock(text=outcome.text)],
            raw_input={"args": args, "kwargs": dict(kwargs)},
            raw_output=outcome.raw,
        )
        made.structured = outcome.structured
        return made

    def failed(
        self, args: tuple[Any, ...], kwargs: Mapping[str, Any], guidance: ToolGuidance
    ) -> ToolOutput:
        """The ``ToolOutput`` of a call that ends in guidance (``is_error=True``)."""
        return ToolOutput(
            tool_name=self.name,
            content=guidance.text,
            raw_input={"args": args, "kwargs": dict(kwargs)},
            raw_output=guidance.text,
            is_error=True,
            exception=guidance,
        )

    def short(self, raw: Any) -> bool:
        """Whether ``raw`` is text that fits the budget uncounted."""
        return isinstance(raw, str) and len(raw) * 4 <= self.policy.budget().max_tokens

    def shown(self, raw: Any, arguments: Mapping[str, Any], owner: object | None) -> Outcome:
        """The outcome of a call that returned ``raw``: its text and its structured result."""
        data = raw if isinstance(raw, structured.Output) else None
        model = self.options.output
        if data is not None:
            raw = data.reply()
        if model is not None and not isinstance(data, model):
            found = type(data).__name__ if data is not None else repr(type(raw))
            if strict() or data is not None:  # another model: our bug, always
                raise TypeError(f"{self.name} returned {found}, not {model.__name__}")
            logger.error("toolspecs: %s returned no %s: a fault", self.name, model.__name__)
            data = None
        text, stored = self._text(raw, arguments, owner)
        if data is None:
            return Outcome(raw, text, None, stored)
        handle = structured.handle_of(stored, self.read_tool)
        dumped = structured.dump(data, self.policy.budget().max_tokens, handle)
        return Outcome(raw, text, dumped, stored)

    def _text(
        self, raw: Any, arguments: Mapping[str, Any], owner: object | None
    ) -> tuple[str, StoredResult | None]:
        text = as_text(raw)  # never rewritten: a prefix renames our words only
        if not text.strip():
            template = self.names.definition(self.options.empty or "") or (
                f"{self.name} returned nothing."
            )
            values = {p.name: p.default for p in schema.parameters(self.fn)}
            values.update(arguments)
            text = bounds.fill(template, values)
        budget = self.policy.budget()
        if len(text) * 4 <= budget.max_tokens:
            # Not counted: a token covers at least one byte of UTF-8 (a char is at most
            # four), so it fits; the tokenizer was about 5% of a short call.
            return text, None
        # Counted only until it is over budget: storing counts the rest as it cuts passages.
        tokens = bounds.count_tokens(text, stop_above=budget.max_tokens)
        if tokens <= budget.max_tokens:
            return text, None
        if self.options.large_output and self.read_tool:
            # One Document is stored as one (its passages keep their source), not as text.
            documents = [raw] if isinstance(raw, Document) else raw
            try:
                stored = self.policy.results(owner).add(
                    self.name,
                    documents if isinstance(documents, list) else text,
                    source=self.policy.source,
                )
                return large_output.stored_message(stored, text, self.read_tool), stored
            except Exception:
                if strict():
                    raise
                logger.exception("toolspecs: could not store the result of %s", self.name)
        return large_output.truncated_message(text, budget, bounds.count_tokens(text)), None


# The one bounded pool of daemon threads that tool calls run in (WORKERS).
T = TypeVar("T")

# The most calls that run at once in one process; more wait in the queue, each under its
# own deadline. The MCP server also caps the calls of each session.
MAX_THREADS = 32

# (its future, or the function told its result or exception; the function; its arguments)
_Item = tuple[
    "Future[Any] | Callable[[Any], None]", Callable[..., Any], tuple[Any, ...], dict[str, Any]
]


class Workers(Executor):
    """Up to ``max_threads`` daemon threads, started when no thread is idle, then reused.

    Not ``ThreadPoolExecutor``: its threads are joined at exit (a call stuck in a service
    would keep the process alive), and a forked child must start its own.
    """

    def __init__(self, max_threads: int = MAX_THREADS) -> None:
        self.max_threads = max_threads
        self._start()
        if hasattr(os, "register_at_fork"):
            # A forked child (gunicorn's preload, multiprocessing's fork) has none of the
            # parent's threads, and a lock held at the fork would never be released.
            os.register_at_fork(after_in_child=self._start)

    def _start(self) -> None:
        self._work: queue.SimpleQueue[_Item] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)  # one per thread waiting for work
        self._lock = threading.Lock()
        self._threads = 0

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Run ``fn(*args, **kwargs)`` in a worker; cancel the future to drop it unrun."""
        future: Future[T] = Future()
        self._put((future, fn, args, kwargs))
        return future

    def run(self, answer: Callable[[Any], None], fn: Callable[..., Any], /, *args: Any) -> None:
        """Run ``fn(*args)`` in a worker, then ``answer`` its result or the exception raised.

        Cheaper than a ``Future``; ``fn`` runs in a copy of the caller's context variables
        (as ``asyncio.to_thread``). ``answer`` must not raise.
        """
        self._put((answer, contextvars.copy_context().run, (fn, *args), {}))

    def _put(self, item: _Item) -> None:
        self._work.put(item)
        if self._idle.acquire(blocking=False):
            return  # an idle worker takes it
        with self._lock:
            if self._threads < self.max_threads:
                self._threads += 1
                threading.Thread(target=self._serve, name="toolspecs-call", daemon=True).start()

    def _serve(self) -> None:
        work, idle = self._work, self._idle
        while True:
            future, fn, args, kwargs = work.get()
            if not isinstance(future, Future):
                try:
                    result = fn(*args)
                except BaseException as exc:  # the caller's to see
                    result = exc
                idle.release()  # before the caller hears: its next call finds this thread
                future(result)
                del future, fn, args, result
                continue
            if not future.set_running_or_notify_cancel():
                idle.release()
                continue  # its caller stopped waiting before it began
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # the caller's to see
                idle.release()  # before the caller hears: its next call finds this thread
                future.set_exception(exc)
            else:
                idle.release()
                future.set_result(result)
                result = None
            del future, fn, args, kwargs  # the call's frame and result are not kept while idle


WORKERS = Workers()


class GuardedTool(FunctionTool):
    """A ``FunctionTool`` whose every entry point goes through its :class:`Guard`."""

    def __init__(self, guard: Guard, metadata: ToolMetadata, spec: Any = None) -> None:
        self.guard = guard
        self.spec = spec  # the ToolSpec that made it: the guard itself never reads it
        self.marks: Marks = guard.options.marks
        self._described: tuple[Callable[..., str], Callable[..., Any]] | None = None

        def run(*args: Any, **kwargs: Any) -> str:
            return guard.run(args, kwargs)[1]

        async def arun(*args: Any, **kwargs: Any) -> str:
            return (await guard.arun(args, kwargs))[1]

        super().__init__(fn=run, async_fn=arun, metadata=metadata)

    @property
    def fn(self) -> Callable[..., str]:
        """The agent's text for ``**kwargs``; raises ``ToolGuidance``. Named, described, typed."""
        return self._describe()[0]

    @property
    def async_fn(self) -> Callable[..., Any]:
        """``fn``, awaitable (in a worker thread, unless declared ``blocking=False``)."""
        return self._describe()[1]

    def _describe(self) -> tuple[Callable[..., str], Callable[..., Any]]:
        # Built on first use: the signature needs the JSON schema, which costs a few ms.
        # New functions, so that llama-index's own call path keeps reading the plain ones.
        if self._described is None:
            guard = self.guard

            def fn(*args: Any, **kwargs: Any) -> str:
                return guard.run(args, kwargs)[1]

            async def async_fn(*args: Any, **kwargs: Any) -> str:
                return (await guard.arun(args, kwargs))[1]

            signature = _signature(self.metadata)
            _name(fn, self.metadata, signature)
            _name(async_fn, self.metadata, signature)
            self._described = (fn, async_fn)
        return self._described

    def __call__(self, /, *args: Any, **kwargs: Any) -> ToolOutput:
        """Same as :meth:`call` (``self`` is positional-only: an argument may be named so)."""
        return self.call(*args, **kwargs)

    def call(self, /, *args: Any, **kwargs: Any) -> ToolOutput:
        """Call the tool; guidance comes back as a ``ToolOutput`` with ``is_error=True``."""
        return self.guard.output(args, kwargs)

    async def acall(self, /, *args: Any, **kwargs: Any) -> ToolOutput:
        """Call the tool: an async function is awaited, a sync one runs in a worker thread."""
        return await self.guard.aoutput(args, kwargs)


def _signature(metadata: ToolMetadata) -> inspect.Signature:
    model = metadata.fn_schema
    if model is None:
        return inspect.Signature()
    properties = model.model_json_schema().get("properties", {})
    params = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if info.is_required() else info.default,
            annotation=Annotated[Any, WithJsonSchema(properties.get(name, {}))],
        )
        for name, info in model.model_fields.items()
    ]
    return inspect.Signature(params, return_annotation=str)


def _name(fn: Callable[..., Any], metadata: ToolMetadata, signature: inspect.Signature) -> None:
    fn.__name__ = fn.__qualname__ = metadata.get_name()
    fn.__doc__ = metadata.description
    fn.__signature__ = signature  # type: ignore[attr-defined]


def names_used_twice(names: Iterable[str]) -> list[str]:
    """The tool names that occur more than once, sorted (a model could call only one)."""
    return sorted(name for name, count in Counter(names).items() if count > 1)
