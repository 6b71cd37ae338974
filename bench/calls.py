"""Per-call cost of a trivial guarded tool, next to a bare llama-index ``FunctionTool``.

Run from anywhere:

    uv run --frozen python bench/calls.py [--repeats 15] [--number 2000]

The same trivial function (add two integers, return the text) as a bare
``FunctionTool.from_defaults(fn=...)`` and as toolspecs tools of each kind the guard
tells apart, each called ``number`` times per repeat, the sides alternating:

- ``@tool(blocking=False)`` (no I/O: the stored-result reader, a computation): it runs on
  the caller's thread under the default 30 s ``call_deadline``;
- ``@tool`` (may wait for a service: every loader call): it runs in the bounded pool of
  worker threads, which the guard stops waiting for at the deadline;
- the same with ``call_deadline = None`` (no deadline, no worker), for reference.

Async callers (the MCP server, ``FunctionAgent``) are timed too: ``acall`` of the same
tools awaited on one event loop, against the bare tool's ``acall`` (llama-index runs a
sync function in the loop's executor: one thread hop, the floor).

Printed: microseconds per call, min / median over the repeats, and the ratio to the bare
tool (the async sides to the bare ``acall``; of the best times, and the median of the
per-round ratios; target of issue 14: at most x1.3 for a trivial call), then the cost of
a bare thread hand-off (a ``SimpleQueue`` there and one back, nothing else: the floor of
any worker-thread design), then the ``ToolOutput`` objects built per call (target: one).
"""

from __future__ import annotations

import argparse
import asyncio
import queue
import statistics
import threading
import time
import timeit
from collections.abc import Callable
from typing import Any, ClassVar

from llama_index.core.tools import FunctionTool
from llama_index.core.tools import types as tool_types

from toolspecs.core import ToolSpec, tool


def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


class MathSpec(ToolSpec):
    """One trivial tool."""

    spec_functions: ClassVar = ["add"]
    service_name: ClassVar[str] = "Math"

    @tool(read_only=True)
    def add(self, a: int, b: int) -> str:
        """Add two integers.

        Args:
            a: The first.
            b: The second.
        """
        return str(a + b)


class LocalSpec(ToolSpec):
    """The same tool, declared to do no I/O: it runs on the caller's thread."""

    spec_functions: ClassVar = ["add"]
    service_name: ClassVar[str] = "Math"

    @tool(read_only=True, open_world=False, blocking=False)
    def add(self, a: int, b: int) -> str:
        """Add two integers.

        Args:
            a: The first.
            b: The second.
        """
        return str(a + b)


class TurnsSpec(MathSpec):
    """The same, for a client that is not thread-safe: its calls take turns by its lock."""

    thread_safe = False


class NoDeadlineSpec(MathSpec):
    """The same, without a deadline (``call_deadline = None``): no worker thread."""

    call_deadline = None


def outputs_per_call(call: Callable[[], Any]) -> int:
    """How many ``ToolOutput`` objects one call builds."""
    built = 0
    original = tool_types.ToolOutput.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal built
        built += 1
        original(self, *args, **kwargs)

    tool_types.ToolOutput.__init__ = counting  # type: ignore[method-assign]
    try:
        call()
    finally:
        tool_types.ToolOutput.__init__ = original  # type: ignore[method-assign]
    return built


def handoff() -> Callable[[], Any]:
    """One bare round trip to a waiting thread and back (two ``SimpleQueue``)."""
    inbox: queue.SimpleQueue[Callable[[], Any]] = queue.SimpleQueue()
    answers: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def serve() -> None:
        while True:
            answers.put(inbox.get()())

    threading.Thread(target=serve, daemon=True).start()

    def call() -> Any:
        inbox.put(int)
        return answers.get(timeout=30)

    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--number", type=int, default=2000, help="calls per repeat")
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="time CPU of the process (time.process_time) instead of the wall clock: steadier "
        "on a shared machine, but it leaves out a thread hand-off's wake-up wait",
    )
    args = parser.parse_args()
    timer = time.process_time if args.cpu else time.perf_counter
    bare = FunctionTool.from_defaults(fn=add)
    local = LocalSpec().to_tool_list()[0]
    guarded = MathSpec().to_tool_list()[0]
    unguarded = NoDeadlineSpec().to_tool_list()[0]
    # side: (what it is, how it runs, the call)
    sides: dict[str, tuple[str, Callable[[], Any]]] = {
        "bare FunctionTool": ("llama-index", lambda: bare.call(a=1, b=2)),
        "toolspecs local": ("caller's thread", lambda: local.call(a=1, b=2)),
        "toolspecs service": ("worker thread", lambda: guarded.call(a=1, b=2)),
        "no deadline": ("caller's thread", lambda: unguarded.call(a=1, b=2)),
    }
    # Async callers (the MCP server, FunctionAgent): each call awaited on one event loop.
    # llama-index runs a sync function's acall in the loop's executor: one thread hop.
    loop = asyncio.new_event_loop()
    turns = TurnsSpec().to_tool_list()[0]
    sides.update(
        {
            "bare acall": ("loop executor", lambda: loop.run_until_complete(bare.acall(a=1, b=2))),
            "service acall": (
                "worker thread",
                lambda: loop.run_until_complete(guarded.acall(a=1, b=2)),
            ),
            "turns acall": (
                "worker + lock",
                lambda: loop.run_until_complete(turns.acall(a=1, b=2)),
            ),
        }
    )
    floor = handoff()
    for _, call in sides.values():
        assert call().content == "3"
        timeit.timeit(call, number=args.number // 4)  # warm: the first call builds caches
    micros: dict[str, list[float]] = {side: [] for side in [*sides, "hand-off"]}

    def per_call(call: Callable[[], Any]) -> float:
        return timeit.timeit(call, timer=timer, number=args.number) / args.number * 1e6

    for _ in range(args.repeats):
        for side, (_, call) in sides.items():
            micros[side].append(per_call(call))
        micros["hand-off"].append(per_call(floor))
    base = micros["bare FunctionTool"]
    abase = micros["bare acall"]
    clock = "CPU" if args.cpu else "wall"
    print(f"One trivial call, {args.repeats} x {args.number} calls ({clock} us, min / median)")
    print("  local: @tool(blocking=False); service: @tool; both with the 30 s call_deadline")
    print("  ratio of mins; and the median of each round's ratio (the sides run back to back)")
    header = f"{'tool':<20}{'runs on':<17}{'min':>7}{'median':>8}{'ratio min':>11}{'median':>8}"
    print(header)
    for side, values in micros.items():
        kind = sides[side][0] if side in sides else "two threads"
        low, mid = min(values), statistics.median(values)
        against = abase if "acall" in side else base  # async sides against the bare acall
        rounds = statistics.median(v / b for v, b in zip(values, against, strict=True))
        print(f"{side:<20}{kind:<17}{low:7.1f}{mid:8.1f}{low / min(against):11.2f}{rounds:8.2f}")
    built = {side: outputs_per_call(call) for side, (_, call) in sides.items()}
    print("ToolOutput objects per call:", ", ".join(f"{s} {n}" for s, n in built.items()))
    loop.close()


if __name__ == "__main__":
    main()
