"""Times as the Documents show them: weekday, date, time, UTC offset and zone name.

``Saturday 2026-11-21 16:00 -05:00 (America/New_York)``: every time a Document carries
says which day it is and how far from UTC, so a reader (or an agent) never has to guess.
This loader keeps its own few lines for it (the same text as toolspecs-core's clock
writes) so that it stands alone.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def timezone_named(name: str) -> dt.tzinfo:
    """The IANA timezone ``name`` (``"UTC"``, ``"Z"`` and ``"GMT"`` are UTC).

    Raises:
        ValueError: When ``name`` is not a timezone this machine knows.
    """
    cleaned = name.strip()
    if cleaned.upper() in ("UTC", "Z", "GMT"):
        return ZoneInfo("UTC")
    try:
        if len(cleaned) > 64:  # IANA names are about 30 characters at most
            raise ValueError(cleaned)
        return ZoneInfo(cleaned)
    # OSError: a name that is a directory of the database ("America") or too long a path.
    except (ZoneInfoNotFoundError, ValueError, OSError):
        shown = repr(name) if len(name) <= 80 else repr(name[:60]) + "…"
        raise ValueError(
            f"timezone {shown} is not an IANA timezone name; use one such as "
            "'America/New_York', 'Europe/Paris' or 'UTC'"
        ) from None


def local_timezone() -> dt.tzinfo:
    """This machine's timezone."""
    return dt.datetime.now().astimezone().tzinfo or dt.timezone.utc


def timezone_name(tz: dt.tzinfo) -> str:
    """The IANA name of ``tz`` where it has one, else its abbreviation."""
    key = getattr(tz, "key", None)
    if isinstance(key, str):
        return key
    return dt.datetime.now(tz).tzname() or "UTC"


def format_offset(moment: dt.datetime) -> str:
    """``-05:00`` for a moment five hours behind UTC."""
    offset = moment.utcoffset() or dt.timedelta(0)
    sign = "-" if offset < dt.timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def format_datetime(moment: dt.datetime, tz: dt.tzinfo | None = None) -> str:
    """``Saturday 2026-11-21 16:00 -05:00 (America/New_York)``.

    Args:
        moment: An aware datetime (a naive one is taken to be in ``tz``, else local time).
        tz: The timezone to show it in; default the moment's own.
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=tz or local_timezone())
    elif tz is not None:
        moment = moment.astimezone(tz)
    zone = timezone_name(moment.tzinfo) if moment.tzinfo else "UTC"
    # isoformat(), not %Y: strftime writes the year 1 as "1" on some platforms.
    shown = f"{moment:%A} {moment.date().isoformat()} {moment:%H:%M} {format_offset(moment)}"
    # A bare offset (an email's Date header) has no zone name worth repeating.
    return shown if zone.startswith(("UTC+", "UTC-")) else f"{shown} ({zone})"


def format_date(day: dt.date) -> str:
    """A date with its weekday: ``Saturday 2026-11-21``."""
    return f"{day:%A} {day.isoformat()}"
