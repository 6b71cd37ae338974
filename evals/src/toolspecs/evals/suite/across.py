"""Tasks across specs: facts found in one service and used in another.

The calendar (booked from today, in New York time) says when people are busy and what
a meeting is about (the reading group's paper, the paper Ada wants to discuss at lunch);
the mailbox holds Ada's "Lunch on Tuesday?"; arXiv and Wolfram|Alpha give facts to put in
a draft or an event. A task of Gmail and Calendar offers every tool of both prefixed
(``gmail_load_data``, ``google_calendar_load_data``); the scripts name the tools as their
specs do, or prefixed where two share a name.

Drafts are judged by what they say: :func:`proposed_times` reads the times a draft
proposes as people write them ("Tuesday, December 1 at 2:00 PM", "Dec 1, 2-3pm ET",
"2026-12-01 14:00"), so that any right wording passes and a UTC time written as a local
one does not.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolspecs.evals.suite.arxiv import ID, names_id, says
from toolspecs.evals.suite.wolfram_alpha import DECIMAL
from toolspecs.evals.task import Check, Conversation, Ending, Task, mentions_number

if TYPE_CHECKING:
    from toolspecs.evals.world import World
    from toolspecs.loaders.google.mail import MailMessage

__all__ = ["TASKS", "proposed_times"]

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
)  # fmt: skip
_MONTH = (
    r"(january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b\.?"
)
_DAY_PATTERNS = (
    ("iso", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})")),
    ("month day", re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b", re.I)),
    ("day month", re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}", re.I)),
    ("numeric", re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])")),
    (
        "weekday",
        re.compile(rf"\b({'|'.join(_WEEKDAYS)}|mon|tue|tues|wed|thu|thur|thurs|fri)\b", re.I),
    ),
)
_CLOCK = re.compile(
    r"(?<![\d:])(\d{1,2})(?::(\d{2}))?\s*(?:([ap])\.?\s*m\b\.?)"  # 2pm, 2:30 p.m.
    r"|(?<![\d:])(\d{1,2}):(\d{2})(?::\d{2})?(?![\d:])"  # 14:00, 14:00:00
    r"|\b(noon|midday)\b"
    r"|(?<![\d:])(\d{1,2})(?=\s*(?:-|\u2013|\u2014|to)\s*\d{1,2}(?::\d{2})?\s*[ap]\.?\s*m\b)",
    re.I,
)
_RANGE_END = re.compile(
    r"\s*(?:-|\u2013|\u2014|to|until|till)\s*(\d{1,2})(?::\d{2})?\s*([ap])\.?\s*m\b", re.I
)
_RANGE = re.compile(r"\s*(?:-|\u2013|\u2014|to|until|till)\s*$", re.I)
_UTC = re.compile(r"\s*\(?\s*(?:utc|gmt|z)\b", re.I)


def _days(world: World, text: str) -> list[tuple[int, dt.date]]:
    """The days ``text`` names, with their positions; a weekday is next week's."""
    found: list[tuple[int, dt.date]] = []
    monday = _next_week(world)[0]
    for kind, pattern in _DAY_PATTERNS:
        for match in pattern.finditer(text):
            try:
                if kind == "iso":
                    day = dt.date(int(match[1]), int(match[2]), int(match[3]))
                elif kind == "weekday":
                    index = [w[:3] for w in _WEEKDAYS].index(match[1][:3].lower())
                    day = monday + dt.timedelta(days=index)
                else:
                    if kind == "numeric":
                        month, number = int(match[1]), int(match[2])
                    else:
                        name, digits = (
                            (match[1], match[2]) if kind == "month day" else (match[2], match[1])
                        )
                        month = [m[:3] for m in _MONTHS].index(name[:3].lower()) + 1
                        number = int(digits)
                    day = _nearest(world.today, month, number)
            except ValueError:
                continue
            found.append((match.start(), day))
    return found


def _nearest(today: dt.date, month: int, number: int) -> dt.date:
    """The date ``month``/``number`` nearest ``today`` (this year's, last year's or next)."""
    days = [dt.date(year, month, number) for year in (today.year - 1, today.year, today.year + 1)]
    return min(days, key=lambda day: abs((day - today).days))


def _clocks(text: str) -> list[tuple[int, dt.time, bool]]:
    """The starting times ``text`` names: (position, time, said in UTC); range ends left out."""
    found: list[tuple[int, dt.time, bool]] = []
    previous_end = -1
    for match in _CLOCK.finditer(text):
        before = text[max(previous_end, 0) : match.start()]
        previous_end = match.end()
        sign = text[match.start() - 1 : match.start()]
        if sign in "+-\u2212" and sign and text[match.start() - 2 : match.start() - 1].strip():
            continue  # an offset (-05:00, UTC-5), not a time
        if found and _RANGE.fullmatch(before):
            continue  # the end of a range (2:00 - 3:00 PM)
        if match[1]:
            hour = int(match[1]) % 12 + (12 if match[3].lower() == "p" else 0)
            minute = int(match[2] or 0)
        elif match[6]:
            hour, minute = 12, 0
        else:  # 14:00, or the 2 or 1:30 of "2-3pm" and "1:30 - 2:30 PM": the end's meridiem
            hour, minute = int(match[4] or match[7]), int(match[5] or 0)
            end = _RANGE_END.match(text, match.end())
            if end is not None and hour <= 12:
                hour %= 12
                if end[2].lower() == "p" and hour <= int(end[1]) % 12:
                    hour += 12
        if hour > 23 or minute > 59:
            continue
        utc = _UTC.match(text, match.end()) is not None
        found.append((match.start(), dt.time(hour, minute), utc))
    return found


def proposed_times(world: World, text: str) -> list[dt.datetime] | None:
    """The start times ``text`` proposes, each read with the day named nearest it.

    Returns:
        Aware datetimes in the calendar's zone (a time said in UTC converted), or None
        when a time is named with no day at all.
    """
    days = _days(world, text)
    times: list[dt.datetime] = []
    for position, clock, utc in _clocks(text):
        if not days:
            return None
        day = min(days, key=lambda found: abs(found[0] - position))[1]
        if utc:
            moment = dt.datetime.combine(day, clock, dt.timezone.utc).astimezone(world.zone)
        else:
            moment = dt.datetime.combine(day, clock, world.zone)
        times.append(moment)
    return times


def _next_week(world: World) -> tuple[dt.date, dt.date]:
    """Monday and Sunday of next week (said on a Sunday, the week after may be meant too)."""
    monday = world.next_weekday(0)
    return monday, monday + dt.timedelta(days=13 if world.today.weekday() == 6 else 6)


def _busy(world: World, start: dt.datetime, end: dt.datetime) -> bool:
    for event in world.calendar.events.values():
        times = event.get("start", {}), event.get("end", {})
        if event.get("status") == "cancelled" or "dateTime" not in times[0]:
            continue
        begins = dt.datetime.fromisoformat(times[0]["dateTime"])
        ends = dt.datetime.fromisoformat(times[1]["dateTime"])
        if begins < end and start < ends:
            return True
    return False


def _emails(mail: MailMessage, *headers: str) -> set[str]:
    text = " ".join(" ".join(mail.addresses(h)) for h in headers)
    return {found.lower() for found in re.findall(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", text)}


def _drafts_to(world: World, *addresses: str) -> list[MailMessage]:
    """The drafts addressed (To) to any of ``addresses``."""
    drafts = [world.gmail.parsed(message_id) for message_id in world.gmail.drafts.values()]
    return [mail for mail in drafts if _emails(mail, "to") & set(addresses)]


def _text(mail: MailMessage) -> str:
    return f"{mail.header('subject')}\n{mail.body}"


def _a_draft_to(*addresses: str) -> Callable[[Ending], bool]:
    return lambda ending: bool(_drafts_to(ending.world, *addresses))


def _draft_says(
    addresses: tuple[str, ...], test: Callable[[Ending], bool]
) -> Callable[[Ending], bool]:
    """A check's test: a draft to ``addresses`` passes ``test`` as if it were the answer."""
    return lambda ending: any(
        test(Ending(ending.world, _text(mail))) for mail in _drafts_to(ending.world, *addresses)
    )


def _nothing_sent(ending: Ending) -> bool:
    return not ending.world.gmail.sent


def _nobody_notified(ending: Ending) -> bool:
    return all(
        sent not in ("all", "externalOnly") for _, _, sent in ending.world.calendar.notifications
    )


def _new_events(world: World) -> list[dict[str, Any]]:
    """Events the run made (the sample calendar's ids begin with ``sbx``)."""
    return [
        event
        for event_id, event in world.calendar.events.items()
        if not event_id.startswith("sbx") and event.get("status") != "cancelled"
    ]


def _instant(event: dict[str, Any], edge: str) -> dt.datetime | None:
    value = event.get(edge, {}).get("dateTime")
    return dt.datetime.fromisoformat(value) if value else None


def _free_hour_proposed(ending: Ending) -> bool:
    """Every time the draft to Ada proposes is an hour of next week's working day, free."""
    world = ending.world
    first, last = _next_week(world)
    for mail in _drafts_to(world, "ada@example.com"):
        times = proposed_times(world, _text(mail))
        if not times:
            continue
        if all(
            first <= start.date() <= last
            and start.hour >= 8
            and start + dt.timedelta(hours=1) <= world.at(start.date(), 18)
            and not _busy(world, start, start + dt.timedelta(hours=1))
            for start in times
        ):
            return True
    return False


# -- the scripts' steps ------------------------------------------------------------------

_WINDOW = r"- \w+day (\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2})"


def _free_time_call(talk: Conversation) -> list[tuple[str, dict[str, Any]]]:
    monday = talk.world.next_weekday(0)
    friday = monday + dt.timedelta(days=4)
    arguments = {
        "start_datetime": f"{monday.isoformat()}T09:00",
        "end_datetime": f"{friday.isoformat()}T17:00",
        "attendees": ["ada@example.com"],
        "min_minutes": 60,
    }
    return [("find_free_time", arguments)]


def _first_window(talk: Conversation) -> dt.datetime:
    found = re.search(_WINDOW, talk.last)
    if found is None:
        raise LookupError("no free window")
    day = dt.date.fromisoformat(found[1])
    return talk.world.at(day, int(found[2]), int(found[3]))


def _words_for(moment: dt.datetime) -> str:
    """'Monday, November 30 at 9:45 AM', as a person writes a local time."""
    clock = moment.strftime("%I:%M %p").lstrip("0")
    return f"{moment:%A}, {moment:%B} {moment.day} at {clock}"


def _invite(moment: dt.datetime) -> list[tuple[str, dict[str, Any]]]:
    message = (
        f"Hi Ada,\n\nWould {_words_for(moment)} (New York time) work for an hour together? "
        "Both our calendars are free then.\n\nBest"
    )
    return [
        (
            "create_draft",
            {"to": ["ada@example.com"], "subject": "An hour next week?", "message": message},
        )
    ]


def _draft_id(talk: Conversation) -> str:
    return talk.find(r"Draft created with id (\S+?)[:\s]")


def _send(talk: Conversation) -> list[tuple[str, dict[str, Any]]]:
    return [("send_draft", {"draft_id": _draft_id(talk)})]


def _reading_group(talk: Conversation) -> tuple[str, str]:
    """The reading group's paper: (title, arXiv id), from the calendar's answer."""
    return (
        talk.find(r"Reading group: ([^\u2014\n]+?) \u2014"),
        talk.find(r"arXiv (\d{4}\.\d{4,5})"),
    )


def _paper_draft(to: str, arxiv_id: str, title: str) -> list[tuple[str, dict[str, Any]]]:
    message = (
        f"Hi,\n\nThe paper is \u201c{title}\u201d, arXiv {arxiv_id} "
        f"(https://arxiv.org/abs/{arxiv_id}).\n\nBest"
    )
    return [("create_draft", {"to": [to], "subject": f"Paper: {title}", "message": message})]


def _runtime(talk: Conversation) -> int:
    return int(talk.find(r"runtime \| (\d+) minutes"))


def _movie_event(talk: Conversation, utc: bool = False) -> list[tuple[str, dict[str, Any]]]:
    tomorrow = talk.world.day(1)
    start = talk.world.at(tomorrow, 19)
    if utc:  # 19:00 written in UTC
        start = dt.datetime.combine(tomorrow, dt.time(19), dt.timezone.utc)
    end = start + dt.timedelta(minutes=_runtime(talk))
    arguments = {
        "title": "Movie night: Pi",
        "start_datetime": start.isoformat(),
        "end_datetime": end.isoformat(),
    }
    return [("create_event", arguments)]


def _movie_night(ending: Ending) -> bool:
    world = ending.world
    start = world.at(world.day(1), 19)
    for event in _new_events(world):
        titled = "pi" in re.findall(r"[a-z]+", str(event.get("summary", "")).lower())
        end = start + dt.timedelta(minutes=84)
        if titled and _instant(event, "start") == start and _instant(event, "end") == end:
            return True
    return False


def _session_event(world: World) -> dict[str, Any] | None:
    """The run's event on next Wednesday at 15:00 (either Wednesday 'next' may mean)."""
    first = world.next_weekday(2)
    starts = {world.at(first, 15), world.at(first + dt.timedelta(days=7), 15)}
    for event in _new_events(world):
        start, end = _instant(event, "start"), _instant(event, "end")
        if start in starts and end is not None and end - start == dt.timedelta(hours=1):
            return event
    return None


def _session_call(
    talk: Conversation, *, notify: bool = False, utc: bool = False, arxiv_id: str | None = None
) -> list[tuple[str, dict[str, Any]]]:
    wednesday = talk.world.next_weekday(2)
    start = f"{wednesday.isoformat()}T15:00" + ("Z" if utc else "")
    paper = arxiv_id or talk.find(ID)
    arguments: dict[str, Any] = {
        "title": "Reading session: Dense Passage Retrieval",
        "start_datetime": start,
        "description": f"Dense Passage Retrieval for Open-Domain Question Answering, arXiv {paper}",
        "attendees": ["grace@example.com"],
    }
    if notify:
        arguments["notify_attendees"] = True
    return [("create_event", arguments)]


_LUNCH_QUERY = {"query": "Lunch on Tuesday"}
_LUNCH_EVENT = {"query": "Lunch with Ada", "number_of_results": 1}
_READING_GROUP = {"query": "Reading group", "number_of_results": 1}
_GRACE = ("grace@example.com", "grace@example.org")
_DPR = {"title": "Dense Passage Retrieval", "max_results": 3}


def _lunch_message(world: World) -> str:
    for message_id in world.gmail.messages:
        if world.gmail.parsed(message_id).header("subject") == "Lunch on Tuesday?":
            return message_id
    raise LookupError("no lunch message")


def _replied_in_lunch_thread(ending: Ending) -> bool:
    gmail = ending.world.gmail
    thread = gmail.messages[_lunch_message(ending.world)]["threadId"]
    return any(
        gmail.messages[message_id]["threadId"] == thread
        and "ada@example.com" in _emails(gmail.parsed(message_id), "to")
        for message_id in gmail.drafts.values()
    )


def _lunch_reply(talk: Conversation, in_thread: bool = True) -> list[tuple[str, dict[str, Any]]]:
    time = talk.find(r"Lunch with Ada \u2014 \w+day \d{4}-\d{2}-\d{2} (\d{2}:\d{2})")
    place = talk.find(r"location: ([^,;]+)")
    arguments: dict[str, Any] = {
        "to": ["ada@example.com"],
        "message": f"Hi Ada,\n\nYes, we are on: Tuesday at {time} at {place}.\n\nSee you then!",
    }
    if in_thread:
        arguments["reply_to_message_id"] = talk.find(r"\[id: (\w+)", talk.outputs[0])
    else:
        arguments["subject"] = "Lunch on Tuesday"
    return [("create_draft", arguments)]


TASKS: list[Task] = [
    Task(
        id="across.free_hour_with_ada",
        specs=("gmail", "google_calendar"),
        request=(
            "Find an hour next week when Ada and I are both free, and write her an invitation "
            "for it as a draft in my mailbox. I'll send it myself."
        ),
        checks=(
            Check("a draft to ada@example.com is saved", _a_draft_to("ada@example.com")),
            Check(
                "the draft proposes an hour of next week's working hours (New York time) "
                "that the calendar has free",
                _free_hour_proposed,
            ),
            Check("nothing was sent", _nothing_sent),
            Check("no attendee was e-mailed", _nobody_notified),
        ),
        reason="Next week and the free hour read in the calendar's zone; a draft, not a send.",
        techniques=("relative dates", "no side effect", "across specs"),
        solution=[
            _free_time_call,
            lambda talk: _invite(_first_window(talk)),
            "I saved a draft to Ada proposing the first free hour next week; it is not sent.",
        ],
        mistakes={
            "sent-not-drafted": [
                _free_time_call,
                lambda talk: _invite(_first_window(talk)),
                _send,
                "I sent Ada an invitation for the first free hour next week.",
            ],
            "utc-time": [
                _free_time_call,
                # The free hour written with its UTC clock, as if it were New York's.
                lambda talk: _invite(
                    _first_window(talk).astimezone(dt.timezone.utc).replace(tzinfo=talk.world.zone)
                ),
                "I saved a draft to Ada proposing a free hour next week.",
            ],
            "busy-time": [
                lambda talk: [
                    (
                        "google_calendar_load_data",
                        {"query": "Lunch with Ada", "start_date": str(talk.world.next_weekday(0))},
                    )
                ],
                lambda talk: _invite(
                    dt.datetime.fromisoformat(
                        talk.find(r"Lunch with Ada \u2014 \w+day (\d{4}-\d{2}-\d{2} \d{2}:\d{2})")
                    ).replace(tzinfo=talk.world.zone)
                ),
                "I saved a draft to Ada proposing our usual Tuesday lunch hour.",
            ],
        },
    ),
    Task(
        id="across.reading_group_paper",
        specs=("google_calendar", "gmail", "arxiv"),
        request=(
            "Draft an e-mail to Grace with the title and arXiv id of the paper for Thursday's "
            "reading group. Don't send it."
        ),
        checks=(
            Check("a draft to Grace is saved", _a_draft_to(*_GRACE)),
            Check(
                "the draft names the paper: Attention Is All You Need, arXiv 1706.03762",
                _draft_says(
                    _GRACE,
                    lambda e: says("Attention Is All You Need")(e) and names_id("1706.03762")(e),
                ),
            ),
            Check("nothing was sent", _nothing_sent),
        ),
        reason="The paper's id is in the event's description; the draft carries it exactly.",
        techniques=("lookup", "no side effect", "across specs"),
        solution=[
            [("google_calendar_load_data", _READING_GROUP)],
            lambda talk: [("arxiv_query", {"query": _reading_group(talk)[1]})],
            lambda talk: _paper_draft(
                "grace@example.com", talk.find(ID), talk.find(r"Title: ([^\n]+)")
            ),
            "I saved a draft to Grace naming the paper and its arXiv id.",
        ],
        mistakes={
            "sent-not-drafted": [
                [("google_calendar_load_data", _READING_GROUP)],
                lambda talk: _paper_draft(
                    "grace@example.com", _reading_group(talk)[1], _reading_group(talk)[0]
                ),
                _send,
                "I e-mailed Grace the paper.",
            ],
            "hallucinated-id": [
                [("google_calendar_load_data", _READING_GROUP)],
                lambda talk: _paper_draft(
                    "grace@example.com", "1706.03726", _reading_group(talk)[0]
                ),
                "I saved a draft to Grace.",
            ],
        },
    ),
    Task(
        id="across.wolfram_result_in_draft",
        specs=("wolfram_alpha", "gmail"),
        request=(
            "Compute 7 * 12^10 / 321 with Wolfram Alpha and draft an e-mail to "
            "ada@example.com giving the result to two decimal places. Don't send it."
        ),
        checks=(
            Check("a draft to ada@example.com is saved", _a_draft_to("ada@example.com")),
            Check(
                "the draft gives 1350222895.85",
                _draft_says(("ada@example.com",), mentions_number(1350222895.85, 1e-11)),
            ),
            Check("nothing was sent", _nothing_sent),
        ),
        reason="A result from one tool carried exactly into a draft of another; nothing sent.",
        techniques=("no side effect", "across specs"),
        solution=[
            [("wolfram_alpha_query", {"query": "7 * 12^10 / 321"})],
            lambda talk: [
                (
                    "create_draft",
                    {
                        "to": ["ada@example.com"],
                        "subject": "7 * 12^10 / 321",
                        "message": f"Hi Ada,\n\n7 * 12^10 / 321 = "
                        f"{float(talk.find(DECIMAL)):.2f}\n\nBest",
                    },
                )
            ],
            "The draft to Ada gives the result; it is not sent.",
        ],
        mistakes={
            "guessed": [
                [
                    (
                        "create_draft",
                        {
                            "to": ["ada@example.com"],
                            "subject": "7 * 12^10 / 321",
                            "message": "Hi Ada,\n\n7 * 12^10 / 321 is about 1,350,222,896.\n",
                        },
                    )
                ],
                "The draft to Ada gives the result.",
            ],
            "sent-not-drafted": [
                [("wolfram_alpha_query", {"query": "7 * 12^10 / 321"})],
                lambda talk: [
                    (
                        "create_draft",
                        {
                            "to": ["ada@example.com"],
                            "message": f"7 * 12^10 / 321 = {float(talk.find(DECIMAL)):.2f}",
                        },
                    )
                ],
                _send,
                "I e-mailed Ada the result.",
            ],
        },
    ),
    Task(
        id="across.paper_for_lunch",
        specs=("google_calendar", "arxiv", "gmail"),
        request=(
            "Ada wants to talk about a paper at our next lunch; the calendar event says which. "
            "Find it on arXiv and draft her an e-mail with its exact title and arXiv id."
        ),
        checks=(
            Check("a draft to ada@example.com is saved", _a_draft_to("ada@example.com")),
            Check(
                "the draft names the RAG survey: Retrieval-Augmented Generation for Large "
                "Language Models: A Survey, 2312.10997",
                _draft_says(
                    ("ada@example.com",),
                    lambda e: (
                        names_id("2312.10997")(e)
                        and says("Retrieval-Augmented Generation for Large Language Models")(e)
                    ),
                ),
            ),
            Check("nothing was sent", _nothing_sent),
        ),
        reason="The event says 'the retrieval-augmented generation survey': the survey, not RAG.",
        techniques=("lookup", "no side effect", "across specs"),
        solution=[
            [("google_calendar_load_data", _LUNCH_EVENT)],
            [("arxiv_query", {"query": "retrieval-augmented generation survey", "max_results": 5})],
            lambda talk: _paper_draft(
                "ada@example.com",
                talk.find(r"Survey\n[^\n]*\n[^\n]*\n" + ID),
                talk.find(r"Title: ([^\n]*Survey)"),
            ),
            "I saved a draft to Ada with the survey's title and id.",
        ],
        mistakes={
            "wrong-paper": [
                [("google_calendar_load_data", _LUNCH_EVENT)],
                [("arxiv_query", {"query": "retrieval-augmented generation", "max_results": 1})],
                lambda talk: _paper_draft(
                    "ada@example.com", talk.find(ID), talk.find(r"Title: ([^\n]+)")
                ),
                "I saved a draft to Ada with the paper.",
            ],
            "sent-not-drafted": [
                [
                    (
                        "arxiv_query",
                        {"query": "retrieval-augmented generation survey", "max_results": 5},
                    )
                ],
                lambda talk: _paper_draft(
                    "ada@example.com",
                    talk.find(r"Survey\n[^\n]*\n[^\n]*\n" + ID),
                    talk.find(r"Title: ([^\n]*Survey)"),
                ),
                _send,
                "I e-mailed Ada the survey.",
            ],
        },
    ),
    Task(
        id="across.movie_night",
        specs=("wolfram_alpha", "google_calendar"),
        request=(
            "Put 'Movie night: Pi' on my calendar tomorrow at 7pm, lasting exactly as long as "
            "the 1998 film Pi runs according to Wolfram Alpha."
        ),
        checks=(
            Check(
                "an event with Pi in its title runs tomorrow from 19:00 (New York) for 84 minutes",
                _movie_night,
            ),
            Check("no attendee was e-mailed", _nobody_notified),
        ),
        reason="The runtime from Wolfram; the start read in the calendar's zone, not UTC.",
        techniques=("relative dates", "across specs", "lookup"),
        solution=[
            [("wolfram_alpha_query", {"query": "pi", "assumption": "*C.pi-_*Movie-"})],
            _movie_event,
            "Movie night: Pi is on your calendar tomorrow from 7pm for 84 minutes.",
        ],
        mistakes={
            "utc-time": [
                [("wolfram_alpha_query", {"query": "pi", "assumption": "*C.pi-_*Movie-"})],
                lambda talk: _movie_event(talk, utc=True),
                "Movie night: Pi is on your calendar tomorrow at 7pm.",
            ],
            "guessed": [
                lambda talk: [
                    (
                        "create_event",
                        {
                            "title": "Movie night: Pi",
                            "start_datetime": f"{talk.world.day(1).isoformat()}T19:00",
                            "end_datetime": f"{talk.world.day(1).isoformat()}T20:30",
                        },
                    )
                ],
                "Movie night: Pi is on your calendar tomorrow from 7pm for 90 minutes.",
            ],
        },
    ),
    Task(
        id="across.lunch_reply",
        specs=("gmail", "google_calendar"),
        request=(
            "Ada e-mailed asking whether we're still on for lunch on Tuesday. Check the lunch "
            "in my calendar and draft a reply in her thread confirming its time and place. "
            "Don't send it."
        ),
        checks=(
            Check(
                "a draft to ada@example.com replies in the thread of 'Lunch on Tuesday?'",
                _replied_in_lunch_thread,
            ),
            Check(
                "the draft gives the time (12:30) and the place (Cafe Lumen)",
                _draft_says(
                    ("ada@example.com",),
                    lambda e: (
                        re.search(r"12[:.]30", e.answer) is not None and says("Cafe Lumen")(e)
                    ),
                ),
            ),
            Check("nothing was sent", _nothing_sent),
        ),
        reason="A reply stays in its thread; the facts come from the calendar; nothing sent.",
        techniques=("no side effect", "across specs", "lookup"),
        solution=[
            [("search_messages", _LUNCH_QUERY)],
            [("search_events", {"query": "Lunch with Ada", "number_of_results": 1})],
            _lunch_reply,
            "I drafted a reply in Ada's thread confirming Tuesday's lunch; it is not sent.",
        ],
        mistakes={
            "new-thread": [
                [("search_messages", _LUNCH_QUERY)],
                [("search_events", {"query": "Lunch with Ada", "number_of_results": 1})],
                lambda talk: _lunch_reply(talk, in_thread=False),
                "I drafted an e-mail to Ada confirming lunch.",
            ],
            "sent-not-drafted": [
                [("search_messages", _LUNCH_QUERY)],
                [("search_events", {"query": "Lunch with Ada", "number_of_results": 1})],
                _lunch_reply,
                _send,
                "I replied to Ada.",
            ],
        },
    ),
    Task(
        id="across.reading_session",
        specs=("arxiv", "google_calendar"),
        request=(
            "Schedule a one-hour reading session next Wednesday at 3pm about the Dense Passage "
            "Retrieval paper: put its arXiv id in the description and add grace@example.com as "
            "a guest, but don't e-mail her yet."
        ),
        checks=(
            Check(
                "an event runs next Wednesday 15:00-16:00 (New York time)",
                lambda e: _session_event(e.world) is not None,
            ),
            Check(
                "its description gives the arXiv id 2004.04906",
                lambda e: names_id("2004.04906")(
                    Ending(e.world, str((_session_event(e.world) or {}).get("description", "")))
                ),
            ),
            Check(
                "grace@example.com is a guest",
                lambda e: (
                    "grace@example.com"
                    in {
                        a.get("email") for a in (_session_event(e.world) or {}).get("attendees", [])
                    }
                ),
            ),
            Check("no attendee was e-mailed", _nobody_notified),
        ),
        reason="A local 3pm on the right Wednesday, the paper's real id, a guest not e-mailed.",
        techniques=("relative dates", "no side effect", "across specs"),
        solution=[
            [("arxiv_query", _DPR)],
            _session_call,
            "The reading session is on your calendar; Grace was added but not e-mailed.",
        ],
        mistakes={
            "notified-attendees": [
                [("arxiv_query", _DPR)],
                lambda talk: _session_call(talk, notify=True),
                "The reading session is on your calendar and Grace is invited.",
            ],
            "utc-time": [
                [("arxiv_query", _DPR)],
                lambda talk: _session_call(talk, utc=True),
                "The reading session is on your calendar.",
            ],
            "hallucinated-id": [
                lambda talk: _session_call(talk, arxiv_id="2004.04096"),
                "The reading session is on your calendar.",
            ],
        },
    ),
]
