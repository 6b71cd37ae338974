"""Which calendars a spec may touch: the ones the user allowed, checked before any request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolspecs.core import ConfigurationError, FixArguments
from toolspecs.core.bounds import shown
from toolspecs.core.structured import Quoted
from toolspecs.specs.google_calendar.outputs import CalendarEntry, Calendars

# How many allowed calendars a schema or a guidance lists.
LISTED = 10


def allowed_ids(calendar_id: str | None, allowed_calendar_ids: list[str] | None) -> list[str]:
    """The calendars a spec may touch (``ConfigurationError``: not strings, or not allowed)."""
    if isinstance(allowed_calendar_ids, str):  # one id given where a list is typed
        allowed_calendar_ids = [allowed_calendar_ids]
    allowed = [c.strip() for c in allowed_calendar_ids or [] if isinstance(c, str) and c.strip()]
    if allowed_calendar_ids and len(allowed) != len(allowed_calendar_ids):
        raise ConfigurationError(
            f"allowed_calendar_ids={allowed_calendar_ids!r} must be calendar ids (strings)"
        )
    if not allowed:
        return [calendar_id or "primary"]
    if calendar_id and calendar_id.casefold() not in {c.casefold() for c in allowed}:
        raise ConfigurationError(
            f"calendar_id={calendar_id!r} is not in allowed_calendar_ids={allowed!r}; "
            "add it there, or leave calendar_id out to use the first allowed calendar"
        )
    return allowed


def find(allowed: list[str], calendar_id: str | None) -> str | None:
    """The allowed calendar ``calendar_id`` names (any case), or ``None``."""
    wanted = (calendar_id or "").strip().casefold()
    return next((c for c in allowed if c.casefold() == wanted), None)


def pick(allowed: list[str], default: str, calendar_id: str | None) -> str:
    """The calendar a call may use: ``default``, or an allowed one it names."""
    if calendar_id is None or not calendar_id.strip():
        return default
    found = find(allowed, calendar_id)
    if found is None:
        listed = ", ".join(repr(c) for c in allowed[:LISTED])
        raise FixArguments(
            f"calendar_id {shown(calendar_id)} is not a calendar the user allowed.",
            f"Use one of {listed}, or leave calendar_id out for {default!r}. "
            "To use another calendar, ask the user to add it to allowed_calendar_ids.",
        )
    return found


def argument_doc(allowed: list[str], default: str) -> str | None:
    """What the schema says of ``calendar_id``: the allowed calendars (none: leave it out)."""
    if len(allowed) < 2:
        return None
    listed = ", ".join(repr(c) for c in allowed[:LISTED])
    more = f" and {len(allowed) - LISTED} more" if len(allowed) > LISTED else ""
    return f"One of {listed}{more}; default {default!r}."


def named(allowed: list[str], arguments: Mapping[str, Any]) -> str | None:
    """The allowed calendar a call's ``calendar_id`` names (any case), or ``None``."""
    calendar = arguments.get("calendar_id")
    return find(allowed, calendar) if isinstance(calendar, str) else None


def entry_for(entries: list[dict[str, Any]], calendar_id: str) -> int | None:
    """The index of the calendarList entry of an allowed id (``"primary"``: the primary one)."""
    wanted = calendar_id.casefold()
    for index, entry in enumerate(entries):
        if str(entry.get("id", "")).casefold() == wanted or (
            wanted == "primary" and entry.get("primary")
        ):
            return index
    return None


def listed(
    entries: list[dict[str, Any]],
    allowed_ids: list[str],
    default: str,
    shared: Mapping[str, dict[str, Any] | None],
) -> Calendars:
    """``list_calendars``: each allowed calendar as the list (else ``shared``) has it."""
    found: list[CalendarEntry] = []
    matched: set[int] = set()
    for allowed in allowed_ids:
        index = entry_for(entries, allowed)
        is_default = allowed == default or None
        record = shared.get(allowed) if index is None else None
        if index is None:
            entry = CalendarEntry(calendar_id=allowed, in_list=False, default=is_default)
            if record is not None:  # shared with these credentials, not in their list
                name, zone = record.get("summary"), record.get("timeZone")
                entry.name = Quoted(text=str(name)) if name else None
                entry.timezone = str(zone) if zone else None
                entry._shared = True
            found.append(entry)
            continue
        matched.add(index)
        item = entries[index]
        name = item.get("summaryOverride") or item.get("summary")
        role = item.get("accessRole")
        found.append(
            CalendarEntry(
                calendar_id=allowed,
                in_list=True,
                list_id=str(item.get("id")) if allowed != item.get("id") else None,
                name=Quoted(text=str(name)) if name else None,
                timezone=str(item["timeZone"]) if item.get("timeZone") else None,
                access_role=str(role) if role else None,
                read_only=True if role in ("reader", "freeBusyReader") else None,
                primary=True if item.get("primary") else None,
                default=is_default,
            )
        )
    data = Calendars(calendars=found)
    if len(entries) > len(matched):
        data.not_allowed = len(entries) - len(matched)
        data.next_step = (
            "To allow one, the user adds its id to allowed_calendar_ids "
            "when creating GoogleCalendarToolSpec."
        )
    return data
