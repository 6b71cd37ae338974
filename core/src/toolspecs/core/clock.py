"""Time as the user lives it: timezones, natural-language dates, and how times are shown.

Every time an agent sends without an offset is read in the spec's timezone, never the
server's. What it sends is bounded before it is read (length, words of a date, a parse
time limit, years :data:`FIRST_YEAR` to :data:`LAST_YEAR`, far from where Python's dates
overflow). "Now" has one source, :func:`now`: the wall clock, unless ``$TOOLSPECS_NOW``
pins it to an instant (as ``SOURCE_DATE_EPOCH`` pins a reproducible build's time).
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import re
import sys
import threading
from typing import Any, TypeVar
from zoneinfo import ZoneInfoNotFoundError

from toolspecs.base import times
from toolspecs.base.times import format_date, format_offset
from toolspecs.core import deadline
from toolspecs.core.bounds import shown
from toolspecs.core.errors import ConfigurationError, FixArguments
from toolspecs.core.fence import clean

TIMEZONE_ENV = "TOOLSPECS_TIMEZONE"
NOW_ENV = "TOOLSPECS_NOW"
FIRST_YEAR = 1900
LAST_YEAR = 2200
MAX_TIME_TEXT = 120
# dateparser takes seconds on some odd text, and its first call loads its language data.
PARSE_SECONDS = 5.0
ISO_EXAMPLE = "Send ISO 8601 such as '2026-11-21T16:00' or words such as 'tomorrow 4pm'."
_When = TypeVar("_When", bound=dt.date)


# Compiled on first use: the Unicode classes cost about 1 ms, and only non-ISO text needs them.
@functools.cache
def _wordy() -> re.Pattern[str]:
    # A word of three letters ("now", "Friday") or a CJK/kana/hangul character ("明天").
    return re.compile(r"[^\W\d_]{3,}|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


@functools.cache
def _numeric_time() -> re.Pattern[str]:
    # Numbers that say a date or a time without words: 12/25, 2026.11.21, 16:00, 4pm.
    return re.compile(r"\d\s*[-/.:]\s*\d|\d\s*[ap]\.?m\b", re.I)


class UnreadableTime(FixArguments):
    """A time or date an agent sent that cannot be read; ``problem`` says why."""

    def __init__(self, text: str, problem: str) -> None:
        self.problem = problem
        super().__init__(f"{shown(text)} {problem}.", ISO_EXAMPLE)


def resolve_timezone(name: str | dt.tzinfo | None = None) -> dt.tzinfo:
    """The timezone named ``name``; without one, ``$TOOLSPECS_TIMEZONE``, else the system's."""
    if isinstance(name, dt.tzinfo):
        return name
    name = (name or os.environ.get(TIMEZONE_ENV) or "").strip()
    if not name:
        return system_timezone()
    try:
        return times.timezone_named(name)
    except ValueError:
        raise FixArguments(
            f"{shown(name)} is not a timezone name I know.",
            "Use an IANA name such as 'America/New_York', 'Europe/Paris' or 'UTC'.",
        ) from None


def system_timezone() -> dt.tzinfo:
    """This machine's IANA timezone ($TZ, /etc/localtime), so each day gets its own offset."""
    named = os.environ.get("TZ", "").strip().removeprefix(":")
    try:
        if not named:
            import tzlocal  # dateparser's own dependency; imported when no zone is set

            return tzlocal.get_localzone()  # /etc/localtime (tzlocal caches it)
        return resolve_timezone(named)
    # A POSIX rule ("EST5EDT,M3.2.0,M11.1.0"), a path, a zone the system names badly:
    # today's offset is all there is.
    except (FixArguments, ZoneInfoNotFoundError, ValueError, OSError):
        return dt.datetime.now().astimezone().tzinfo or dt.timezone.utc


def timezone_setting(name: str | dt.tzinfo | None) -> dt.tzinfo:
    """A spec's ``timezone=`` setting; a bad name raises ``ConfigurationError``."""
    try:
        return resolve_timezone(name)
    except FixArguments:
        if isinstance(name, str) and name.strip():
            setting = f"timezone={name!r}"
        else:
            setting = f"{TIMEZONE_ENV}={os.environ.get(TIMEZONE_ENV, '')!r}"
        raise ConfigurationError(
            f"{setting} is not an IANA timezone name; "
            "set it to one such as 'America/New_York', 'Europe/Paris' or 'UTC'"
        ) from None


def timezone_name(tz: dt.tzinfo) -> str:
    """The IANA name of ``tz`` where it has one, else its abbreviation (now, by :func:`now`)."""
    return times.timezone_name(tz, now)


def now(tz: dt.tzinfo | None = None) -> dt.datetime:
    """The current time, aware, in ``tz``; ``$TOOLSPECS_NOW`` pins it."""
    tz = tz or resolve_timezone()
    pinned = _pinned(os.environ.get(NOW_ENV, ""))
    return dt.datetime.now(tz) if pinned is None else pinned.astimezone(tz)


@functools.lru_cache(maxsize=4)
def _pinned(text: str) -> dt.datetime | None:
    if not text.strip():
        return None
    moment = _parse_iso(text.strip())
    if moment is None or moment.tzinfo is None:
        raise ConfigurationError(
            f"{NOW_ENV}={text[:80]!r} is not an instant; set it to ISO 8601 with an offset "
            "such as '2026-11-23T10:00:00-05:00', or unset it to use the real clock"
        )
    return moment


def format_datetime(moment: dt.datetime, tz: dt.tzinfo | None = None) -> str:
    """A time as the agent reads it: ``Saturday 2026-11-21 16:00 -05:00 (America/New_York)``."""
    return times.format_datetime(moment, tz, local=resolve_timezone, clock=now)


def describe_now(tz: dt.tzinfo | None = None) -> str:
    """What ``get_date`` tells the agent: date, weekday, time and timezone with offset."""
    moment = now(tz)
    zone = timezone_name(moment.tzinfo) if moment.tzinfo else "UTC"
    return (
        f"Today is {moment:%A}, {moment:%Y-%m-%d}. "
        f"The time is {moment:%H:%M} in {zone} (UTC{format_offset(moment)}). "
        f"Tomorrow is {format_date(moment.date() + dt.timedelta(days=1))}."
    )


def parse_datetime(
    text: str, tz: dt.tzinfo | None = None, relative_to: dt.datetime | None = None
) -> dt.datetime:
    """Read a time as an agent writes it; naive ISO and words (``"tomorrow 4pm"``) in ``tz``.

    Raises:
        UnreadableTime: When the text is not a time.
    """
    tz = tz or resolve_timezone()
    if len(text) > MAX_TIME_TEXT:
        raise UnreadableTime(text, f"is longer than {MAX_TIME_TEXT} characters")
    cleaned = clean(text).strip()  # zero-width and direction marks are not part of a date
    # A bare run of digits is no date (Python's ISO reader takes "1111…" as the year 1111),
    # but for ISO's basic form 20261121.
    if cleaned.isdigit() and len(cleaned) != 8:
        raise UnreadableTime(text, "is not a date or time")
    iso = _parse_iso(cleaned)
    if iso is not None:
        return in_range(iso if iso.tzinfo is not None else iso.replace(tzinfo=tz), text)
    if not (_wordy().search(cleaned) or _numeric_time().search(cleaned)):
        # Numbers and short words alone ("1 1", "in 1", "a1"), or no words at all, are no
        # date: dateparser would still make one up.
        raise UnreadableTime(text, "is not a date or time")
    base = (relative_to or now(tz)).astimezone(tz).replace(tzinfo=None)
    parsed = _natural(
        text,
        cleaned,
        {
            "TIMEZONE": timezone_name(tz),
            # Naive in ``tz``; attaching ``tz`` ourselves gives the offset of that
            # date (dateparser would give today's, wrong across a DST change).
            "RETURN_AS_TIMEZONE_AWARE": False,
            "RELATIVE_BASE": base,
            "PREFER_DATES_FROM": "future",
        },
    )
    if parsed is None:
        raise UnreadableTime(text, "is not a date or time")
    if parsed.tzinfo is None:
        return in_range(parsed.replace(tzinfo=tz), text)
    in_range(parsed, text)  # before converting: far years overflow
    return parsed.astimezone(tz)


def in_range(moment: _When, text: object = None) -> _When:
    """``moment`` when its year is :data:`FIRST_YEAR` to :data:`LAST_YEAR`."""
    if not FIRST_YEAR <= moment.year <= LAST_YEAR:
        raise UnreadableTime(
            str(moment) if text is None else str(text),
            f"is outside the years {FIRST_YEAR} to {LAST_YEAR} that dates may be in",
        )
    return moment


def _natural(text: str, cleaned: str, settings: dict[str, Any]) -> dt.datetime | None:
    # dateparser cannot be interrupted: it runs in a daemon thread left to finish when late.
    # Imported here (30 ms) in the caller's thread, outside the parse's time limit.
    import dateparser

    limit = min(PARSE_SECONDS, deadline.remaining(default=PARSE_SECONDS) or 0.0)
    outcome: list[Any] = []
    done = threading.Event()

    def work() -> None:
        try:
            outcome.append(dateparser.parse(cleaned, settings=settings))
        except (ValueError, OverflowError):  # dateparser's "not a date" on odd input
            outcome.append(None)
        except Exception as exc:  # re-raised in the caller's thread
            outcome.append(exc)
        finally:
            done.set()

    threading.Thread(target=work, name="toolspecs-dateparser", daemon=True).start()
    if not done.wait(limit):
        raise UnreadableTime(text, f"could not be read as a date within {limit:.3g} s")
    found = outcome[0]
    if isinstance(found, Exception):
        raise found
    return found if isinstance(found, dt.datetime) else None


def parse_date(
    text: str, tz: dt.tzinfo | None = None, relative_to: dt.datetime | None = None
) -> dt.date:
    """Read a date (``"2026-11-21"``, ``"next Friday"``) in the spec's timezone."""
    cleaned = text.strip()
    try:
        day = dt.date.fromisoformat(cleaned) if len(cleaned) <= MAX_TIME_TEXT else None
    except ValueError:
        day = None
    if day is not None:
        return in_range(day, text)
    moment = parse_datetime(text, tz, relative_to)
    return moment.astimezone(tz).date() if tz else moment.date()


if sys.version_info >= (3, 11):
    _fromisoformat = dt.datetime.fromisoformat
else:
    # Python 3.10 reads only ISO's extended form; the backport is 3.11's reader, so an
    # agent's "20261121" or "20261121T1600" reads the same on every Python we support.
    from backports.datetime_fromisoformat import datetime_fromisoformat

    def _fromisoformat(text: str) -> dt.datetime:
        moment: dt.datetime = datetime_fromisoformat(text)
        offset = moment.utcoffset()  # the backport's own offset class, as the stdlib's
        return moment if offset is None else moment.replace(tzinfo=dt.timezone(offset))


def _parse_iso(text: str) -> dt.datetime | None:
    candidate = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    try:
        return _fromisoformat(candidate)
    except ValueError:
        return None
