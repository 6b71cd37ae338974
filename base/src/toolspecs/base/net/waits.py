"""``Retry-After`` (RFC 9110, section 10.2.3) read as the seconds to wait."""

from __future__ import annotations

import datetime as dt
from email.utils import parsedate_to_datetime


def retry_after(value: str | None) -> float | None:
    """A ``Retry-After`` value in seconds; ``None`` when absent or not a time.

    It is a number of seconds (digits only) or an HTTP date, measured from the real
    time (a date in the past is 0 seconds).
    """
    value = (value or "").strip()
    if not value:
        return None
    if value.isascii() and value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT
        when = when.replace(tzinfo=dt.timezone.utc)
    return max(0.0, (when - dt.datetime.now(dt.timezone.utc)).total_seconds())
