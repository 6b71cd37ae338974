"""What the Calendar tools tell the agent besides their results: guidance, and warnings."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from toolspecs.core import FixArguments, fence, ref
from toolspecs.core.prefixed import offered

# load_data's empty reply (its tool's ``empty=``), and the step it says.
NO_EVENTS_STEP = "Widen the dates, or drop the query."
NO_EVENTS = f"No events in that range. {NO_EVENTS_STEP}"
IDS_HINT = "Get event ids with load_data (each line starts with [id: ...])."
"""Where event ids come from, as declared (the failure table's ``ids_hint``)."""


def ids_hint() -> str:
    """:data:`IDS_HINT` at a call, naming a listing tool the agent has, if any."""
    lister = next((name for name in ("load_data", "search_events") if offered(name)), None)
    if lister is None:
        return "Check the id: a reply that listed the event shows it as [id: ...]."
    return f"Get event ids with {ref(lister)} (each line starts with [id: ...])."


def no_start() -> FixArguments:
    """``create_event`` without ``start_datetime``."""
    helps = f" ({ref('get_date')} helps with words like 'tomorrow')" if offered("get_date") else ""
    return FixArguments(
        f"{ref('create_event')} needs start_datetime.", f"Send it, e.g. '2026-11-21T16:00'{helps}."
    )


def dates_reversed(start_date: dt.date, end_date: dt.date) -> FixArguments:
    """``load_data`` with an ``end_date`` before its ``start_date``."""
    return FixArguments(
        f"end_date {end_date} is before start_date {start_date}.",
        "Send an end_date on or after the start_date.",
    )


def empty_query() -> FixArguments:
    """``search_events`` without words to find."""
    listing = f", or use {ref('load_data')}" if offered("load_data") else ""
    return FixArguments("query is empty.", f"Send words to find{listing}.")


# How many ids a reply about a series' occurrences names.
OCCURRENCES_SHOWN = 3


def description(text: str, source: str) -> str:
    """An event's description, fenced as third-party text naming its event."""
    return fence.block(text, source, "description")


def losses(event: Mapping[str, Any], patch: Mapping[str, Any], dropped: str | None) -> list[str]:
    """What ``patch`` would destroy of ``event``, each in a few words (none: empty)."""
    found = []
    if blank(patch.get("summary")) and str(event.get("summary") or "").strip():
        found.append(f"blank the title {fence.quote(event.get('summary'), 80)}")
    if blank(patch.get("description")) and str(event.get("description") or "").strip():
        found.append("delete the description")
    if "attendees" in patch:
        kept = {str(a.get("email", "")).casefold() for a in patch["attendees"]}
        removed = [
            str(a.get("email"))
            for a in event.get("attendees") or []
            if isinstance(a, dict) and a.get("email") and str(a["email"]).casefold() not in kept
        ]
        if removed:
            named = ", ".join(fence.field(email, 80) for email in removed[:5])
            more = f" and {len(removed) - 5} more" if len(removed) > 5 else ""
            found.append(f"remove {len(removed)} attendee(s) ({named}{more})")
    if dropped:
        found.append(f"{fence.field(dropped, 300)}, which may drop occurrences")
    return found


def blank(value: Any) -> bool:
    """Whether a new value blanks a field (a string of spaces at most)."""
    return isinstance(value, str) and not value.strip()


def occurrence_ids(items: list[dict[str, Any]]) -> str:
    """The next occurrences of a series, for guidance (``items`` from the client)."""
    if not items:
        return "it has no occurrences from now on"
    listed = ", ".join(f"[id: {fence.field(i.get('id', '?'), 200)}]" for i in items)
    return f"its next occurrences: {listed}"


def lost(found: list[tuple[str, str]]) -> str:
    """The warning of a split about the changed or cancelled occurrences it does not keep."""
    if not found:
        return ""
    shown = ", ".join(
        f"[id: {fence.field(i, 200)}] {what}" for i, what in found[:OCCURRENCES_SHOWN]
    )
    more = f" and {len(found) - OCCURRENCES_SHOWN} more" if len(found) > OCCURRENCES_SHOWN else ""
    return (
        f" Warning: {len(found)} occurrence(s) from that one on had been changed or cancelled "
        f"alone ({shown}{more}); the new series does not keep that: cancelled ones are back "
        "and changed ones are as the series. Tell the user; redo them on the new series' "
        "occurrences if they want."
    )
