"""toolspecs.loaders.google: Google auth, API clients and readers (Calendar, Gmail).

Usable on their own: they raise :class:`GoogleLoaderError` and its kinds, and take their
test double as ``transport=`` (:mod:`toolspecs.loaders.google.testing`).
"""

from toolspecs.loaders.google.auth import GoogleAuth, write_private
from toolspecs.loaders.google.calendar import (
    CALENDAR_SCOPES,
    GoogleCalendarReader,
    describe_event,
    parse_event_time,
)
from toolspecs.loaders.google.errors import (
    GoogleApiError,
    GoogleAuthError,
    GoogleLoaderError,
    GoogleResponseError,
    GoogleUnreachable,
)
from toolspecs.loaders.google.gmail import (
    GMAIL_SCOPES,
    GmailDrafts,
    GmailReader,
    describe_message,
    describe_summary,
    gmail_query,
)
from toolspecs.loaders.google.html_text import html_to_text
from toolspecs.loaders.google.mail import MailMessage, parse_raw
from toolspecs.loaders.google.scopes import scope_label
from toolspecs.loaders.google.service import GoogleApiReader, build_service, execute

__all__ = [
    "CALENDAR_SCOPES",
    "GMAIL_SCOPES",
    "GmailDrafts",
    "GmailReader",
    "GoogleApiError",
    "GoogleApiReader",
    "GoogleAuth",
    "GoogleAuthError",
    "GoogleCalendarReader",
    "GoogleLoaderError",
    "GoogleResponseError",
    "GoogleUnreachable",
    "MailMessage",
    "build_service",
    "describe_event",
    "describe_message",
    "describe_summary",
    "execute",
    "gmail_query",
    "html_to_text",
    "parse_event_time",
    "parse_raw",
    "scope_label",
    "write_private",
]
