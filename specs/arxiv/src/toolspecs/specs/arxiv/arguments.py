"""The arXiv tools' arguments as an agent writes them (authors, categories, ids, sections).

Submission dates are read as the periods they name, in GMT: ``"2024"`` is a year,
``"March 2024"`` a month, ``"yesterday"`` a day, ``"last year"`` the calendar period, an
ISO time a minute; ``"2023 to 2024-06"`` is January 2023 to June 2024.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from toolspecs.core import FixArguments, clock
from toolspecs.core.bounds import shown
from toolspecs.loaders.arxiv import CATEGORIES, close_categories, find_category, parse_id

if TYPE_CHECKING:
    from toolspecs.loaders.arxiv.reader import Heading


def authors(text: str | None) -> list[str]:
    """The names in ``'Hinton, LeCun'``, ``'Hinton; LeCun'`` or ``'Hinton and LeCun'``."""
    return [name for name in re.split(r"[;,]|\s+and\s+", text or "") if name.split()]


def categories(text: str) -> list[str]:
    """The category codes ``text`` names (``'cs.CL, cs.LG'``, ``'Machine Learning'``)."""
    codes: list[str] = []
    for part in re.split(r"[,;|]|\s+or\s+", text):
        if not part.split():
            continue
        found = find_category(part)
        if not found:
            raise _not_a_category(part, close_categories(part))
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


UTC = dt.timezone.utc
ARXIV_START = dt.datetime(1991, 8, 1, tzinfo=UTC)
"""arXiv's first day: the start of a range "before" a date."""
_YEAR = re.compile(r"(\d{4})")
_MONTH = re.compile(r"(\d{4})[-/.](\d{1,2})")
_CALENDAR = re.compile(r"(last|previous|past|this|current)\s+(year|month)")
_NAMES = [
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
]  # fmt: skip
_NAMED = re.compile(r"([a-z]{3,9})\.?,?\s+(\d{4})|(\d{4}),?\s+([a-z]{3,9})\.?")
_EXAMPLE = "Send '2024', '2024-03', '2024-03-05', 'last year' or 'this month'."


def _month_named(match: re.Match[str]) -> int | None:
    word = match.group(1) or match.group(4)
    found = [n for n, name in enumerate(_NAMES, 1) if name.startswith(word)]
    return found[0] if len(found) == 1 else None


def _month_after(year: int, month: int) -> dt.datetime:
    return dt.datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)


def period(text: str, now: dt.datetime | None = None) -> tuple[dt.datetime, dt.datetime]:
    """The period ``text`` names, as its first minute and the minute after its end (GMT)."""
    now = (now or clock.now(UTC)).astimezone(UTC)
    cleaned = " ".join(text.lower().split())
    if match := _YEAR.fullmatch(cleaned):
        year = int(match.group(1))
        return dt.datetime(year, 1, 1, tzinfo=UTC), dt.datetime(year + 1, 1, 1, tzinfo=UTC)
    if match := _MONTH.fullmatch(cleaned):
        year, month = int(match.group(1)), int(match.group(2))
        if not 1 <= month <= 12:
            raise FixArguments(f"The date {shown(text)} has no month {month}.", _EXAMPLE)
        return dt.datetime(year, month, 1, tzinfo=UTC), _month_after(year, month)
    if (match := _NAMED.fullmatch(cleaned)) and (named := _month_named(match)):
        year = int(match.group(2) or match.group(3))
        return dt.datetime(year, named, 1, tzinfo=UTC), _month_after(year, named)
    if match := _CALENDAR.fullmatch(cleaned):
        back = 0 if match.group(1) in ("this", "current") else 1
        if match.group(2) == "year":
            year = now.year - back
            return dt.datetime(year, 1, 1, tzinfo=UTC), dt.datetime(year + 1, 1, 1, tzinfo=UTC)
        year, month = divmod(now.year * 12 + now.month - 1 - back, 12)
        return dt.datetime(year, month + 1, 1, tzinfo=UTC), _month_after(year, month + 1)
    try:
        moment = clock.parse_datetime(text, UTC, relative_to=now)
    except clock.UnreadableTime as exc:
        raise FixArguments(f"The date {shown(text)} {exc.problem}.", _EXAMPLE) from exc
    has_time = "t" in cleaned[8:11] or ":" in cleaned
    if has_time:
        minute = moment.astimezone(UTC).replace(second=0, microsecond=0)
        return minute, minute + dt.timedelta(minutes=1)
    day = dt.datetime.combine(moment.date(), dt.time(), tzinfo=UTC)
    return day, day + dt.timedelta(days=1)


# "2023 to 2024", "2023-01..2024-06", "2023 - 2024" (spaces around a dash: ISO has none).
_RANGE = re.compile(r"\s*(?:\.\.|\s(?:to|until|till|through|-|\u2013)\s)\s*")
_OPEN = re.compile(r"(since|after|from|before|until|till|up to|to)\s+(.+)")


def submitted_range(
    text: str | None, now: dt.datetime | None = None
) -> tuple[dt.datetime, dt.datetime] | None:
    """The first and last minute (GMT) of the submission dates ``text`` names; ``None`` if empty.

    ``since 2024`` (or ``after 2023``) runs to now, ``before 2024`` (or ``until 2023``)
    from arXiv's start.
    """
    cleaned = " ".join((text or "").split())
    if not cleaned:
        return None
    now = (now or clock.now(UTC)).astimezone(UTC)
    parts = _RANGE.split(cleaned, maxsplit=1)
    opened = _OPEN.fullmatch(cleaned.lower()) if len(parts) == 1 else None
    if opened:
        word, rest = opened.groups()
        start, end = period(rest, now)
        if word in ("since", "from", "after"):  # after 2020: from 2021
            first, last = (end if word == "after" else start), now
        else:  # before 2020: to the end of 2019; until 2020: to the end of 2020
            first, last = ARXIV_START, (start if word == "before" else end)
    elif len(parts) == 2:
        first, last = period(parts[0], now)[0], period(parts[1], now)[1]
    else:
        first, last = period(cleaned, now)
    last = min(last, now) - dt.timedelta(minutes=1)  # the minute after, made inclusive
    if last < first:
        raise FixArguments(
            f"The dates {shown(cleaned)} end before they start.",
            "Send the earlier date first ('2023 to 2024'), or one period ('2024').",
        )
    return first, last


def _not_a_category(part: str, close: Sequence[str]) -> FixArguments:
    """A category that names none of arXiv's, with the ``close`` codes listed."""
    listed = ", ".join(f"{code} ({CATEGORIES[code]})" for code in close)
    return FixArguments(
        f"{shown(part.strip())} is not an arXiv category."
        + (f" Close ones: {listed}." if listed else ""),
        "Send a category code such as 'cs.CL' or 'hep-th' "
        "(https://arxiv.org/category_taxonomy), or leave category out.",
    )
