"""CPU time to import the four specs, next to a bare ``import llama_index.core``.

Run from anywhere:

    uv run --frozen python bench/imports.py [--runs 10]

Each measurement is a fresh interpreter that times one import statement with
``time.process_time()`` (CPU time, so waiting on a shared machine's disk or scheduler counts
less). Bytecode is compiled as a real install has it: these machines set
``PYTHONDONTWRITEBYTECODE=1``, so the children run without it and with a
``PYTHONPYCACHEPREFIX`` of their own, warmed once before measuring; otherwise the figures
are dominated by compiling llama-index. The two sides alternate, run after run. The ratio
is toolspecs / bare llama-index: the target (issue 14) is at most x1.03.

Two interpreters on a shared machine differ by 5-10% in CPU time for the same import, more
than the 30 ms measured, so the four-specs child also times its two halves, ``import
llama_index.core`` and then the specs (which import nothing else of llama-index's
``__init__``): the paired ratio (core + specs) / core of one interpreter is the steadier
figure of the same quantity.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

SPECS = (
    "toolspecs.specs.arxiv",
    "toolspecs.specs.gmail",
    "toolspecs.specs.google_calendar",
    "toolspecs.specs.wolfram_alpha",
)
SIDES = {
    "llama_index.core": "import llama_index.core",
    # llama_index.core first, timed on its own (the paired figure), then the specs.
    "four specs": "import llama_index.core\nsplit = time.process_time()\nimport "
    + ", ".join(SPECS),
}
# Modules the specs need only when a tool runs (a fallback path or one tool); listed after
# the table when an import of the specs loads them.
LAZY = (
    "dateparser",
    "httpx",
    "wolframalpha",
    "xmltodict",
    "googleapiclient.discovery",
    "tiktoken",
    "email.policy",
    "email.mime",
    "difflib",
    "http.server",
)
CHILD = """
import sys, time
t = split = time.process_time()
{statement}
print(time.process_time() - t, split - t)
print("loaded:" + ",".join(m for m in {lazy!r} if m in sys.modules))
"""


def _child(statement: str, env: dict[str, str]) -> tuple[float, float, list[str]]:
    """The CPU seconds of ``statement``, of its part before ``split``, the lazy modules."""
    code = CHILD.format(statement=statement, lazy=LAZY)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        print(f"imports: error: {statement!r} failed: {tail}", file=sys.stderr)
        sys.exit(1)
    seconds, loaded = done.stdout.strip().splitlines()[-2:]
    total, before = (float(x) for x in seconds.split())
    return total, before, [m for m in loaded.removeprefix("loaded:").split(",") if m]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per side (default 10)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="toolspecs-pycache-") as prefix:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = prefix
        for statement in SIDES.values():  # warm: compile and write the bytecode once
            _child(statement, env)
        times: dict[str, list[float]] = {side: [] for side in SIDES}
        paired: list[tuple[float, float]] = []  # (llama_index.core, the specs after it)
        loaded: list[str] = []
        for _ in range(args.runs):
            for side, statement in SIDES.items():
                seconds, before, modules = _child(statement, env)
                times[side].append(seconds)
                if side == "four specs":
                    loaded = modules
                    paired.append((before, seconds - before))
    base = times["llama_index.core"]
    print(f"CPU time of the import, {args.runs} runs each (ms, min / median)")
    print(f"{'import':<20}{'min':>8}{'median':>9}{'ratio min':>11}{'ratio median':>14}")
    for side, values in times.items():
        low, mid = min(values), statistics.median(values)
        print(
            f"{side:<20}{low * 1e3:8.0f}{mid * 1e3:9.0f}"
            f"{low / min(base):11.3f}{mid / statistics.median(base):14.3f}"
        )
    specs = times["four specs"]
    low = (min(specs) - min(base)) * 1e3
    mid = (statistics.median(specs) - statistics.median(base)) * 1e3
    print(f"extra over llama_index.core: {low:+.0f} ms (min), {mid:+.0f} ms (median)")
    ratios = [(core + specs) / core for core, specs in paired]
    extra = [specs * 1e3 for _, specs in paired]
    print(
        "paired, in one interpreter (llama_index.core, then the specs): "
        f"ratio {min(ratios):.3f} (min), {statistics.median(ratios):.3f} (median); "
        f"the specs' own {min(extra):.0f} ms (min), {statistics.median(extra):.0f} ms (median)"
    )
    print("loaded by the import, though only a tool call needs them:", ", ".join(loaded) or "none")


if __name__ == "__main__":
    main()
