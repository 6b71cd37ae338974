"""Recurrence as agents write it: an RRULE, or plain words such as 'every Monday until Dec 31'."""

from __future__ import annotations

import datetime as dt
import re

from toolspecs.core import FixArguments, parse_datetime

_DAYS = {
    "monday": "MO", "tuesday": "TU", "wednesday": "WE", "thursday": "TH",
    "friday": "FR", "saturday": "SA", "sunday": "SU",
    "mon": "MO", "tue": "TU", "tues": "TU", "wed": "WE", "thu": "TH", "thur": "TH",
    "thurs": "TH", "fri": "FR", "sat": "SA", "sun": "SU",
}  # fmt: skip
_FREQ = {
    "daily": "DAILY", "day": "DAILY", "days": "DAILY",
    "weekly": "WEEKLY", "week": "WEEKLY", "weeks": "WEEKLY",
    "monthly": "MONTHLY", "month": "MONTHLY", "months": "MONTHLY",
    "yearly": "YEARLY", "annually": "YEARLY", "year": "YEARLY", "years": "YEARLY",
}  # fmt: skip
EXAMPLE = "'RRULE:FREQ=WEEKLY;BYDAY=MO' or words such as 'every Monday until 2026-12-31'"


def to_rrule(text: str, tz: dt.tzinfo) -> list[str]:
    """The ``recurrence`` list for the Calendar API.

    Args:
        text: ``"RRULE:..."`` (one or more, separated by newlines or ';;'), or words:
            'daily', 'every weekday', 'every 2 weeks on Tuesday and Thursday',
            'monthly', 'every Monday for 10 times', 'weekly until Dec 31'.
        tz: The calendar's timezone, for an ``until`` date.

    Raises:
        FixArguments: When the text is neither.
    """
    cleaned = text.strip()
    if cleaned.upper().startswith(("RRULE:", "EXRULE:", "RDATE", "EXDATE")):
        return [line.strip() for line in re.split(r"\n|;;", cleaned) if line.strip()]
    if cleaned.upper().startswith("FREQ="):
        return [f"RRULE:{cleaned}"]
    words = cleaned.lower().replace(",", " ").replace(" and ", " ")
    parts: dict[str, str] = {}
    until = re.search(r"\buntil\s+(.+)$", words)
    if until:
        words = words[: until.start()]
        last_day = parse_datetime(until.group(1), tz).astimezone(tz).date()
        end = dt.datetime.combine(last_day, dt.time(23, 59, 59), tzinfo=tz)
        parts["UNTIL"] = end.astimezone(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    count = re.search(r"\b(?:for\s+)?(\d+)\s+(?:times|occurrences)\b", words)
    if count:
        parts["COUNT"] = count.group(1)
        words = words[: count.start()] + words[count.end() :]
    interval = re.search(r"\bevery\s+(\d+|other)\s+(\w+)", words)
    if interval:
        parts["INTERVAL"] = "2" if interval.group(1) == "other" else interval.group(1)
    tokens = re.findall(r"[a-z]+", words)
    days = []
    for token in tokens:
        key = token if token in _DAYS else token.rstrip("s")
        if key in _DAYS:
            days.append(_DAYS[key])
    if "weekday" in tokens or "weekdays" in tokens:
        days = ["MO", "TU", "WE", "TH", "FR"]
    freq = next((_FREQ[t] for t in tokens if t in _FREQ), None)
    if freq is None and days:
        freq = "WEEKLY"
    if freq is None:
        raise FixArguments(f"I cannot read {text!r} as a recurrence.", f"Send {EXAMPLE}.")
    rule = f"RRULE:FREQ={freq}"
    if days:
        rule += f";BYDAY={','.join(dict.fromkeys(days))}"
    for key in ("INTERVAL", "COUNT", "UNTIL"):
        if key in parts:
            rule += f";{key}={parts[key]}"
    return [rule]
