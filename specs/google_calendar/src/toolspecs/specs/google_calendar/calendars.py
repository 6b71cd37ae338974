"""Which calendars a spec may touch: the ones the user allowed, checked before any request.

A call names a calendar by its id in any case; one the user did not allow gets guidance
that lists the allowed ones, and is never asked for anything (not even its zone).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolspecs.core import ConfigurationError, FixArguments
from toolspecs.core.bounds import shown

# How many allowed calendars a schema or a guidance lists.
LISTED = 10


def allowed_ids(calendar_id: str | None, allowed_calendar_ids: list[str] | None) -> list[str]:
    """The calendars a spec may touch, checked for the person who built it.

    Raises:
        ConfigurationError: When an id is not a string, or ``calendar_id`` is not allowed.
    """
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
    """The calendar a call may use: ``default``, or an allowed one it names.

    Raises:
        FixArguments: When it names a calendar the user did not allow.
    """
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
