"""The sandboxes one run works in: a fake Google, arXiv and Wolfram|Alpha on 127.0.0.1.

Every run of a task gets a world of its own: a new fake Google (the Calendar sandbox's
four weeks of meetings and the Gmail sandbox's mailbox, as the specs' sandboxes seed
them) that the run may change, and the arXiv and Wolfram|Alpha sandboxes, which are read
only and shared by the process. Nothing reaches a real account: the specs are built as
their sandboxes build them, pointed at these servers, with credentials only they take.

The world is the user's "now" too: :attr:`World.now` is toolspecs' clock in the
calendar's zone (``$TOOLSPECS_NOW`` pins it, as the tests do), and the calendar is booked
from that day on, so a task can say "tomorrow" and a check can know which day that is.

Fake Google answers as Google does, with one difference from the specs' own tests: a
write to the calendar need not say whether to e-mail its attendees (Google's default is
to e-mail no one), so that LlamaHub's ``create_event``, which does not say, is judged on
what it did, as ours is.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from toolspecs.core import clock
from toolspecs.evals import agent
from toolspecs.loaders.google.testing import (
    FakeCalendar,
    FakeGmail,
    FakeGoogleServer,
    sample_mailbox,
)
from toolspecs.specs.arxiv import sandbox as arxiv_sandbox
from toolspecs.specs.gmail import sandbox as gmail_sandbox
from toolspecs.specs.google_base import sandbox as google_sandbox
from toolspecs.specs.google_calendar import sandbox as calendar_sandbox
from toolspecs.specs.wolfram_alpha import sandbox as wolfram_sandbox

if TYPE_CHECKING:
    from llama_index.core.tools import FunctionTool

    from toolspecs.core import ToolSpec

__all__ = ["World"]


class World:
    """The sandboxes of one run, started; :meth:`close` stops what is its own.

    Args:
        specs: The specs the run uses: the fake Google starts at once when they include
            Calendar or Gmail, else only if asked for.
    """

    def __init__(self, specs: Sequence[str] = ("google_calendar", "gmail")) -> None:
        self._google: FakeGoogleServer | None = None
        self._arxiv = arxiv_sandbox.shared_server()
        self._wolfram = wolfram_sandbox.shared_server()
        self._specs: dict[str, ToolSpec] = {}
        if {"google_calendar", "gmail"} & set(specs):
            self.google  # noqa: B018  (started now, in the thread that makes the world)

    @functools.cached_property
    def now(self) -> dt.datetime:
        """The user's "now", in the calendar's zone (read once, when first needed)."""
        return clock.now(ZoneInfo(calendar_sandbox.CALENDAR_ZONE))

    @property
    def google(self) -> FakeGoogleServer:
        """The fake Google (Calendar and Gmail) of this run alone, started when first needed.

        A world of tasks that use neither never starts one, nor reads "now".
        """
        if self._google is None:
            calendar = calendar_sandbox.sample_calendar(self.now.date())
            # Google's default: e-mail nobody unless sendUpdates says so (see the module).
            calendar.require_send_updates = False
            gmail = sample_mailbox(long_messages=2)
            self._google = google_sandbox.serve(calendar=calendar, gmail=gmail)
        return self._google

    @property
    def zone(self) -> ZoneInfo:
        """The calendar's zone, where "tomorrow" and "4pm" are read."""
        assert isinstance(self.now.tzinfo, ZoneInfo)
        return self.now.tzinfo

    @property
    def today(self) -> dt.date:
        """The user's today, in the calendar's zone."""
        return self.now.date()

    @property
    def calendar(self) -> FakeCalendar:
        """The calendar as the run left it."""
        assert self.google.calendar is not None
        return self.google.calendar

    @property
    def gmail(self) -> FakeGmail:
        """The mailbox as the run left it."""
        assert self.google.gmail is not None
        return self.google.gmail

    def day(self, offset: int) -> dt.date:
        """The day ``offset`` days from today (1: tomorrow)."""
        return self.today + dt.timedelta(days=offset)

    def next_weekday(self, weekday: int) -> dt.date:
        """The first day after today that is ``weekday`` (0: Monday)."""
        return next(
            day for day in (self.day(n) for n in itertools.count(1)) if day.weekday() == weekday
        )

    def at(self, day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
        """``day`` at ``hour:minute`` in the calendar's zone."""
        return dt.datetime.combine(day, dt.time(hour, minute), self.zone)

    def spec(self, name: str) -> ToolSpec:
        """Our spec ``name``, built on this world's sandboxes as a user builds it."""
        if name not in self._specs:
            self._specs[name] = _build(name, self)
        return self._specs[name]

    def tools(self, specs: Sequence[str]) -> list[FunctionTool]:
        """Every tool of our ``specs``; each spec's names prefixed when two specs share one."""
        built = {name: self.spec(name) for name in specs}
        functions = {name: list(type(spec).all_functions) for name, spec in built.items()}
        names = {
            name: [f if isinstance(f, str) else f[0] for f in listed]
            for name, listed in functions.items()
        }
        prefixed = agent.clashing(names)
        tools: list[FunctionTool] = []
        for name, spec in built.items():
            prefix = f"{name}_" if name in prefixed else ""
            tools += spec.to_tool_list(functions[name], prefix=prefix)
        return tools

    def endpoints(self) -> dict[str, Any]:
        """Where a client of another library reaches this world (the LlamaHub side).

        Returns:
            The fake Google's URL and an access token of each of its users (Gmail's owner,
            the Calendar's user) when it is started, and the arXiv and Wolfram|Alpha fakes'
            URLs and AppID.
        """
        found: dict[str, Any] = {}
        if self._google is not None:
            found["google"] = self._google.url
            found["gmail_token"] = gmail_sandbox.connect(self._google)["creds"].token
            found["calendar_token"] = calendar_sandbox.connect(self._google)["creds"].token
        return {
            **found,
            "arxiv": self._arxiv.url,
            "wolfram": self._wolfram.url,
            "wolfram_app_id": wolfram_sandbox.APP_ID,
        }

    def close(self) -> None:
        """Stop this world's own fake Google (the shared fakes live with the process)."""
        self._specs.clear()
        if self._google is not None:
            self._google.stop()

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _build(name: str, world: World) -> ToolSpec:
    if name == "gmail":
        from toolspecs.specs.gmail import GmailToolSpec

        return GmailToolSpec(**gmail_sandbox.connect(world.google))
    if name == "google_calendar":
        from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

        # delete_event is one of the spec's tools, offered only with allow_destructive:
        # every tool is offered, so a task can ask to delete (and be judged on the rest).
        return GoogleCalendarToolSpec(
            **calendar_sandbox.connect(world.google), allow_destructive=True
        )
    if name == "arxiv":
        from toolspecs.specs.arxiv import ArxivToolSpec

        return ArxivToolSpec(**arxiv_sandbox.connect(world._arxiv))
    if name == "wolfram_alpha":
        from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec

        return WolframAlphaToolSpec(**wolfram_sandbox.connect(world._wolfram))
    raise ValueError(f"no spec named {name!r}")
