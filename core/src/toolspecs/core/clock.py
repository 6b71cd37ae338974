"""Time as the user lives it: timezones, natural-language dates, and how times are shown.

Every time an agent reads carries its weekday and UTC offset
(``Saturday 2026-11-21 16:00 -05:00 (America/New_York)``), and every time it sends
without an offset is read in the spec's timezone, never the server's.
"""

from __future__ import annotations

import datetime as dt
import os
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import dateparser

from toolspecs.core.errors import ConfigurationError, FixArguments

TIMEZONE_ENV = "TOOLSPECS_TIMEZONE"


def resolve_timezone(name: str | dt.tzinfo | None = None) -> dt.tzinfo:
    """The timezone named ``name``; without one, ``$TOOLSPECS_TIMEZONE``, else the system's.

    Args:
        name: An IANA name such as ``"Europe/Paris"``, ``"UTC"``, or a ``tzinfo``.

    Returns:
        The timezone.

    Raises:
        FixArguments: When the name is not an IANA timezone.
    """
    if isinstance(name, dt.tzinfo):
        return name
    name = (name or os.environ.get(TIMEZONE_ENV) or "").strip()
    if not name:
        local = dt.datetime.now().astimezone().tzinfo
        return local if local is not None else dt.timezone.utc
    if name.upper() in ("UTC", "Z", "GMT"):
        return ZoneInfo("UTC")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise FixArguments(
            f"{name!r} is not a timezone name I know.",
            "Use an IANA name such as 'America/New_York', 'Europe/Paris' or 'UTC'.",
        ) from None


def timezone_setting(name: str | dt.tzinfo | None) -> dt.tzinfo:
    """A spec's ``timezone=`` setting, checked when the spec is built (for the person).

    Args:
        name: An IANA name such as ``"Europe/Paris"``, ``"UTC"``, or a ``tzinfo``; ``None``
            or ``""`` means ``$TOOLSPECS_TIMEZONE``, else the system's.

    Returns:
        The timezone.

    Raises:
        ConfigurationError: When the name is not an IANA timezone.
    """
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
    """The IANA name of ``tz`` where it has one, else its abbreviation."""
    key = getattr(tz, "key", None)
    if isinstance(key, str):
        return key
    return dt.datetime.now(tz).tzname() or "UTC"


def now(tz: dt.tzinfo | None = None) -> dt.datetime:
    """The current time, aware, in ``tz`` (the spec's timezone)."""
    return dt.datetime.now(tz or resolve_timezone())


def format_offset(moment: dt.datetime) -> str:
    """``-05:00`` for a moment five hours behind UTC."""
    offset = moment.utcoffset() or dt.timedelta(0)
    sign = "-" if offset < dt.timedelta(0) else "+"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def format_datetime(moment: dt.datetime, tz: dt.tzinfo | None = None) -> str:
    """A time as the agent should read it: weekday, date, time, offset and zone.

    Args:
        moment: An aware datetime (a naive one is taken to be in ``tz``).
        tz: The timezone to show it in; defaults to the moment's own.

    Returns:
        Text such as ``Saturday 2026-11-21 16:00 -05:00 (America/New_York)``.
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=tz or resolve_timezone())
    elif tz is not None:
        moment = moment.astimezone(tz)
    zone = timezone_name(moment.tzinfo) if moment.tzinfo else "UTC"
    shown = f"{moment:%A %Y-%m-%d %H:%M} {format_offset(moment)}"
    # A bare offset (an email's Date header) has no zone name worth repeating.
    return shown if zone.startswith(("UTC+", "UTC-")) else f"{shown} ({zone})"


def format_date(day: dt.date) -> str:
    """A date with its weekday: ``Saturday 2026-11-21``."""
    return f"{day:%A %Y-%m-%d}"


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
    """Read a time the way an agent writes it, in the spec's timezone.

    ISO 8601 with ``Z`` or an offset keeps that offset; a naive ISO time and
    natural language (``"tomorrow 4pm"``, ``"next Friday"``) are read in ``tz``,
    relative to ``relative_to`` (default: now).

    Args:
        text: The time as sent.
        tz: The timezone for naive and relative times.
        relative_to: What "now" is for relative times.

    Returns:
        An aware datetime.

    Raises:
        FixArguments: When the text is not a time.
    """
    tz = tz or resolve_timezone()
    cleaned = text.strip()
    if not cleaned:
        raise FixArguments("The time is empty.", "Send a time such as '2026-11-21T16:00'.")
    iso = _parse_iso(cleaned)
    if iso is not None:
        return iso if iso.tzinfo is not None else iso.replace(tzinfo=tz)
    base = (relative_to or now(tz)).astimezone(tz).replace(tzinfo=None)
    try:
        parsed = dateparser.parse(
            cleaned,
            settings={
                "TIMEZONE": timezone_name(tz),
                # Naive in ``tz``; attaching ``tz`` ourselves gives the offset of that
                # date (dateparser would give today's, wrong across a DST change).
                "RETURN_AS_TIMEZONE_AWARE": False,
                "RELATIVE_BASE": base,
                "PREFER_DATES_FROM": "future",
            },
        )
    except (ValueError, OverflowError):  # dateparser's way of saying "not a date" on odd input
        parsed = None
    if parsed is None:
        raise FixArguments(
            f"I could not read {text!r} as a date or time.",
            "Send ISO 8601 such as '2026-11-21T16:00' or plain words such as 'tomorrow 4pm'.",
        )
    return parsed.replace(tzinfo=tz) if parsed.tzinfo is None else parsed.astimezone(tz)


def parse_date(
    text: str, tz: dt.tzinfo | None = None, relative_to: dt.datetime | None = None
) -> dt.date:
    """Read a date (``"2026-11-21"``, ``"next Friday"``) in the spec's timezone.

    Args:
        text: The date as sent.
        tz: The timezone that decides what "today" is.
        relative_to: What "now" is for relative dates.

    Returns:
        The date.
    """
    cleaned = text.strip()
    try:
        return dt.date.fromisoformat(cleaned)
    except ValueError:
        pass
    moment = parse_datetime(cleaned, tz, relative_to)
    return moment.astimezone(tz).date() if tz else moment.date()


def _parse_iso(text: str) -> dt.datetime | None:
    candidate = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    try:
        return dt.datetime.fromisoformat(candidate)
    except ValueError:
        return None
