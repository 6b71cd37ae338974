"""Issue 21: the tools read "now" through one seam, toolspecs.core.clock.now().

The suite pins that seam (tests/conftest.py, $TOOLSPECS_NOW), so a module that read the wall
clock on its own would see another day than its tests: it would pass on the day it was
written and fail on another. This test finds every read of the wall clock in the packages'
source and allows only those listed below, each with why it must be the real clock.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[1]
SOURCES = sorted(
    path
    for pattern in ("base/src", "core/src", "server/src", "specs/*/src", "loaders/*/src")
    for path in ROOT.glob(f"{pattern}/**/*.py")
)

# (file, function) -> why it reads the wall clock itself.
ALLOWED = {
    ("core/src/toolspecs/core/clock.py", "now"): "the seam itself",
    ("core/src/toolspecs/core/clock.py", "system_timezone"): "today's offset, when the "
    "system names no IANA zone (a POSIX TZ rule)",
    ("base/src/toolspecs/base/net/bounded.py", "retry_after"): "a "
    "Retry-After date is measured from the real time",
    ("loaders/arxiv/src/toolspecs/loaders/arxiv/cache.py", "evict"): "the age of files "
    "on disk, against their real modification times",
    ("loaders/google/src/toolspecs/loaders/google/calendar.py", "days_events"): "the loader "
    "alone (no toolspecs-core): today when no start_date is given; the spec always gives one",
    ("base/src/toolspecs/base/times.py", "local_timezone"): "a loader alone (no "
    "toolspecs-core): the machine's zone",
    ("base/src/toolspecs/base/times.py", "wall_clock"): "a loader alone (no toolspecs-core): "
    "the abbreviation of a zone with no IANA name (core passes its own clock)",
    ("server/src/toolspecs/server/oauth.py", "verify_token"): "an introspected token's exp and "
    "nbf are the authorization server's real time: a pinned clock would accept expired ones",
    ("server/src/toolspecs/server/answers.py", "keep"): "an introspected token's exp is the "
    "authorization server's real time: kept answers must not outlive it",
}
CLOCK_CALLS = {"now", "today", "utcnow", "time", "time_ns"}


def _reads(path: Path) -> list[tuple[str, int]]:
    """(enclosing function, line) of every datetime.now()/date.today()/time.time() call."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = child.name
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr in CLOCK_CALLS
                and isinstance(child.func.value, ast.Name | ast.Attribute)
            ):
                owner = ast.unparse(child.func.value)
                if owner.split(".")[-1] in ("datetime", "date", "time"):
                    found.append((name, child.lineno))
            visit(child, name)

    visit(tree, "<module>")
    return found


def test_the_sources_are_scanned():
    assert len(SOURCES) > 50
    assert _reads(ROOT / "core/src/toolspecs/core/clock.py")  # the seam is found


def test_only_the_clock_seam_and_listed_places_read_the_wall_clock():
    unexpected = []
    for path in SOURCES:
        relative = path.relative_to(ROOT).as_posix()
        for function, line in _reads(path):
            if (relative, function) not in ALLOWED:
                unexpected.append(f"{relative}:{line} in {function}()")
    assert not unexpected, (
        "read the time through toolspecs.core.clock.now() (tests pin it), or list the "
        f"place in ALLOWED with why it must be the real clock: {unexpected}"
    )
