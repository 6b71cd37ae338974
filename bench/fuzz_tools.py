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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "fuzz"))
os.environ["TOOLSPECS_STRICT"] = "1"


def main() -> int:
    from hostile import TARGETS, fuzz

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=1000, help="argument sets per tool")
    parser.add_argument("--spec", action="append", choices=sorted(TARGETS), help="only these")
    parser.add_argument("--seed", type=int, default=12)
    options = parser.parse_args()
    logging.disable(logging.CRITICAL)  # the services' retry warnings, by the thousand
    faults = 0
    started = time.monotonic()
    for name, tally in fuzz(options.spec or sorted(TARGETS), options.examples, options.seed):
        print(f"== {name}\n{tally.report()}\n", flush=True)
        faults += tally.faults()
    print(f"total faults: {faults} ({time.monotonic() - started:.0f} s)")
    return 1 if faults else 0


if __name__ == "__main__":
    raise SystemExit(main())
