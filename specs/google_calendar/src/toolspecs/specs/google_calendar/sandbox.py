"""The Calendar sandbox: the spec over a fake Google Calendar on 127.0.0.1, signed in.

The fake (:func:`sample_calendar`) holds four weeks of meetings; a
:class:`~toolspecs.loaders.google.testing.FakeGoogleServer` serves it with Google's OAuth
endpoints, in this process. The spec is built as a user builds it: google-auth
``Credentials`` of the sandbox's user (``me@example.com``, who consented to the
``calendar`` scope) and ``client_options`` naming the server. Each build has a server of
its own, stopped once the spec is gone (see :mod:`toolspecs.specs.google_base.sandbox`).

Registered under the entry point group ``toolspecs.sandboxes`` (see
:mod:`toolspecs.core.registry`), as a third-party spec would register its own:
``toolspecs call --sandbox google_calendar.FUNCTION`` and
``toolspecs.server.sandbox_spec("google_calendar")`` build the spec with :func:`arguments`.
A test that looks at the calendar after a call starts its own server and builds the spec
on it::

    with sandbox.start() as google:
        spec = GoogleCalendarToolSpec(**sandbox.connect(google))
        spec.create_event(...)
        google.calendar.events  # what the call changed
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

from toolspecs.core import clock
from toolspecs.loaders.google.scopes import CALENDAR
from toolspecs.loaders.google.testing import FakeCalendar, FakeGoogleServer, timed_event
from toolspecs.specs.google_base import sandbox as google

__all__ = ["CALENDAR_ZONE", "SCOPES", "USER", "arguments", "connect", "sample_calendar", "start"]

CALENDAR_ZONE = "America/New_York"

# (weekday, start hour, start minute, minutes, title, location, attendees, description)
_WEEK: tuple[tuple[int, int, int, int, str, str, tuple[str, ...], str], ...] = (
    (0, 14, 0, 60, "Design review: search ranking", "Room 1.1", ("alan@example.com",), ""),
    (
        1,
        12,
        30,
        60,
        "Lunch with Ada",
        "Cafe Lumen, 12 Mercer St",
        ("ada@example.com",),
        "Ada wants to talk about the retrieval-augmented generation survey.",
    ),
    (2, 11, 0, 30, "1:1 with Grace", "Room 3.4", ("grace@example.com",), ""),
    (
        3,
        16,
        0,
        60,
        "Reading group: Attention Is All You Need",
        "Library",
        ("edsger@example.com", "grace@example.com"),
        "Paper: arXiv 1706.03762. Bring one question.",
    ),
    (4, 15, 0, 45, "Sprint demo", "Room 4.2", ("alan@example.com", "ada@example.com"), ""),
)
_TEAM = ("ada@example.com", "alan@example.com", "grace@example.com")
USER = "me@example.com"
"""The sandbox's user: signed in, and invited, as a guest, to the week's meetings."""
SCOPES = (CALENDAR,)
"""What the sandbox's user consented to: every tool's scopes."""


def sample_calendar(
    today: dt.date | None = None, days: int = 28, *, latency: float = 0.0
) -> FakeCalendar:
    """A ``FakeCalendar`` in New York time with the working days after ``today`` booked.

    Each working day has a 09:30 standup with the team and one meeting of the week's
    pattern (a design review, lunch with Ada, a one-to-one, a reading group, a demo);
    the free/busy answer follows the events. Ada organizes them all and the user
    (``me@example.com``) is invited to the week's meetings, not yet having answered, so
    ``respond_to_event`` has invitations to answer.

    Args:
        today: The day before the first booked one (default: today in New York).
        days: How many days to fill.
        latency: Seconds the fake waits before answering each request.

    Returns:
        A ``toolspecs.loaders.google.testing.FakeCalendar``.
    """
    zone = ZoneInfo(CALENDAR_ZONE)
    first = today or clock.now(zone).date()
    events: dict[str, dict[str, Any]] = {}
    for offset in range(1, days + 1):
        day = first + dt.timedelta(days=offset)
        if day.weekday() >= 5:
            continue
        slots: list[tuple[int, int, int, str, str, tuple[str, ...], str]]
        slots = [(9, 30, 15, "Team standup", "Google Meet", _TEAM, "")]
        slots += [slot[1:] for slot in _WEEK if slot[0] == day.weekday()]
        for hour, minute, minutes, summary, location, people, description in slots:
            start = dt.datetime.combine(day, dt.time(hour, minute), zone)
            event_id = f"sbx{day:%Y%m%d}{hour:02d}{minute:02d}"
            guests: list[dict[str, Any]] = [{"email": person} for person in people]
            if summary != "Team standup":
                guests.append({"email": USER, "self": True, "responseStatus": "needsAction"})
            extra: dict[str, Any] = {"location": location, "attendees": guests}
            if description:
                extra["description"] = description
            events[event_id] = timed_event(
                event_id,
                summary,
                start.isoformat(),
                (start + dt.timedelta(minutes=minutes)).isoformat(),
                **extra,
            )
    busy = [{"start": e["start"]["dateTime"], "end": e["end"]["dateTime"]} for e in events.values()]
    return FakeCalendar(
        timezone=CALENDAR_ZONE, events=events, busy={"primary": busy}, latency=latency
    )


def start(latency: float = 0.0) -> FakeGoogleServer:
    """A new fake Google serving a new :func:`sample_calendar`, started (stop it, or ``with``).

    Args:
        latency: Seconds the fake waits before answering each request.
    """
    return google.serve(calendar=sample_calendar(latency=latency))


def connect(server: FakeGoogleServer) -> dict[str, Any]:
    """Constructor arguments reaching ``server`` as :data:`USER`: ``creds``, ``client_options``."""
    return google.connect(server, USER, SCOPES)


def arguments(latency: float = 0.0) -> dict[str, Any]:
    """The constructor arguments of the Calendar sandbox, over a new server.

    The server stops once the spec built with them is gone.

    Args:
        latency: Seconds the fake waits before answering each request.
    """
    return google.owned_by_spec(start(latency), USER, SCOPES)
