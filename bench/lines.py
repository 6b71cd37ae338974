"""Library source lines, as issue 39 counts them, at one or more git revisions.

Run from the checkout:

    uv run --frozen python bench/lines.py [REV ...]     # default: HEAD

The library is the ``src/`` trees of base, core, server, the loaders and the specs: the
Python files git tracks there, shipped fakes aside (a path naming ``testing``, ``sandbox``
or ``fake``). ``toolspecs-evals`` is counted apart: it came after the issue (a feature of
its own, not one of "the same features"). Each revision is read from git, not the working
tree, so two revisions are counted the same way in one run. Lines are split into
docstrings, comments, blank lines and code (the rest).
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
from collections import Counter

LIBRARY = re.compile(r"^(base|core|server|loaders/[^/]+|specs/[^/]+)/src/.*\.py$")
EVALS = re.compile(r"^evals/src/.*\.py$")
FAKES = re.compile(r"testing|sandbox|fake")


def git(*args: str) -> str:
    """A git command's output."""
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def kinds(source: str) -> Counter[str]:
    """The lines of one module by kind: docstring, comment, blank, code."""
    lines = source.splitlines()
    doc: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                doc.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    counted: Counter[str] = Counter(lines=len(lines))
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if number in doc:
            counted["docstring"] += 1
        elif not stripped:
            counted["blank"] += 1
        elif stripped.startswith("#"):
            counted["comment"] += 1
        else:
            counted["code"] += 1
    return counted


def count(rev: str) -> tuple[Counter[str], Counter[str], dict[str, int]]:
    """The library's lines at ``rev`` by kind, the evals' by kind, and lines by member."""
    library: Counter[str] = Counter()
    evals: Counter[str] = Counter()
    members: Counter[str] = Counter()
    for path in git("ls-tree", "-r", "--name-only", rev).splitlines():
        if FAKES.search(path):
            continue
        if LIBRARY.match(path):
            counted = kinds(git("show", f"{rev}:{path}"))
            library.update(counted)
            library["modules"] += 1
            members[path.split("/src/")[0]] += counted["lines"]
        elif EVALS.match(path):
            evals.update(kinds(git("show", f"{rev}:{path}")))
    return library, evals, dict(members)


def main() -> None:
    """Print the counts of each revision given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revs", nargs="*", default=["HEAD"])
    revs = parser.parse_args().revs
    counted = {rev: count(rev) for rev in revs}
    columns = ("lines", "code", "docstring", "blank", "comment", "modules")
    print(f"{'library (fakes aside)':24}" + "".join(f"{rev[:12]:>14}" for rev in revs))
    for column in columns:
        print(f"  {column:22}" + "".join(f"{counted[r][0][column]:>14,}" for r in revs))
    print(f"{'evals (apart)':24}" + "".join(f"{counted[r][1]['lines']:>14,}" for r in revs))
    print("by member")
    members = sorted({m for r in revs for m in counted[r][2]})
    for member in members:
        print(f"  {member:22}" + "".join(f"{counted[r][2].get(member, 0):>14,}" for r in revs))


if __name__ == "__main__":
    main()
