"""toolspecs.loaders.google: Google auth, API clients and readers shared by the Google specs."""

from toolspecs.loaders.google.auth import GoogleAuth, scope_label, write_private
from toolspecs.loaders.google.calendar import (
    CALENDAR_SCOPES,
    GoogleCalendarReader,
    describe_event,
    parse_event_time,
)
from toolspecs.loaders.google.errors import google_guidance
from toolspecs.loaders.google.service import build_service, execute

__all__ = [
    "CALENDAR_SCOPES",
    "GoogleAuth",
    "GoogleCalendarReader",
    "build_service",
    "describe_event",
    "execute",
    "google_guidance",
    "parse_event_time",
    "scope_label",
    "write_private",
]
