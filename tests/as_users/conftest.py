"""The tier that builds each Google spec as a user does and calls every tool over the wire.

One :class:`FakeGoogleServer` per test session (a thread on 127.0.0.1, not a process: no
``serving`` mark), given fresh fakes for each test (a new calendar, mailbox and OAuth
fake: cheap). A spec reaches it through google-auth, ``AuthorizedHttp``, googleapiclient
and httplib2, pointed there by ``client_options`` and the credentials' ``token_uri``.
Calls run as a user's do: ``TOOLSPECS_STRICT`` unset, so an internal error is the text
"internal error" a user would see, and counted.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from as_users_modes import DELEGATED, SERVICE_ACCOUNT, TALLY, USER, Setting
from service_account_keys import key_pair

from toolspecs.loaders.google.testing import (
    FakeCalendar,
    FakeGoogleServer,
    sample_mailbox,
    timed_event,
)
from toolspecs.loaders.google.testing.calendar import calendar_entry
from toolspecs.loaders.google.testing.oauth import FakeGoogleOAuth
from toolspecs.loaders.google.testing.server import CLIENT_ID, CLIENT_SECRET

NY = "America/New_York"


@pytest.fixture(scope="session")
def google_server() -> Iterator[FakeGoogleServer]:
    with FakeGoogleServer() as server:
        yield server


@pytest.fixture(scope="session")
def service_account_key() -> tuple[str, str]:
    return key_pair()


def team_calendar() -> FakeCalendar:
    """Ada's calendar in New York, the week of Monday 2026-11-23: fixed dates, any clock."""

    def at(day: int, hour: int, minute: int = 0) -> str:
        return f"2026-11-{day:02d}T{hour:02d}:{minute:02d}:00-05:00"

    me = {"email": USER, "self": True, "responseStatus": "needsAction"}
    events = {
        "evtlunch": timed_event(
            "evtlunch",
            "Lunch with Grace",
            at(24, 12, 30),
            at(24, 13, 30),
            location="Cafe Lumen, 12 Mercer St",
            attendees=[{"email": "grace@example.com"}, me],
            organizer={"email": "grace@example.com"},
        ),
        "evtreview": timed_event(
            "evtreview",
            "Design review",
            at(25, 14),
            at(25, 15),
            attendees=[{"email": "alan@example.com"}, {"email": "grace@example.com"}],
        ),
        "evtreading": timed_event(
            "evtreading",
            "Reading group",
            at(26, 16),
            at(26, 17),
            description="Paper: arXiv 1706.03762. Bring one question.",
        ),
        "evtstandup": timed_event(
            "evtstandup",
            "Team standup",
            at(23, 9, 30),
            at(23, 9, 45),
            recurrence=["RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;COUNT=10"],
        ),
    }
    busy = {
        "grace@example.com": [{"start": at(24, 12, 30), "end": at(24, 13, 30)}],
        "alan@example.com": [{"start": at(24, 9), "end": at(24, 11)}],
    }
    entries = [
        calendar_entry("ada@example.com", "Ada Lovelace", NY, primary=True),
        calendar_entry("team@example.com", "Team", NY, access_role="reader"),
    ]
    return FakeCalendar(NY, events=events, busy=busy, calendar_list=entries)


@pytest.fixture
def setting(
    google_server: FakeGoogleServer,
    service_account_key: tuple[str, str],
    tmp_path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Setting]:
    """A user of this test: fresh fakes on the shared server, a folder of their own."""
    monkeypatch.delenv("TOOLSPECS_STRICT", raising=False)  # as users run it
    oauth = FakeGoogleOAuth(CLIENT_ID, CLIENT_SECRET)
    oauth.add_user(USER)
    private, public = service_account_key
    oauth.add_service_account(SERVICE_ACCOUNT, public, DELEGATED)
    gmail = sample_mailbox()
    google_server.use(calendar=team_calendar(), gmail=gmail, oauth=oauth)
    google_server.shared_calendars = {"ada@example.com"}
    folder = tmp_path / "user"
    folder.mkdir()
    yield Setting(google_server, folder, private, monkeypatch)
    assert not google_server.errors, f"requests the fake refused: {google_server.errors}"


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if TALLY.calls:
        terminalreporter.write_sep("-", "as users run it: the Google matrix")
        terminalreporter.write_line(
            f"tool calls: {TALLY.calls}; internal errors: {len(TALLY.internal_errors)}; "
            f"wrong answers: {len(TALLY.wrong)}; known findings (xfail): {len(TALLY.xfailed)}"
        )
        for line in TALLY.internal_errors + TALLY.wrong:
            terminalreporter.write_line(f"  {line}")
