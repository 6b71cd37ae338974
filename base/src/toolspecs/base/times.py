"""Times as people read them: ``Saturday 2026-11-21 16:00 -05:00 (America/New_York)``.

One writing for the whole workspace (core's clock and the Google loader's Documents);
"now" and the local zone are the caller's to say (core passes its own).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = [
    "MAX_ZONE_NAME",
    "format_date",
    "format_datetime",
    "format_offset",
    "local_timezone",
    "timezone_name",
    "timezone_named",
    "wall_clock",
]

MAX_ZONE_NAME = 64
"""IANA names are at most about 30 characters; a longer one is not looked up as a file."""

Clock = Callable[[dt.tzinfo], dt.datetime]
"""The current time in a timezone, aware: :func:`wall_clock`, or a caller's own."""


def wall_clock(tz: dt.tzinfo) -> dt.datetime:
    """The real current time in ``tz``."""
    return dt.datetime.now(tz)


def local_timezone() -> dt.tzinfo:
    """This machine's timezone (today's offset)."""
    return dt.datetime.now().astimezone().tzinfo or dt.timezone.utc


def timezone_named(name: str) -> dt.tzinfo:
    """The IANA timezone ``name`` (``"UTC"``, ``"Z"``, ``"GMT"`` are UTC), else ``ValueError``."""
    cleaned = name.strip()
    if cleaned.upper() in ("UTC", "Z", "GMT"):
        return ZoneInfo("UTC")
    try:
        if len(cleaned) > MAX_ZONE_NAME:
            raise ValueError(cleaned)
        return ZoneInfo(cleaned)
    # OSError: a name that is a directory of the database ("America") or too long a path.
    except (ZoneInfoNotFoundError, ValueError, OSError):
        shown = repr(name) if len(name) <= 80 else repr(name[:60]) + "…"
        raise ValueError(
            f"timezone {shown} is not an IANA timezone name; use one such as "
            "'America/New_York', 'Europe/Paris' or 'UTC'"
        ) from None


def timezone_name(tz: dt.tzinfo, clock: Clock = wall_clock) -> str:
    """The IANA name of ``tz`` where it has one, else its abbreviation now (by ``clock``)."""
    key = getattr(tz, "key", None)
    if isinstance(key, str):
        return key
    return clock(tz).tzname() or "UTC"


def format_offset(moment: dt.datetime) -> str:
    """``-05:00`` for a moment five hours behind UTC."""
    offset = moment.utcoffset() or dt.timedelta(0)
    sign = "-" if offset < dt.timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def format_datetime(
    moment: dt.datetime,
    tz: dt.tzinfo | None = None,
    *,
    local: Callable[[], dt.tzinfo] = local_timezone,
    clock: Clock = wall_clock,
) -> str:
    """``Saturday 2026-11-21 16:00 -05:00 (America/New_York)``; naive in ``tz`` or ``local()``."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=tz or local())
    elif tz is not None:
        moment = moment.astimezone(tz)
    zone = timezone_name(moment.tzinfo, clock) if moment.tzinfo else "UTC"
    # isoformat(), not %Y: strftime writes the year 1 as "1" on some platforms.
    shown = f"{moment:%A} {moment.date().isoformat()} {moment:%H:%M} {format_offset(moment)}"
    # A bare offset (an email's Date header) has no zone name worth repeating.
    return shown if zone.startswith(("UTC+", "UTC-")) else f"{shown} ({zone})"


def format_date(day: dt.date) -> str:
    """A date with its weekday: ``Saturday 2026-11-21``."""
    return f"{day:%A} {day.isoformat()}"
