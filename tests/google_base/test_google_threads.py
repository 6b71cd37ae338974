"""Calls of one Google spec run side by side, each thread sending with its own HTTP object.

httplib2 is not thread-safe, so each thread gets its own ``httplib2.Http`` (inside an
``AuthorizedHttp`` when the spec has credentials) instead of one lock around every call
(``toolspecs.loaders.google.service``). Proved without timing: the fakes hold each
call's first request until all of them are in flight at once.
"""

from __future__ import annotations

import datetime as dt
import threading

import google_auth_httplib2
import httplib2
from google.auth import credentials as ga_credentials
from google.oauth2.credentials import Credentials

from toolspecs.loaders.google.authorized_http import SerialAuthorizedHttp
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
    # They share the user's credentials as they are (googleapiclient's batch code needs
    # google-auth's own), renewed one thread at a time.
    assert all(h.credentials is creds for h in https)
    assert all(isinstance(h, SerialAuthorizedHttp) for h in https)
    assert len({id(h.renewing) for h in https}) == 1


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


class Wire:
    """An ``httplib2.Http`` that answers 200 and records the Authorization header sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def request(self, uri, method="GET", body=None, headers=None, **kwargs):
        self.sent.append(headers["authorization"])
        return httplib2.Response({"status": "200"}), b"{}"


def test_an_expired_token_is_renewed_once_for_threads_that_all_found_it_expired():
    creds = SlowToRenew()
    renewing = threading.Lock()
    wires = [Wire() for _ in range(8)]
    https = iter([SerialAuthorizedHttp(creds, wire, renewing) for wire in wires])
    lock = threading.Lock()

    def send() -> None:
        with lock:
            http = next(https)
        http.request("https://gmail.googleapis.com/gmail/v1/users/me/profile")

    in_threads(8, send)
    assert creds.renewals == 1
    assert {sent for wire in wires for sent in wire.sent} == {"Bearer new-1"}


class Refusing(Wire):
    """Answers 401 to the first token it sees, 200 to any other."""

    def __init__(self, refused: str) -> None:
        super().__init__()
        self.refused = refused

    def request(self, uri, method="GET", body=None, headers=None, **kwargs):
        self.sent.append(headers["authorization"])
        status = "401" if headers["authorization"] == f"Bearer {self.refused}" else "200"
        return httplib2.Response({"status": status}), b"{}"


def test_a_token_refused_in_several_threads_is_renewed_once():
    creds = SlowToRenew()
    creds.token, creds.expiry = "refused", None  # valid as far as the client can tell
    renewing = threading.Lock()
    wires = [Refusing("refused") for _ in range(4)]
    together = threading.Barrier(4)
    https = [SerialAuthorizedHttp(creds, wire, renewing) for wire in wires]

    def send(http) -> int:
        together.wait(20)
        return http.request("https://gmail.googleapis.com/gmail/v1/users/me/profile")[0].status

    results: list = []
    threads = [threading.Thread(target=lambda h=h: results.append(send(h))) for h in https]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert results == [200] * 4
    assert creds.renewals == 1
    assert all(wire.sent == ["Bearer refused", "Bearer new-1"] for wire in wires)
