"""Calls of one Google spec run side by side, each thread sending with its own HTTP object.

httplib2 is not thread-safe, so each thread gets its own ``httplib2.Http`` (inside an
``AuthorizedHttp`` when the spec has credentials) instead of one lock around every call
(``toolspecs.loaders.google.connections``). Proved without timing: the fakes hold each
call's first request until all of them are in flight at once.
"""

from __future__ import annotations

import datetime as dt
import threading

import google_auth_httplib2
import httplib2
from google.auth import credentials as ga_credentials
from google.oauth2.credentials import Credentials

from toolspecs.loaders.google.connections import SerialRefresh
from toolspecs.loaders.google.testing import FakeGmail, sample_mailbox
from toolspecs.specs.gmail import GmailToolSpec

CALLS = 4


class Handle:
    """One thread's HTTP object: holds its first request until every call has sent one."""

    def __init__(self, mailbox: FakeGmail, together: threading.Barrier, made: list) -> None:
        self.mailbox = mailbox
        self.together = together
        self.threads: set[int] = set()
        self.waited = False
        made.append(self)

    def request(self, *args, **kwargs):
        self.threads.add(threading.get_ident())
        if not self.waited:
            self.waited = True
            self.together.wait(20)  # broken if the calls took turns
        return self.mailbox.request(*args, **kwargs)


def in_threads(count: int, fn) -> list:
    """``fn()`` in ``count`` threads started together: their results, in order."""
    results: list = [None] * count
    start = threading.Barrier(count)

    def run(index: int) -> None:
        start.wait(20)
        results[index] = fn()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


def test_calls_of_one_spec_are_in_flight_at_once_each_with_its_own_http():
    mailbox = sample_mailbox()
    together = threading.Barrier(CALLS)
    made: list[Handle] = []
    spec = GmailToolSpec(transport=lambda: Handle(mailbox, together, made))
    search = next(t for t in spec.to_tool_list() if t.metadata.name == "search_messages")
    outputs = in_threads(CALLS, lambda: search.call(query="lunch", max_results=2))
    assert not together.broken  # all four calls had a request in flight at the same time
    assert all(not out.is_error for out in outputs), [out.content for out in outputs]
    assert len({out.content for out in outputs}) == 1  # the same answer for each
    # One HTTP object per thread that sent, each used by one thread only.
    assert len(made) == CALLS
    assert all(len(handle.threads) == 1 for handle in made)
    assert len({next(iter(handle.threads)) for handle in made}) == CALLS


def test_with_credentials_each_thread_sends_with_its_own_authorized_http():
    creds = Credentials(token="an-access-token")  # no expiry: used as it is, no refresh
    spec = GmailToolSpec(creds=creds)

    def request_http():
        return spec.reader.service.users().messages().list(userId="me").http

    https = in_threads(CALLS, request_http)
    assert all(isinstance(h, google_auth_httplib2.AuthorizedHttp) for h in https)
    assert len({id(h) for h in https}) == CALLS  # no two threads share one
    assert len({id(h.http) for h in https}) == CALLS
    assert all(isinstance(h.http, httplib2.Http) for h in https)
    # ... and the same thread keeps its own: its connections are reused.
    assert request_http() is request_http()
    # They share the credentials, renewed one thread at a time.
    assert len({id(h.credentials) for h in https}) == 1
    assert isinstance(https[0].credentials, SerialRefresh)
    assert https[0].credentials.credentials is creds


class SlowToRenew(ga_credentials.Credentials):
    """Credentials whose token has expired; renewing it is slow and counted."""

    def __init__(self) -> None:
        super().__init__()
        self.token = "old"
        self.expiry = dt.datetime(2020, 1, 1)
        self.renewals = 0

    def refresh(self, request) -> None:
        self.renewals += 1
        threading.Event().wait(0.05)  # room for the other threads to come in meanwhile
        self.token = f"new-{self.renewals}"
        self.expiry = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) + dt.timedelta(hours=1)


def test_an_expired_token_is_renewed_once_for_threads_that_all_found_it_expired():
    creds = SlowToRenew()
    shared = SerialRefresh(creds)

    def send() -> dict:
        headers: dict = {}
        shared.before_request(None, "GET", "https://gmail.googleapis.com/", headers)
        return headers

    sent = in_threads(8, send)
    assert creds.renewals == 1
    assert {h["authorization"] for h in sent} == {"Bearer new-1"}
