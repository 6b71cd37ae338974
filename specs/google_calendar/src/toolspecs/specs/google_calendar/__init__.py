"""toolspecs.specs.google_calendar: Google Calendar tools, a drop-in for LlamaHub's."""

from toolspecs.specs.google_calendar.base import SCOPES, GoogleCalendarToolSpec

__all__ = ["SCOPES", "GoogleCalendarToolSpec"]
