"""The googleapiclient internals compat_googleapiclient leans on, checked against the pinned client.

Each test names the internal (its number in the compat module's banner). When an upgrade of
google-api-python-client fails one, read the banner and its changes before touching
anything else: every Calendar and Gmail answer is read through these.
"""

from __future__ import annotations

import inspect

import pytest
from googleapiclient.errors import HttpError
from googleapiclient.http import BatchHttpRequest, HttpRequest
from googleapiclient.model import RawModel

from toolspecs.loaders.google import GmailReader, build_service
from toolspecs.loaders.google import compat_googleapiclient as compat
from toolspecs.loaders.google.testing import FakeCalendar, sample_mailbox


def tagged(original):
    def read(resp, content):
        return {"ours": original(resp, content)}

    return read


def test_1_execute_returns_what_the_postproc_attribute_makes_of_the_answer():
    assert "postproc" in inspect.signature(HttpRequest.__init__).parameters
    request = (
        build_service("calendar", "v3", transport=FakeCalendar())
        .events()
        .list(calendarId="primary")
    )
    own = request.postproc
    compat.read_through(request, tagged)
    compat.read_through(request, tagged)  # run twice: wrapped once, around the original
    assert request.postproc.__wrapped__ is own
    answer = request.execute()
    assert set(answer) == {"ours"} and answer["ours"]["items"] == []


def test_1_a_batch_reads_each_call_with_its_postproc():
    gmail = sample_mailbox()
    service = GmailReader(transport=gmail).service
    seen = {}
    batch = service.new_batch_http_request(callback=lambda rid, r, e: seen.update({rid: r}))
    request = (
        service.users().messages().get(userId="me", id=next(iter(gmail.messages)), format="minimal")
    )
    compat.read_through(request, tagged)
    batch.add(request, request_id="a")
    batch.execute()
    assert set(seen["a"]) == {"ours"} and seen["a"]["ours"]["id"] in gmail.messages


def test_2_a_method_without_a_body_is_read_by_a_raw_model_that_hands_on_the_body():
    events = build_service("calendar", "v3", transport=FakeCalendar()).events()
    delete = events.delete(calendarId="primary", eventId="e1")
    assert compat.bodiless(delete.postproc)
    assert isinstance(delete.postproc.__self__, RawModel)
    assert not compat.bodiless(events.list(calendarId="primary").postproc)
    resp = type("Resp", (), {"status": 204})()
    assert delete.postproc(resp, b"") in ("", b"")  # the body handed on, maybe decoded


def test_3_a_batch_keeps_its_address_in_batch_uri():
    service = GmailReader(transport=sample_mailbox()).service
    batch = service.new_batch_http_request()
    assert isinstance(batch, BatchHttpRequest)
    assert compat.batch_uri(batch).startswith("https://")
    assert compat.batch_uri(object()) == ""


def test_4_an_error_body_is_bytes_batched_or_not():
    service = GmailReader(transport=sample_mailbox()).service
    with pytest.raises(HttpError) as lone:
        service.users().messages().get(userId="me", id="nope").execute()
    assert isinstance(lone.value.content, bytes)
    assert compat.error_content(lone.value) == lone.value.content
    seen = {}
    batch = service.new_batch_http_request(callback=lambda rid, r, e: seen.update({rid: e}))
    batch.add(service.users().messages().get(userId="me", id="nope"), request_id="b")
    batch.execute()
    assert isinstance(seen["b"], HttpError) and isinstance(seen["b"].content, bytes)
    assert compat.error_content(seen["b"]) == seen["b"].content
    with pytest.raises(TypeError):
        HttpError(lone.value.resp, "text")
    text = type("Old", (), {"content": "caf\u00e9"})()  # as older googleapiclient passed it
    assert compat.error_content(text) == "caf\u00e9".encode()


def test_5_clients_share_one_parsed_document_and_building_again_changes_nothing():
    import copy
    import json

    from googleapiclient import discovery, discovery_cache

    assert discovery_cache.get_static_doc("gmail", "v1") is not None
    assert "base" in inspect.signature(discovery.build_from_document).parameters
    first = build_service("gmail", "v1", transport=FakeCalendar())
    document = compat._documents["gmail", "v1"]
    fixed_up = copy.deepcopy(document)  # after the first build's fix-ups
    second = build_service("gmail", "v1", transport=FakeCalendar())
    assert compat._documents["gmail", "v1"] is document
    assert document == fixed_up  # the second build fixed up nothing new
    # Each client is built as googleapiclient's own build() builds it.
    for client in (first, second):
        own = discovery.build(
            "gmail", "v1", http=FakeCalendar(), static_discovery=True, cache_discovery=False
        )
        ours = client.users().messages().list(userId="me", q="x")
        theirs = own.users().messages().list(userId="me", q="x")
        assert (ours.uri, ours.method) == (theirs.uri, theirs.method)
    original = json.loads(discovery_cache.get_static_doc("gmail", "v1"))
    assert original["rootUrl"] == document["rootUrl"]
    with pytest.raises(discovery.UnknownApiNameOrVersion):
        compat.build_shared("no-such-api", "v0", http=FakeCalendar())


def test_6_googleapiclient_sends_batches_to_the_documents_root_whatever_the_endpoint():
    # Its own behaviour, which build_shared works around: api_endpoint moves the methods'
    # base, not the batch address (nor the uploads', both from rootUrl).
    from googleapiclient import discovery, discovery_cache

    document = discovery_cache.get_static_doc("gmail", "v1")
    service = discovery.build_from_document(
        document, http=object(), client_options={"api_endpoint": "http://127.0.0.1:9/"}
    )
    assert service.users().labels().list(userId="me").uri.startswith("http://127.0.0.1:9/")
    assert (
        compat.batch_uri(service.new_batch_http_request()) == "https://gmail.googleapis.com/batch"
    )
    ours = build_service(
        "gmail", "v1", transport=object(), client_options={"api_endpoint": "http://127.0.0.1:9/"}
    )
    assert compat.batch_uri(ours.new_batch_http_request()) == "http://127.0.0.1:9/batch"
