"""Times read before their zone is known, carrying what the agent wrote.

Reading a call asks no service, so a calendar's zone not known yet is stood in for by
UTC (:data:`STAND_IN`); each value keeps the agent's text, so that a host that validates
outside the call (LangChain) hands back what the tool reads again in the call's zone.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

__all__ = ["STAND_IN", "StandInZone", "WrittenDate", "WrittenTime", "as_written"]


class StandInZone(dt.tzinfo):
    """UTC, standing in for a zone not known yet (a calendar's own, which takes a request)."""

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
    """A time read in :data:`STAND_IN`, with the text the agent wrote as ``written``."""

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
    """A time's JSON (a pydantic wrap serializer): one read in the stand-in goes as written."""
    if isinstance(value, (WrittenTime, WrittenDate)):
        return value.written
    return serialize(value)
