"""Per-call cost of a trivial guarded tool, next to a bare llama-index ``FunctionTool``.

Run from anywhere:

    uv run --frozen python bench/calls.py [--repeats 15] [--number 2000]

The same trivial function (add two integers, return the text) as a bare
``FunctionTool.from_defaults(fn=...)`` and as a toolspecs tool (``@tool``, the default
30 s ``call_deadline``: every sync call runs in a worker thread under it), each called
``number`` times per repeat, the two sides alternating. Printed: microseconds per call,
min / median over the repeats, and the ratio to the bare tool (target of issue 14: at most
x1.3), then the ``ToolOutput`` objects built per call (target: one).
"""

from __future__ import annotations

import argparse
import statistics
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--number", type=int, default=2000, help="calls per repeat")
    args = parser.parse_args()
    bare = FunctionTool.from_defaults(fn=add)
    guarded = MathSpec().to_tool_list()[0]
    unguarded = NoDeadlineSpec().to_tool_list()[0]
    sides: dict[str, Callable[[], Any]] = {
        "bare FunctionTool": lambda: bare.call(a=1, b=2),
        "toolspecs": lambda: guarded.call(a=1, b=2),
        "toolspecs, no deadline": lambda: unguarded.call(a=1, b=2),
    }
    for call in sides.values():
        assert call().content == "3"
        timeit.timeit(call, number=args.number // 4)  # warm: the first call builds caches
    micros: dict[str, list[float]] = {side: [] for side in sides}
    for _ in range(args.repeats):
        for side, call in sides.items():
            micros[side].append(timeit.timeit(call, number=args.number) / args.number * 1e6)
    base = micros["bare FunctionTool"]
    print(f"One trivial call, {args.repeats} x {args.number} calls (us, min / median)")
    print(f"{'tool':<24}{'min':>8}{'median':>9}{'ratio min':>11}{'ratio median':>14}")
    for side, values in micros.items():
        low, mid = min(values), statistics.median(values)
        print(
            f"{side:<24}{low:8.1f}{mid:9.1f}"
            f"{low / min(base):11.2f}{mid / statistics.median(base):14.2f}"
        )
    built = {side: outputs_per_call(call) for side, call in sides.items()}
    print("ToolOutput objects per call:", ", ".join(f"{s} {n}" for s, n in built.items()))


if __name__ == "__main__":
    main()
