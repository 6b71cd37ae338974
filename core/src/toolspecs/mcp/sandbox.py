"""Sandboxes: each built-in spec over its shipped fake, seeded with realistic data.

``toolspecs serve --sandbox NAME ...`` serves these, so anyone can connect an MCP client
with no keys and no network; the README and notebooks build them the same way::

    from toolspecs.mcp.sandbox import sandbox_spec

    calendar = sandbox_spec("google_calendar", timezone="Europe/Paris")

========================  =============================================================
``arxiv``                 ``FakeArxiv``: arXiv's API and PDFs over a catalogue of real
                          entries (``1706.03762`` is a 30-page paper).
``wolfram_alpha``         ``FakeWolframAlpha``: recorded answers and exact arithmetic.
``google_calendar``       ``FakeCalendar`` in New York time: four weeks of working days
                          from tomorrow (standups, reviews, lunches, one-to-ones).
``gmail``                 ``FakeGmail``: the shipped sample mails and two long reports.
========================  =============================================================

The fakes live in the loader packages; a sandbox needs its spec's package installed.
Every sandbox is new (its own fake): what one server changes, another does not see.
"""

from __future__ import annotations

import datetime as dt
import importlib
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

from toolspecs.core import clock
from toolspecs.core.errors import ConfigurationError
from toolspecs.core.registry import load_spec
from toolspecs.core.spec import ToolSpec

__all__ = ["SANDBOXES", "sample_calendar", "sandbox_arguments", "sandbox_spec"]

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
_ME = "me@example.com"  # the sandbox's user: invited, as a guest, to the week's meetings


def sample_calendar(today: dt.date | None = None, days: int = 28) -> Any:
    """A ``FakeCalendar`` in New York time with the working days after ``today`` booked.

    Each working day has a 09:30 standup with the team and one meeting of the week's
    pattern (a design review, lunch with Ada, a one-to-one, a reading group, a demo);
    the free/busy answer follows the events. Ada organizes them all and the user
    (``me@example.com``) is invited to the week's meetings, not yet having answered, so
    ``respond_to_event`` has invitations to answer.

    Args:
        today: The day before the first booked one (default: today in New York).
        days: How many days to fill.

    Returns:
        A ``toolspecs.loaders.google.testing.FakeCalendar``.
    """
    testing = importlib.import_module("toolspecs.loaders.google.testing")
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
                guests.append({"email": _ME, "self": True, "responseStatus": "needsAction"})
            extra: dict[str, Any] = {"location": location, "attendees": guests}
            if description:
                extra["description"] = description
            events[event_id] = testing.timed_event(
                event_id,
                summary,
                start.isoformat(),
                (start + dt.timedelta(minutes=minutes)).isoformat(),
                **extra,
            )
    busy = [{"start": e["start"]["dateTime"], "end": e["end"]["dateTime"]} for e in events.values()]
    return testing.FakeCalendar(timezone=CALENDAR_ZONE, events=events, busy={"primary": busy})


def _arxiv() -> dict[str, Any]:
    testing = importlib.import_module("toolspecs.loaders.arxiv.testing")
    return {"transport": testing.FakeArxiv().transport()}


def _wolfram_alpha() -> dict[str, Any]:
    testing = importlib.import_module("toolspecs.loaders.wolfram_alpha.testing")
    return {"app_id": "sandbox", "transport": testing.FakeWolframAlpha().transport()}


def _google_calendar() -> dict[str, Any]:
    return {"transport": sample_calendar()}


def _gmail() -> dict[str, Any]:
    testing = importlib.import_module("toolspecs.loaders.google.testing")
    return {"transport": testing.sample_mailbox(long_messages=2)}


_BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "arxiv": _arxiv,
    "gmail": _gmail,
    "google_calendar": _google_calendar,
    "wolfram_alpha": _wolfram_alpha,
}

# The specs that have a sandbox.
SANDBOXES: tuple[str, ...] = tuple(sorted(_BUILDERS))

_PACKAGES = {
    "arxiv": "toolspecs-arxiv",
    "gmail": "toolspecs-gmail",
    "google_calendar": "toolspecs-google-calendar",
    "wolfram_alpha": "toolspecs-wolfram-alpha",
}


def _key(name: str) -> str:
    key = name.strip().lower().replace("-", "_")
    if key not in _BUILDERS:
        raise ConfigurationError(f"spec {name!r} has no sandbox; sandboxes: {', '.join(SANDBOXES)}")
    return key


def sandbox_arguments(name: str) -> dict[str, Any]:
    """The constructor arguments that put spec ``name`` on a new seeded fake.

    Args:
        name: A spec with a sandbox (:data:`SANDBOXES`).

    Returns:
        E.g. ``{"transport": FakeCalendar(...)}``; Wolfram|Alpha's also has an ``app_id``.

    Raises:
        ConfigurationError: When the spec has no sandbox or its package is not installed.
    """
    key = _key(name)
    try:
        return _BUILDERS[key]()
    except ImportError as exc:
        raise ConfigurationError(
            f"the {key} sandbox needs its package: pip install {_PACKAGES[key]} ({exc})"
        ) from exc


def sandbox_spec(name: str, **options: Any) -> ToolSpec:
    """Spec ``name`` (from the registry) over a new seeded fake: no keys, no network.

    Args:
        name: A spec with a sandbox (:data:`SANDBOXES`).
        **options: More constructor arguments, e.g. ``allow_send=False``,
            ``timezone="Europe/Paris"``.

    Returns:
        The spec.

    Raises:
        ConfigurationError: When the spec has no sandbox, is not installed, or rejects
            the options.
    """
    return load_spec(name, **{**options, **sandbox_arguments(name)})
