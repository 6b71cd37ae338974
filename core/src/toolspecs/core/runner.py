"""Running one call: a guard that takes a call policy (deadline, lock, budget), not the spec.

A spec builds one :class:`CallPolicy` for its tools (``ToolSpec.call_policy()``); each
tool's :class:`Guard` reads the call's arguments, runs the function under the policy
(a worker thread and a deadline, the spec's lock when its client is not thread-safe),
and shapes what comes back: the agent's text (cut short, or stored and previewed, past
the budget) or guidance (the policy's failure table). :class:`Workers` are the daemon
threads sync calls run in.

Our own bugs are not hidden: with ``TOOLSPECS_STRICT=1`` (the test suite sets it)
an exception no failure row maps propagates; otherwise it becomes guidance that
tells the agent the tool failed.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from llama_index.core.async_utils import asyncio_run
from llama_index.core.base.llms.types import TextBlock
from llama_index.core.schema import BaseNode, Document
from llama_index.core.tools.types import ToolOutput

from toolspecs.core import bounds, deadline, large_output, owners, prefixed, schema
from toolspecs.core.declare import ToolOptions
from toolspecs.core.errors import AskUser, RetryLater, ToolGuidance, strict
from toolspecs.core.prefixed import ToolNames, naming

__all__ = ["Abandoned", "CallPolicy", "Guard", "Workers", "as_text"]

logger = logging.getLogger("toolspecs")

# How much sooner than the guard a spec's client is told to give up (seconds).
_MARGIN = 1.0


@dataclass(frozen=True)
class CallPolicy:
    """What the guard of each tool needs of its spec: the spec builds it, the guard obeys.

    What may change after the tools are made is read through a function at each call:
    an instance may set its own ``call_deadline``, and results belong to the call's owner.

    Args:
        service: How the agent should call the service (``service_name``).
        deadline: The seconds a call may take, retries included (``None``: no deadline).
        lock: Held during each call when the spec's client is not thread-safe;
            ``None``: calls run side by side.
        executor: Where async calls queue when there is a ``lock`` (one thread, in turn).
        budget: The token budget of the text a call returns.
        guidance: An expected failure as guidance (the spec's failure table); ``None``
            for our own bugs.
        results: Where the running call's owner keeps results too long to show.
        source: Who wrote one stored document, for the header of its passages.
    """

    service: str
    deadline: Callable[[], float | None]
    lock: threading.RLock | None
    executor: Callable[[], Executor]
    budget: Callable[[], large_output.OutputBudget]
    guidance: Callable[[BaseException], ToolGuidance | None]
    results: Callable[[], large_output.ResultStore]
    source: Callable[[Document], str]


class Abandoned:
    """Set by a caller that stopped waiting for a call: the call, if not begun, is not made.

    A plain flag (setting and reading an attribute is atomic under the GIL): a
    ``threading.Event`` costs a condition and a lock to build, and nobody waits on this.
    """

    __slots__ = ("_set",)

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        """Mark the call abandoned."""
        self._set = True

    def is_set(self) -> bool:
        """Whether the call was abandoned."""
        return self._set


class Guard:
    """The call path of one tool: arguments in, text (or guidance) out.

    Args:
        policy: How its spec's calls run (deadline, lock, budget, failures, store).
        name: The tool's public name.
        fn: The spec's bound function (undecorated: the guard reads the arguments).
        options: How it is exposed (``@tool``).
        model: Its argument model.
        names: The tools of its tool list and their prefix, which
            :func:`~toolspecs.core.prefixed.ref`, ``offered`` and ``named`` answer from
            during its calls and while its failures are mapped. Nothing it returns or
            raises is renamed afterwards.
        read_tool: The public name of its spec's reader tool (``reader_name``); empty
            when its tool list does not offer the reader: a result over budget is cut.
        afn: An ``async`` function to await in async calls instead (a LlamaHub-style
            ``(sync, async)`` pair in ``spec_functions``).
        owner: Whose results its calls store and read, unless a host says
            (:mod:`toolspecs.core.owners`); ``None``: the spec's own.

    It never sees the spec: what it needs of it comes in ``policy``.
    """

    def __init__(
        self,
        policy: CallPolicy,
        name: str,
        fn: Callable[..., Any],
        options: ToolOptions,
        model: type[schema.ToolArguments],
        names: ToolNames,
        read_tool: str,
        afn: Callable[..., Any] | None = None,
        owner: object | None = None,
    ) -> None:
        self.policy = policy
        self.owner = owner
        self.afn = afn if afn is not None else (fn if inspect.iscoroutinefunction(fn) else None)
        self.name = name
        self.fn = fn
        self.options = options
        self.model = model
        self.names = names
        self.read_tool = read_tool
        # A function that does no I/O runs on the caller's thread (``@tool(blocking=False)``).
        self.inline = not options.blocking

    def run(
        self,
        args: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        end: float | None = None,
        abandoned: Abandoned | None = None,
    ) -> tuple[Any, str]:
        """Call the function: its return value and the text the agent reads.

        The call runs in a worker thread under the spec's ``call_deadline``: past it, the
        agent is told to try again later and the worker's result, if it ever comes, is
        dropped. A function declared ``@tool(blocking=False)`` (no I/O, nothing to wait
        for) runs on the caller's thread instead, under the same deadline: handing it to
        a worker cost more than the rest of a trivial call, and there is nothing in it
        the guard could stop waiting for but the spec's call lock, which it waits for no
        longer than the deadline.

        Args:
            args: Positional arguments as sent.
            kwargs: Keyword arguments as sent.
            end: When the call's deadline falls (``time.monotonic()``), for a call that
                waited in a queue first; default: the spec's ``call_deadline`` from now.
            abandoned: Set by a caller that stopped waiting: the call is then not made.

        Raises:
            ToolGuidance: For bad arguments, a call past its deadline, and every failure
                the spec's table maps (and, outside strict mode, for our own bugs).
        """
        seconds = self.policy.deadline()
        if seconds is None:
            return self._run(args, kwargs, abandoned)
        if self.inline:
            return self._run_inline(args, kwargs, seconds, end, abandoned)
        left = (time.monotonic() + seconds if end is None else end) - time.monotonic()
        abandoned = abandoned or Abandoned()
        if left <= 0 or abandoned.is_set():
            abandoned.set()
            raise self.late(seconds)
        outcome: queue.SimpleQueue[Any] = queue.SimpleQueue()

        def work() -> None:
            try:
                # The spec's client is told to finish a little early: its own guidance
                # ("the service did not answer") says more than the guard's.
                with deadline.running(max(left - _MARGIN, left / 2)):
                    outcome.put(self._run(args, kwargs, abandoned))
            except BaseException as exc:  # re-raised in the caller's thread
                outcome.put(exc)

        _WORKERS.run(contextvars.copy_context().run, work)
        try:
            result = outcome.get(timeout=left)
        except queue.Empty:
            abandoned.set()  # a call still queued for the spec's lock is not made at all
            raise self.late(seconds) from None
        if isinstance(result, BaseException):
            raise result
        return result  # type: ignore[no-any-return]

    def _run_inline(
        self,
        args: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        seconds: float,
        end: float | None,
        abandoned: Abandoned | None,
    ) -> tuple[Any, str]:
        """:meth:`run` on the caller's thread, for a function that does no I/O."""
        left = seconds if end is None else end - time.monotonic()
        if left <= 0 or (abandoned is not None and abandoned.is_set()):
            raise self.late(seconds)
        lock = self.policy.lock
        if lock is None:
            token = deadline.enter(left)
            try:
                return self._run(args, kwargs, abandoned)
            finally:
                deadline.leave(token)
        # A stuck call of the same spec may hold its lock: wait no longer than the deadline
        # (``_run`` takes the lock again; it is reentrant).
        stop = time.monotonic() + left
        if not lock.acquire(timeout=left):
            raise self.late(seconds)
        try:
            with deadline.running(stop - time.monotonic()):
                return self._run(args, kwargs, abandoned)
        finally:
            lock.release()

    def _run(
        self,
        args: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        abandoned: Abandoned | None = None,
    ) -> tuple[Any, str]:
        try:
            with owners.default_owner(self.owner):
                if self.policy.lock is None:
                    arguments, raw = self._call(args, kwargs, abandoned)
                else:
                    with self.policy.lock:  # its client is not thread-safe
                        arguments, raw = self._call(args, kwargs, abandoned)
                if arguments is None:
                    return None, ""  # its caller was told it timed out: nothing was done
                return raw, self.text(raw, arguments)
        except Exception as exc:
            raise self.guidance(exc) from exc

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

    def _call(
        self,
        args: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        abandoned: Abandoned | None,
    ) -> tuple[dict[str, Any] | None, Any]:
        """The arguments read and the function's return value (``None, None``: abandoned)."""
        if abandoned is not None and abandoned.is_set():
            return None, None  # its caller was told it timed out: do nothing now
        reading = schema.read_arguments(self.model, args, kwargs)  # asks no service
        arguments = reading.in_call_zone()  # the call's: a calendar's zone may be a request
        token = prefixed.enter(self.names)
        try:
            raw = self.fn(**arguments)
        finally:
            prefixed.leave(token)
        if inspect.iscoroutine(raw):  # an async spec function, called synchronously
            raw = asyncio_run(raw)
        return arguments, raw

    async def arun(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> tuple[Any, str]:
        """:meth:`run` for async callers: an async function is awaited, a sync one threaded.

        A sync function declared ``blocking=False`` runs here, unless its spec's call lock
        is taken (then a thread waits for it, not the event loop).
        """
        seconds = self.policy.deadline()
        if self.afn is None and self.inline:
            # Nothing in it waits: run it here, unless the spec's call lock is taken (then a
            # thread waits for it, so that the event loop does not).
            lock = self.policy.lock
            if lock is None or lock.acquire(blocking=False):
                try:
                    return self.run(args, kwargs)
                finally:
                    if lock is not None:
                        lock.release()
        if self.afn is None:
            # The deadline runs from now, not from when a worker thread is free: a call
            # queued behind others gives up on time, and is then not made at all.
            end = None if seconds is None else time.monotonic() + seconds
            abandoned = Abandoned()
            context = contextvars.copy_context()
            # Calls of a spec that is not thread-safe queue in its own one-thread executor:
            # a slow one blocks only that spec, never the shared pool every other tool uses.
            executor = None if self.policy.lock is None else self.policy.executor()
            queued = asyncio.get_running_loop().run_in_executor(
                executor, context.run, self.run, args, kwargs, end, abandoned
            )
            try:
                # A little over the deadline: a call that started answers for itself.
                return await asyncio.wait_for(queued, None if seconds is None else seconds + 0.25)
            except (TimeoutError, asyncio.TimeoutError):
                abandoned.set()
                raise self.late(seconds or 0) from None
        try:
            with deadline.running(seconds):
                return await asyncio.wait_for(self._arun(args, kwargs), seconds)
        except (TimeoutError, asyncio.TimeoutError):  # distinct classes before Python 3.11
            raise self.late(seconds or 0) from None

    async def _arun(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> tuple[Any, str]:
        assert self.afn is not None
        try:
            arguments = await asyncio.to_thread(schema.prepare, self.model, args, kwargs)
            with owners.default_owner(self.owner):
                with naming(self.names):
                    raw = await self.afn(**arguments)
                return raw, await asyncio.to_thread(self.text, raw, arguments)
        except Exception as exc:
            raise self.guidance(exc) from exc

    def guidance(self, exc: Exception) -> ToolGuidance:
        """What the agent is told about ``exc``; re-raises our bugs in strict mode."""
        with naming(self.names):  # a failure row names siblings through prefixed.named
            found = self.policy.guidance(exc)
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
            raw, text = self.run(args, kwargs)
        except ToolGuidance as guidance:
            return self.failed(args, kwargs, guidance)
        return self.succeeded(args, kwargs, raw, text)

    async def aoutput(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> ToolOutput:
        """:meth:`output` for async callers."""
        try:
            raw, text = await self.arun(args, kwargs)
        except ToolGuidance as guidance:
            return self.failed(args, kwargs, guidance)
        return self.succeeded(args, kwargs, raw, text)

    def succeeded(
        self, args: tuple[Any, ...], kwargs: Mapping[str, Any], raw: Any, text: str
    ) -> ToolOutput:
        """The ``ToolOutput`` of a call that worked: the text, and ``raw`` as ``raw_output``."""
        raw_input = {"args": args, "kwargs": dict(kwargs)}
        return ToolOutput(
            tool_name=self.name, blocks=[TextBlock(text=text)], raw_input=raw_input, raw_output=raw
        )

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

    def text(self, raw: Any, arguments: Mapping[str, Any]) -> str:
        """What the agent reads of ``raw``: its text, the empty sentence, or a stored preview."""
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
            return text
        # Counted only until it is over budget: storing counts the rest as it cuts passages.
        tokens = bounds.count_tokens(text, stop_above=budget.max_tokens)
        if tokens <= budget.max_tokens:
            return text
        if self.options.large_output and self.read_tool:
            # One Document is stored as one (its passages keep their source), not as text.
            documents = [raw] if isinstance(raw, Document) else raw
            try:
                stored = self.policy.results().add(
                    self.name,
                    documents if isinstance(documents, list) else text,
                    source=self.policy.source,
                )
                return large_output.stored_message(stored, text, self.read_tool)
            except Exception:
                if strict():
                    raise
                logger.exception("toolspecs: could not store the result of %s", self.name)
        return large_output.truncated_message(text, budget, bounds.count_tokens(text))


class Workers:
    """Daemon threads that run sync calls under their deadline, reused from call to call.

    Starting a thread per call cost more than the rest of a trivial call together. A call
    goes to an idle worker, or to a new one when none is idle: a stuck call holds only its
    own thread (never a queue other calls wait in), and as daemons they never keep the
    process from exiting. At most ``keep`` idle workers wait for the next call; the others
    end when their call does. (``concurrent.futures`` pools are neither: their threads are
    joined at exit, and a full pool queues calls behind stuck ones.)

    Args:
        keep: The most idle workers kept.
    """

    def __init__(self, keep: int = 8) -> None:
        self.keep = keep
        self._idle: list[queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]]]] = []
        self._lock = threading.Lock()
        if hasattr(os, "register_at_fork"):
            # A forked child (gunicorn's preload, multiprocessing's fork) has none of the
            # parent's threads: their inboxes would swallow its calls, and a lock held at
            # the fork would never be released.
            os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._idle = []
        self._lock = threading.Lock()

    def run(self, fn: Callable[..., Any], *args: Any) -> None:
        """Start ``fn(*args)`` in a worker thread; it must not raise."""
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            inbox = queue.SimpleQueue()
            inbox.put((fn, args))
            threading.Thread(
                target=self._serve, args=(inbox,), name="toolspecs-call", daemon=True
            ).start()
        else:
            inbox.put((fn, args))

    def _serve(self, inbox: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]]]) -> None:
        while True:
            fn, args = inbox.get()
            fn(*args)
            del fn, args  # the call's frame and result are not kept while idle
            with self._lock:
                if len(self._idle) >= self.keep:
                    return
                self._idle.append(inbox)


_WORKERS = Workers()


def as_text(raw: Any) -> str:
    """What the agent reads of a spec function's return value."""
    if raw is None:
        return ""
    if isinstance(raw, str):
        return str.__str__(raw)
    if isinstance(raw, BaseNode):
        return raw.get_content()
    if isinstance(raw, list) and all(isinstance(item, BaseNode) for item in raw):
        return "\n\n".join(item.get_content() for item in raw)
    return str(raw)
