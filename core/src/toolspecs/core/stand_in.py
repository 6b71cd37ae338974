"""Times read before their zone is known, carrying what the agent wrote.

Reading a Calendar call's arguments asks Google nothing (:mod:`toolspecs.core.schema`):
when the calendar's zone is not known yet, naive and relative times are checked in a
stand-in zone (:data:`STAND_IN`, UTC) and read again in the call, in the calendar's zone.
A host that validates with a tool's ``fn_schema`` outside the call (LangChain's
``StructuredTool``) gets values read in the stand-in; each keeps the text the agent wrote
(:class:`WrittenTime`, :class:`WrittenDate`), so that the tool, handed one back, reads
that text again in the call's zone (:mod:`toolspecs.core.inputs`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

__all__ = ["STAND_IN", "StandInZone", "WrittenDate", "WrittenTime", "as_written"]


class StandInZone(dt.tzinfo):
    """UTC, standing in for a zone not known yet (a calendar's own, which takes a request).

    Times read in it only check the call; each keeps what the agent wrote
    (:class:`WrittenTime`, :class:`WrittenDate`), for the call to read again in its zone.
    """

    def utcoffset(self, moment: dt.datetime | None) -> dt.timedelta:
        """No offset: UTC."""
        return dt.timedelta(0)

    def dst(self, moment: dt.datetime | None) -> dt.timedelta:
        """No daylight saving time."""
        return dt.timedelta(0)

    def tzname(self, moment: dt.datetime | None) -> str:
        """``UTC``."""
        return "UTC"


STAND_IN = StandInZone()
"""The zone of a reading that only checks a call: see :class:`StandInZone`."""


class WrittenTime(dt.datetime):
    """A time read in :data:`STAND_IN`, with the text the agent wrote as ``written``.

    A host that validates arguments with a tool's ``fn_schema`` outside the call (LangChain's
    ``StructuredTool``) hands this back to the tool, which reads ``written`` again in the
    call's zone: ``"tomorrow 4pm"`` is then 16:00 on the calendar's tomorrow, not UTC's.
    """

    written: str

    @classmethod
    def of(cls, moment: dt.datetime, written: str) -> WrittenTime:
        """``moment`` (in UTC) carrying ``written``."""
        utc = moment.astimezone(dt.timezone.utc)
        made = cls.combine(utc.date(), utc.timetz())
        made.written = written
        return made


class WrittenDate(dt.date):
    """A date read in :data:`STAND_IN` ("tomorrow"), with the text the agent wrote."""

    written: str

    @classmethod
    def of(cls, day: dt.date, written: str) -> WrittenDate:
        """``day`` carrying ``written``."""
        made = cls(day.year, day.month, day.day)
        made.written = written
        return made


def as_written(value: Any, serialize: Callable[[Any], Any]) -> Any:
    """A time's JSON (a pydantic wrap serializer): one read in the stand-in goes as written.

    A host that sends the validated call on as JSON then sends the agent's own text, for
    the tool to read in the call's zone; any other time is ``serialize``'s as usual.
    """
    if isinstance(value, (WrittenTime, WrittenDate)):
        return value.written
    return serialize(value)
