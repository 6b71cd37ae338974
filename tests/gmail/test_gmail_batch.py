"""Issue 14: many messages in few requests (Gmail's batch endpoint), and only the headers
shown are parsed. Counted in requests and parser calls, never timed."""

from __future__ import annotations

import math
from email.headerregistry import HeaderRegistry

import googleapiclient.discovery
import pytest
from googleapiclient.errors import HttpError

from toolspecs.core import AskUser, RetryLater
from toolspecs.loaders.google import GmailReader, GoogleApiError, describe_message
from toolspecs.loaders.google.gmail import BATCH_SIZE
from toolspecs.loaders.google.mail import parse_bytes
from toolspecs.loaders.google.testing import FIXTURES, fixture, sample_mailbox
from toolspecs.loaders.google.testing.http import MAX_BATCH, SchemaError


@pytest.fixture
def big():
    return sample_mailbox(long_messages=51)  # 60 messages


def batches(gmail):
    return [r for r in gmail.requests if r.parts]


# -- fewer requests ------------------------------------------------------------------------


def test_loading_n_messages_takes_one_request_per_batch_plus_the_listing(big):
    # Before: 61 requests (the listing, then one messages.get each).
    docs = GmailReader(transport=big).load_data(max_results=60)
    assert len(docs) == 60
    assert len(big.requests) == math.ceil(60 / BATCH_SIZE) + 1
    assert [len(b.parts) for b in batches(big)] == [25, 25, 10]
    assert all(call.query["format"] == ["raw"] for b in batches(big) for call in b.parts)
    # Google takes 100 calls a batch and advises at most 50 for Gmail.
    assert BATCH_SIZE <= 50


def test_batched_documents_are_those_read_one_by_one(big):
    reader = GmailReader(transport=big)
    listed = reader.load_data(max_results=30)
    alone = [reader.message_document(doc.metadata["id"]) for doc in listed]
    assert [d.text for d in listed] == [d.text for d in alone]
    assert [d.metadata for d in listed] == [d.metadata for d in alone]


def test_search_hits_come_in_one_batch():
    gmail = sample_mailbox()
    spec_tools = _tools(gmail)
    out = spec_tools["search_messages"].call(query="", max_results=9)
    assert out.is_error is False and out.content.count("[id: ") == len(FIXTURES)
    assert len(gmail.requests) == 2
    assert all(c.query["format"] == ["metadata"] for c in gmail.requests[1].parts)


def test_one_message_is_fetched_without_a_batch():
    gmail = sample_mailbox()
    GmailReader(transport=gmail).load_data(max_results=1)
    assert [r.path for r in gmail.requests][1].startswith("/users/me/messages/")


def test_the_messages_resource_is_built_once_per_client(big, monkeypatch):
    # googleapiclient builds a resource's methods from the discovery document each time
    # one is asked for; before, that was done twice per message read.
    reader = GmailReader(transport=big)
    reader.load_data(max_results=2)
    built = []
    original = googleapiclient.discovery.Resource.__init__

    def counting(self, *args, **kwargs):
        built.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(googleapiclient.discovery.Resource, "__init__", counting)
    reader.load_data(max_results=60)
    assert built == []


# -- failures inside a batch ---------------------------------------------------------------


def test_a_message_that_fails_in_a_batch_fails_the_call_as_it_did_alone(big):
    tools = _tools(big)
    gone = GmailReader(transport=big).message_ids("", 30)[3]["id"]  # in the first batch
    big.fail[("GET", f"/messages/{gone}")] = [(404, "notFound", "Requested entity was not found.")]
    out = tools["search_messages"].call(query="", max_results=30, include_body=True)
    assert out.is_error is True
    big.fail[("GET", f"/messages/{gone}")] = [(404, "notFound", "Requested entity was not found.")]
    alone = tools["get_message"].call(message_id=gone)
    assert type(out.exception) is type(alone.exception)
    assert "Requested entity was not found" in out.content


def test_a_passing_failure_in_a_batch_is_fetched_again_alone(big, no_backoff_sleep):
    busy = list(big.messages)[5]
    big.fail[("GET", f"/messages/{busy}")] = [(503, "backendError", "try later")]
    docs = GmailReader(transport=big).load_data(max_results=60)
    assert len(docs) == 60 and any(d.metadata["id"] == busy for d in docs)
    assert len(big.requests) == math.ceil(60 / BATCH_SIZE) + 1 + 1  # the one again, alone
    assert [r.path for r in big.requests if not r.parts][-1] == f"/users/me/messages/{busy}"


def test_a_rate_limited_batch_is_retried_with_backoff(big, no_backoff_sleep):
    big.fail[("POST", "/batch")] = [(429, "rateLimitExceeded", "slow down")]
    docs = GmailReader(transport=big).load_data(max_results=30)
    assert len(docs) == 30
    assert len(no_backoff_sleep) == 1
    assert len(big.requests) == 1 + 2 + 1  # listing, 2 batches, the refused one again


def test_batch_retries_end_within_the_time_left(big, no_backoff_sleep):
    big.fail[("POST", "/batch")] = [(503, "backendError", "down")] * 100
    reader = GmailReader(transport=big, time_left=lambda: 1.5)
    with pytest.raises(GoogleApiError):
        reader.load_data(max_results=30)
    assert sum(no_backoff_sleep) < 1.5
    assert len(big.requests) < 10


def test_a_failed_batch_is_guidance_for_the_agent(big):
    big.fail[("POST", "/batch")] = [(500, "backendError", "boom")] * 10
    out = _tools(big)["search_messages"].call(query="", max_results=30, include_body=True)
    assert isinstance(out.exception, RetryLater)
    big.fail[("POST", "/batch")] = [(403, "insufficientPermissions", "no")]
    out = _tools(big)["search_messages"].call(query="", max_results=30)
    assert isinstance(out.exception, AskUser)


def test_a_batch_answer_that_is_not_multipart_is_an_error_not_a_crash(big):
    big.fail[("POST", "/batch")] = [(200, b"<html>portal</html>")] * 10
    out = _tools(big)["search_messages"].call(query="", max_results=30)
    assert out.is_error is True
    assert "not a JSON object" in out.content or "text/html" in out.content


# -- the fake's batch endpoint -------------------------------------------------------------


def test_the_fake_refuses_more_calls_than_google_takes_in_a_batch():
    gmail = sample_mailbox()
    service = GmailReader(transport=gmail).service
    batch = service.new_batch_http_request()
    for _ in range(MAX_BATCH + 1):
        batch.add(service.users().messages().get(userId="me", id=next(iter(gmail.messages))))
    with pytest.raises(HttpError) as failed:
        batch.execute()
    assert failed.value.resp.status == 400


def test_the_fake_checks_bodies_of_batched_calls_against_discovery():
    gmail = sample_mailbox()
    service = GmailReader(transport=gmail).service
    batch = service.new_batch_http_request()
    for body in ({"message": {"raw": "SGk="}}, {"message": {"raw": "SGk=", "bogus": 1}}):
        batch.add(service.users().drafts().create(userId="me", body=body))
    with pytest.raises(SchemaError, match="bogus"):
        batch.execute()


def test_the_fake_answers_each_batched_call_with_its_own_status():
    gmail = sample_mailbox()
    service = GmailReader(transport=gmail).service
    known = next(iter(gmail.messages))
    seen = {}
    batch = service.new_batch_http_request(callback=lambda rid, r, e: seen.update({rid: (r, e)}))
    batch.add(
        service.users().messages().get(userId="me", id=known, format="minimal"), request_id="a"
    )
    batch.add(service.users().messages().get(userId="me", id="nope"), request_id="b")
    batch.execute()
    assert seen["a"][0]["id"] == known and seen["a"][1] is None
    assert seen["b"][0] is None and seen["b"][1].resp.status == 404


# -- headers parsed only as far as needed --------------------------------------------------


def test_only_the_headers_shown_are_parsed(monkeypatch):
    # Before: every header went through email.policy.default's parser (40% of a read).
    received = b"".join(
        f"Received: from relay{i}.example (relay{i}.example [10.0.0.{i}]) by mx; "
        f"Tue, 17 Nov 2026 08:0{i % 10}:00 +0000\r\n".encode()
        for i in range(20)
    )
    source = received + fixture("plain")
    parsed = []
    original = HeaderRegistry.__call__

    def counting(self, name, value):
        parsed.append(name.lower())
        return original(self, name, value)

    monkeypatch.setattr(HeaderRegistry, "__call__", counting)
    mail = parse_bytes(source)
    text = describe_message({"id": "m1", "threadId": "t1"}, mail)
    assert "From: Ada Lovelace <ada@example.com>" in text
    assert "received" not in parsed
    assert set(parsed) <= {"from", "to", "cc", "reply-to"}
    assert "10.0.0.0" in mail.headers["received"]  # still there, decoded when read


def _tools(gmail):
    from toolspecs.specs.gmail import GmailToolSpec

    return {t.metadata.name: t for t in GmailToolSpec(transport=gmail).to_tool_list()}


@pytest.mark.parametrize(
    "value",
    [
        "Ada Lovelace <ada@example.com>",
        "ada@example.com, Grace Hopper <grace@example.org>,bob@x.io",
        "Ada  Lovelace<ada@example.com>",
        "O'Brien J <ob@example.ie>",
        '"Lovelace, Ada" <ada@example.com>',  # quoted: the parser's
        "=?utf-8?q?Ada?= <ada@example.com>",  # encoded word: the parser's
        "Ada (the first) <ada@example.com>",  # comment: the parser's
        "undisclosed-recipients:;",  # group: the parser's
        "Evil <a@x>, <<< end of mail body >>>",
    ],
)
def test_plain_addresses_skip_the_parser_and_read_the_same(value):
    from email import policy

    from toolspecs.loaders.google.mail import header_text, simple_addresses

    parsed = " ".join(str(policy.default.header_factory("to", value)).split())
    assert header_text("to", value) == parsed
    fast = simple_addresses(value)
    assert fast is None or fast == parsed


def test_a_batch_holding_a_write_is_not_sent_again_after_a_server_error(big, no_backoff_sleep):
    # A batched write met a 503: it may have been done, so it is not sent twice (as a POST).
    from toolspecs.loaders.google.service import execute_batch

    service = GmailReader(transport=big).service
    draft = {"message": {"raw": "U3ViamVjdDogaGkKCmhlbGxv"}}
    writes = [service.users().drafts().create(userId="me", body=draft)]
    big.fail[("POST", "/batch")] = [(503, "backendError", "down")]
    with pytest.raises(GoogleApiError):
        execute_batch(service, writes)
    assert [r.path for r in big.requests] == ["/batch"] and no_backoff_sleep == []
    listed = service.users().messages().list(userId="me", maxResults=1).execute()
    first = listed["messages"][0]["id"]
    reads = [service.users().messages().get(userId="me", id=first, format="minimal")]
    big.fail[("POST", "/batch")] = [(503, "backendError", "down")]
    (answer,) = execute_batch(service, reads)  # reads alone: sent again after the wait
    assert answer["id"] == first and len(no_backoff_sleep) == 1


def test_rate_limited_messages_are_asked_again_together_after_the_wait_google_asked(
    big, no_backoff_sleep
):
    # Before: each fetched again alone at once, ignoring Retry-After.
    service = GmailReader(transport=big).service
    listed = service.users().messages().list(userId="me", maxResults=25).execute()
    ids = [stub["id"] for stub in listed["messages"]]
    big.requests.clear()
    busy = ids[3:6]
    for message_id in busy:
        big.fail[("GET", f"/messages/{message_id}")] = [
            (429, "rateLimitExceeded", "slow down", {"Retry-After": "7"})
        ]
    docs = GmailReader(transport=big).load_data(max_results=25)
    assert {d.metadata["id"] for d in docs} >= set(busy)
    assert no_backoff_sleep == [7.0]  # one wait, as long as Google asked
    again = batches(big)[-1]
    assert len(batches(big)) == 2 and len(again.parts) == 3  # the three, in one batch


def test_no_wait_past_the_time_left_the_rate_limit_stands(big, no_backoff_sleep):
    service = GmailReader(transport=big).service
    listed = service.users().messages().list(userId="me", maxResults=25).execute()
    ids = [stub["id"] for stub in listed["messages"]]
    big.requests.clear()
    busy = ids[3]
    big.fail[("GET", f"/messages/{busy}")] = [
        (429, "rateLimitExceeded", "slow down", {"Retry-After": "60"})
    ]
    reader = GmailReader(transport=big, time_left=lambda: 10.0)
    with pytest.raises(GoogleApiError) as caught:
        reader.load_data(max_results=25)
    assert caught.value.status == 429 and caught.value.retry_after == 60
    assert no_backoff_sleep == [] and len(batches(big)) == 1
