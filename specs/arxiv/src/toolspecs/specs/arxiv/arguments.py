"""The arXiv tools' arguments as an agent writes them (authors, categories, ids, sections)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from toolspecs.loaders.arxiv import parse_id
from toolspecs.specs.arxiv import guidance

if TYPE_CHECKING:
    from toolspecs.loaders.arxiv.outline import Heading


def authors(text: str | None) -> list[str]:
    """The names in ``'Hinton, LeCun'``, ``'Hinton; LeCun'`` or ``'Hinton and LeCun'``."""
    return [name for name in re.split(r"[;,]|\s+and\s+", text or "") if name.split()]


def categories(text: str) -> list[str]:
    """The category codes ``text`` names (``'cs.CL, cs.LG'``, ``'Machine Learning'``)."""
    from toolspecs.loaders.arxiv import close_categories, find_category

    codes: list[str] = []
    for part in re.split(r"[,;|]|\s+or\s+", text):
        if not part.split():
            continue
        found = find_category(part)
        if not found:
            raise guidance.not_a_category(part, close_categories(part))
        codes.extend(code for code in found if code not in codes)
    return codes


def paper_ids(given: Iterable[str]) -> tuple[list[str], list[str]]:
    """The ids in ``given`` (each item may hold several), once each; and the parts that are none."""
    wanted: list[str] = []
    bad: list[str] = []
    for item in given:
        for part in re.split(r"[\s,;]+", str(item).strip()):
            clean = parse_id(part) if part else None
            if clean is None and part:
                bad.append(part)
            elif clean and clean not in wanted:
                wanted.append(clean)
    return wanted, bad


def match_section(wanted: str, found: Sequence[Heading]) -> tuple[int, list[int]] | None:
    """The heading ``wanted`` names (number, title, words, spelling), and others as good."""
    import difflib  # here: not loaded with the spec (see tests/test_lazy_imports.py)

    key = re.sub(r"^(?:section|sec\.?|§)\s*", "", wanted.lower()).strip().rstrip(".")
    if re.fullmatch(r"\d+(?:\.\d+)*|[a-z]", key):
        hits = [i for i, h in enumerate(found) if h.number.lower() == key]
        if hits:
            return hits[0], hits[1:]
    names = [h.name.lower() for h in found]
    titles = [h.title.lower() for h in found]
    tests: list[Callable[[int], bool]] = [
        lambda i: key in (names[i], titles[i]),
        lambda i: names[i].startswith(key) or titles[i].startswith(key),
        lambda i: key in titles[i],
        lambda i: all(word in titles[i] for word in key.split()),
    ]
    for test in tests:
        hits = [i for i in range(len(found)) if test(i)]
        if hits:
            return hits[0], hits[1:]
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.6)
    if close:
        hits = [names.index(name) for name in close]
        return hits[0], hits[1:]
    return None
