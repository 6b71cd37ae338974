"""Recurrence as agents write it: an RRULE, or plain words such as 'every Monday until Dec 31'."""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal

from toolspecs.core import FixArguments, parse_datetime
from toolspecs.core.bounds import shown
from toolspecs.core.clock import FIRST_YEAR, LAST_YEAR

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
# Bounds of a rule, ours (RFC 5545 sets none, Google documents none): an interval of
# up to 1,000 periods ('every 1000 days' is under three years), at most 730 occurrences
# (two years of a daily event, which is as far as Google's calendar expands one), and an
# end in the years a time may be in (clock.FIRST_YEAR to LAST_YEAR). Past these, Python
# cannot even expand the rule (dates past 9999: OverflowError), nor can a calendar.
MAX_INTERVAL = 1000
MAX_COUNT = 730
_UNTIL = re.compile(r"(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z?)?")


def to_rrule(text: str, tz: dt.tzinfo) -> list[str]:
    """The ``recurrence`` list for the Calendar API, from RRULEs or words ('every Monday')."""
    rules = _read(text, tz)
    for rule in rules:
        if rule.upper().startswith(("RRULE:", "EXRULE:")):
            _check_bounds(rule)
    return rules


def _read(text: str, tz: dt.tzinfo) -> list[str]:
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


def _check_bounds(rule: str) -> None:
    body = rule.split(":", 1)[1]
    parts = {
        key.strip().upper(): value.strip()
        for key, _, value in (p.partition("=") for p in body.split(";"))
    }
    if "INTERVAL" in parts and not _whole(parts["INTERVAL"], MAX_INTERVAL):
        raise FixArguments(
            f"The recurrence repeats every {shown(parts['INTERVAL'])} periods, but INTERVAL "
            f"must be a whole number from 1 to {MAX_INTERVAL}.",
            f"Send 1 to {MAX_INTERVAL} periods, e.g. 'every 2 weeks' (INTERVAL=2).",
        )
    if "COUNT" in parts and not _whole(parts["COUNT"], MAX_COUNT):
        raise FixArguments(
            f"The recurrence has {shown(parts['COUNT'])} occurrences, but COUNT must be a "
            f"whole number from 1 to {MAX_COUNT}.",
            f"Send 1 to {MAX_COUNT}, e.g. 'for 10 times' (COUNT=10); or an end date such "
            "as 'until 2027-06-30'; or no end, for a series that goes on.",
        )
    if "UNTIL" in parts and not _until(parts["UNTIL"]):
        raise FixArguments(
            f"The recurrence ends {shown(parts['UNTIL'])}, but UNTIL must be a date in the "
            f"years {FIRST_YEAR} to {LAST_YEAR}, written 20271231 or 20271231T235959Z.",
            "Send e.g. 'until 2027-12-31' (UNTIL=20271231); or no end, for a series that goes on.",
        )


def _whole(value: str, most: int) -> bool:
    return re.fullmatch(r"\d{1,9}", value) is not None and 1 <= int(value) <= most


def _until(value: str) -> bool:
    found = _UNTIL.fullmatch(value)
    if found is None:
        return False
    year, month, day, hour, minute, second = (int(n or 0) for n in found.groups())
    try:
        dt.datetime(year, month, day, hour, minute, second)
    except ValueError:  # no such day or time, such as 20270231
        return False
    return FIRST_YEAR <= year <= LAST_YEAR


# -- scopes of a change to a recurring event -----------------------------------------

Scope = Literal["this", "following", "all"]
SCOPE_EXAMPLE = "'this' (one occurrence), 'following' (this and later ones) or 'all'"


def read_scope(text: str | None) -> Scope | None:
    """The scope an agent wrote ('this', 'this and following', 'all'); ``None``: what the id names.

    Raises:
        FixArguments: When the text is none of them.
    """
    words = re.sub(r"[^a-z]+", " ", (text or "").lower()).split()
    if not words:
        return None
    joined = "".join(words)
    if any(w in ("not", "no", "nor", "never", "except", "but") for w in words):
        # "not following, only this one": which scope is meant is for the agent to say.
        raise FixArguments(
            f"scope {text!r} holds a negation, so I cannot tell which scope is meant.",
            f"Send one of {SCOPE_EXAMPLE}, without 'not'.",
        )
    if any(w in joined for w in ("follow", "future", "onward", "later", "subsequent", "after")):
        return "following"
    if any(w in words for w in ("all", "series", "every", "entire", "whole", "recurring")):
        return "all"
    if any(w in words for w in ("this", "one", "single", "occurrence", "instance", "only")):
        return "this"
    raise FixArguments(f"scope {text!r} is not one I know.", f"Send {SCOPE_EXAMPLE}.")


def end_before(recurrence: list[str], start: dt.datetime | dt.date) -> list[str]:
    """A series' ``recurrence`` ended (``UNTIL``) just before the occurrence at ``start``."""
    if isinstance(start, dt.datetime):
        last = (start.astimezone(dt.timezone.utc) - dt.timedelta(seconds=1)).strftime(
            "%Y%m%dT%H%M%SZ"
        )
    else:
        last = (start - dt.timedelta(days=1)).strftime("%Y%m%d")
    return [
        _with(line, {"UNTIL": last}, drop=("COUNT",)) if line.startswith("RRULE:") else line
        for line in recurrence
    ]


def rest_of(recurrence: list[str], before: int) -> list[str]:
    """The ``recurrence`` of a series' later part: a ``COUNT`` counts what is left."""
    out = []
    for line in recurrence:
        count = re.search(r"(?:^|;)COUNT=(\d+)", line) if line.startswith("RRULE:") else None
        if count:
            line = _with(line, {"COUNT": str(max(1, int(count.group(1)) - before))})
        out.append(line)
    return out


def _with(rule: str, values: dict[str, str], drop: tuple[str, ...] = ()) -> str:
    parts = [p for p in rule.removeprefix("RRULE:").split(";") if p]
    kept = [p for p in parts if p.split("=", 1)[0].upper() not in {*values, *drop}]
    return "RRULE:" + ";".join([*kept, *(f"{k}={v}" for k, v in values.items())])


# -- what a new recurrence drops ----------------------------------------------------------


def dropped_by(old: list[str], new: list[str]) -> str:
    """How ``new`` may drop occurrences of ``old`` (""): only a later end or none keeps all."""
    old_rules = [line for line in old if line.upper().startswith("RRULE:")]
    if not old_rules and not any(line.upper().startswith("RDATE") for line in old):
        return ""
    new_rules = [line for line in new if line.upper().startswith("RRULE:")]
    if not new_rules:
        return "end the series (no repeat rule left)"
    added = [line for line in new if line.upper().startswith(("EXDATE", "EXRULE"))]
    if set(added) - set(old):
        return "exclude occurrences of the series (EXDATE/EXRULE)"
    if {line for line in old if line.upper().startswith("RDATE")} - set(new):
        return "drop added dates of the series (RDATE)"
    unmatched = [rule for rule in old_rules if not any(_keeps(rule, n) for n in new_rules)]
    if not unmatched:
        return ""
    return f"change the series' repeat rule from {unmatched[0]} to {new_rules[0]}"


def _rule_parts(rule: str) -> dict[str, str]:
    parts = (p.split("=", 1) for p in rule.split(":", 1)[-1].split(";") if "=" in p)
    return {key.strip().upper(): value.strip().upper() for key, value in parts}


def _keeps(old: str, new: str) -> bool:
    before, after = _rule_parts(old), _rule_parts(new)
    ends = ("COUNT", "UNTIL")
    if {k: v for k, v in before.items() if k not in ends} != {
        k: v for k, v in after.items() if k not in ends
    }:
        return False
    if not any(key in after for key in ends):  # no end: every occurrence, forever
        return True
    if "COUNT" in before and "COUNT" in after:
        return _number(after["COUNT"]) >= _number(before["COUNT"])
    if "UNTIL" in before and "UNTIL" in after:
        return _moment(after["UNTIL"]) >= _moment(before["UNTIL"])
    return False  # no end before, or ends of two kinds: cannot tell, so it may drop some


def _number(text: str) -> int:
    return int(text) if text.isdigit() else 0


def _moment(text: str) -> str:
    value = text.removesuffix("Z")
    return value if "T" in value else f"{value}T235959"
