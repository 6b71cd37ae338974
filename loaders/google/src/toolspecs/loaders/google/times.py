"""Times as the Documents show them: weekday, date, time, UTC offset and zone name.

``Saturday 2026-11-21 16:00 -05:00 (America/New_York)``: every time a Document carries
says which day it is and how far from UTC, so a reader (or an agent) never has to guess.
Written by toolspecs-base (:mod:`toolspecs.base.times`), the same text as toolspecs-core's
clock writes; the loader alone (no toolspecs-core) reads the wall clock and the machine's
zone, the defaults there.
"""

from __future__ import annotations

from toolspecs.base.times import (
    format_date,
    format_datetime,
    format_offset,
    local_timezone,
    timezone_name,
    timezone_named,
)

__all__ = [
    "format_date",
    "format_datetime",
    "format_offset",
    "local_timezone",
    "timezone_name",
    "timezone_named",
]
