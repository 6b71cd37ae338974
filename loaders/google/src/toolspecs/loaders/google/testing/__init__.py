"""Fake Google services for offline tests and demos: pass one as ``transport=``.

``FakeCalendar`` and ``FakeGmail`` answer googleapiclient's requests from memory, record
them, fail on demand and check request bodies against Google's bundled discovery
documents. Each fake is itself the transport (an ``httplib2.Http`` stand-in;
``fake.transport()`` returns it too), for the readers and the specs alike. Use them to
test your own agents without a Google account::

    from toolspecs.loaders.google.testing import FakeCalendar
    from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

    spec = GoogleCalendarToolSpec(transport=FakeCalendar())

``FakeGoogleServer`` serves them over real HTTP on 127.0.0.1, with Google's OAuth token
and revoke endpoints and its checks of each call's bearer token, for a spec built as a
user builds it (``creds=``, a token file, a service account) with
``client_options=server.client_options``: the whole stack a user's call goes through.
"""

from toolspecs.loaders.google.testing.calendar import FakeCalendar, timed_event
from toolspecs.loaders.google.testing.gmail import (
    EVIL_NAME,
    FIXTURES,
    FakeGmail,
    attachment_message,
    files_message,
    fixture,
    hidden_html_message,
    hostile_mailbox,
    hostile_messages,
    huge_message,
    long_message,
    nested_message,
    sample_mailbox,
)
from toolspecs.loaders.google.testing.http import (
    HTML_PAGE,
    FakeGoogleHttp,
    Request,
    SchemaError,
    check_schema,
    discovery,
)
from toolspecs.loaders.google.testing.server import FakeGoogleServer

__all__ = [
    "EVIL_NAME",
    "FIXTURES",
    "HTML_PAGE",
    "FakeCalendar",
    "FakeGmail",
    "FakeGoogleHttp",
    "FakeGoogleServer",
    "Request",
    "SchemaError",
    "attachment_message",
    "check_schema",
    "discovery",
    "files_message",
    "fixture",
    "hidden_html_message",
    "hostile_mailbox",
    "hostile_messages",
    "huge_message",
    "long_message",
    "nested_message",
    "sample_mailbox",
    "timed_event",
]
