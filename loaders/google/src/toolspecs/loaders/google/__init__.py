"""toolspecs.loaders.google: Google auth, API clients and readers (Calendar, Gmail)."""

from toolspecs.loaders.google.auth import GoogleAuth, scope_label, write_private
from toolspecs.loaders.google.calendar import (
    CALENDAR_SCOPES,
    GoogleCalendarReader,
    describe_event,
    parse_event_time,
)
from toolspecs.loaders.google.errors import google_guidance
from toolspecs.loaders.google.gmail import (
    GMAIL_SCOPES,
    GmailReader,
    describe_message,
    describe_summary,
    gmail_query,
)
from toolspecs.loaders.google.mail import MailMessage, html_to_text, parse_raw
from toolspecs.loaders.google.people import parse_addresses
from toolspecs.loaders.google.service import GoogleApiReader, build_service, execute
from toolspecs.loaders.google.spec import GoogleToolSpec

__all__ = [
    "CALENDAR_SCOPES",
    "GMAIL_SCOPES",
    "GmailReader",
    "GoogleApiReader",
    "GoogleAuth",
    "GoogleCalendarReader",
    "GoogleToolSpec",
    "MailMessage",
    "build_service",
    "describe_event",
    "describe_message",
    "describe_summary",
    "execute",
    "gmail_query",
    "google_guidance",
    "html_to_text",
    "parse_addresses",
    "parse_event_time",
    "parse_raw",
    "scope_label",
    "write_private",
]
