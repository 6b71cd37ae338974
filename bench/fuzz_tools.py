"""Fuzz every tool of every spec against its fake: counts of raises, late calls, floods.

    uv run --frozen python bench/fuzz_tools.py                 # 1,000 argument sets per tool
    uv run --frozen python bench/fuzz_tools.py --examples 100 --spec gmail

Each call draws its arguments from the tool's own JSON schema (realistic values, ids
from the fake, hostile values) and arms one of the fake's failure modes a third of the
time; see ``tests/fuzz/hostile.py`` for what is drawn and checked. Runs in strict mode
(``TOOLSPECS_STRICT=1``): a bug of ours raises and is counted with its cause. Exits 1
when any fault was found. Tools whose arguments allow fewer distinct sets than asked
(``get_date`` has none) are called once per distinct set.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "fuzz"))
os.environ["TOOLSPECS_STRICT"] = "1"


def one_spec(name: str, examples: int, seed: int) -> tuple[str, str, int]:
    """Fuzz one spec (in its own process): its name, report and fault count."""
    from hostile import fuzz

    logging.disable(logging.CRITICAL)  # the services' retry warnings, by the thousand
    for _, tally in fuzz([name], examples, seed):
        return name, tally.report(), tally.faults()
    raise AssertionError(name)


def main() -> int:
    from hostile import TARGETS

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=1000, help="argument sets per tool")
    parser.add_argument("--spec", action="append", choices=sorted(TARGETS), help="only these")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--jobs", type=int, default=4, help="specs fuzzed at once")
    options = parser.parse_args()
    faults = 0
    started = time.monotonic()
    names = options.spec or sorted(TARGETS)
    # One process per spec: the calls mostly wait (back-off, slow bodies), so they overlap.
    with ProcessPoolExecutor(max_workers=options.jobs) as pool:
        runs = [pool.submit(one_spec, name, options.examples, options.seed) for name in names]
        for run in as_completed(runs):
            name, report, found = run.result()
            print(f"== {name}\n{report}\n", flush=True)
            faults += found
    print(f"total faults: {faults} ({time.monotonic() - started:.0f} s)")
    return 1 if faults else 0


if __name__ == "__main__":
    raise SystemExit(main())
