"""``Retry-After`` (RFC 9110, section 10.2.3) read as the seconds to wait."""

from __future__ import annotations

import datetime as dt
from email.utils import parsedate_to_datetime


def retry_after(value: str | None) -> float | None:
    """A ``Retry-After`` value (seconds, or an HTTP date) in seconds; ``None`` when not a time."""
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
