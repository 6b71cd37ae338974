"""Every tool of every spec, fuzzed against its fake and the fake's failure modes.

A few examples per tool here; ``bench/fuzz_tools.py`` runs 1,000 per tool. See
``hostile.py`` for what is drawn and what each call must show.
"""

from __future__ import annotations

import pytest
from hostile import TARGETS, Tally, build, fuzz_tool, tools_of

EXAMPLES = 6


@pytest.mark.dates
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_no_tool_raises_hangs_fails_inside_or_floods(name):
    target = build(name)
    tally = Tally()
    for tool in tools_of(target):
        fuzz_tool(target, tool, EXAMPLES, tally, seed_value=2026)
    assert tally.calls >= EXAMPLES
    assert tally.faults() == 0, tally.report()
