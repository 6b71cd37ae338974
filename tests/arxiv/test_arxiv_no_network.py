"""arXiv on a machine without network, through the real requests stack (no fake transport).

``socket.getaddrinfo`` fails as it does with no network (``no_dns``: EAI_AGAIN, tried once
more after half a second) or for an unknown name (``no_dns_noname``: final at once), or
every connection is refused (``refused``): nothing leaves the machine. The call ends with
the host named: counted in lookups and sleeps, not in seconds.
"""

from __future__ import annotations

import socket

import pytest
import requests
from requests.adapters import BaseAdapter

from toolspecs.core import AskUser, RetryLater
from toolspecs.loaders.arxiv import ArxivClient, ArxivReader, ArxivUnavailable, ArxivUnreachable
from toolspecs.loaders.arxiv.client import DNS_RETRY_WAIT
from toolspecs.loaders.arxiv.testing import FakeArxiv
from toolspecs.specs.arxiv import ArxivToolSpec


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The client's sleeps (arXiv's 3 s pace, Retry-After waits), recorded, not slept."""
    slept: list[float] = []
    monkeypatch.setattr("toolspecs.loaders.arxiv.client.time.sleep", slept.append)
    return slept


def test_a_temporary_lookup_failure_is_tried_once_more_then_named(no_dns, sleeps):
    client = ArxivClient()  # arXiv's pace (3 s) and 3 retries, as shipped
    with pytest.raises(ArxivUnreachable) as caught:
        ArxivReader(client).load_data("attention is all you need")
    assert no_dns == ["export.arxiv.org"] * 2  # EAI_AGAIN: one more try
    assert sleeps == [DNS_RETRY_WAIT]  # half a second before it; no pace, no back-off
    assert caught.value.host == "export.arxiv.org"
    assert not caught.value.resolved and not caught.value.retryable
    assert str(caught.value) == (
        "arXiv is unavailable: could not resolve export.arxiv.org (no network or DNS?)"
    )
    assert isinstance(caught.value, ArxivUnavailable)  # callers that caught it still do


def test_an_unknown_name_is_final_at_once(no_dns_noname, sleeps):
    with pytest.raises(ArxivUnreachable) as caught:
        ArxivReader(ArxivClient()).load_data("transformers")
    assert no_dns_noname == ["export.arxiv.org"]  # EAI_NONAME: one lookup, no retry
    assert sleeps == []
    assert not caught.value.resolved and caught.value.host == "export.arxiv.org"


def test_a_dns_hiccup_passes_on_the_second_try(sleeps):
    fake = _HiccupOnce()
    papers = ArxivReader(ArxivClient(transport=fake)).load_data("attention", max_results=1)
    assert papers  # the second try got arXiv's answer
    assert len(fake.requests) == 1 and sleeps == [DNS_RETRY_WAIT]


def test_a_failed_lookup_keeps_no_pace_for_the_next_call(no_dns, sleeps):
    client = ArxivClient()
    for _ in range(3):  # no request reached arXiv: there is no pace to keep
        with pytest.raises(ArxivUnreachable):
            ArxivReader(client).load_data("transformers")
    assert len(no_dns) == 6  # two lookups a call
    assert sleeps == [DNS_RETRY_WAIT] * 3  # the waits before them, never arXiv's 3 s


@pytest.mark.parametrize("own_deadline", [True, False])
def test_the_second_lookup_waits_only_within_the_deadline(no_dns, sleeps, own_deadline):
    short = DNS_RETRY_WAIT / 2  # time for a lookup, not for the wait before another
    client = ArxivClient(deadline=short if own_deadline else 30.0)
    with pytest.raises(ArxivUnreachable) as caught:
        ArxivReader(client).load_data("transformers", deadline=None if own_deadline else short)
    assert no_dns == ["export.arxiv.org"] and sleeps == []
    assert not caught.value.resolved


def test_the_tool_asks_the_user_naming_the_host(no_dns, sleeps):
    spec = ArxivToolSpec(client=ArxivClient())
    output = spec.call_tool("arxiv_query", query="attention is all you need")
    assert output.is_error
    assert no_dns == ["export.arxiv.org"] * 2 and sleeps == [DNS_RETRY_WAIT]
    text = output.content
    assert "could not resolve export.arxiv.org (no network, or no DNS)" in text
    assert "Do not retry now: tell the user this machine could not look up export.arxiv.org" in (
        text
    )
    assert "offline" not in text  # the name failed; the machine may well be online
    with pytest.raises(AskUser):
        spec.to_tool_list()[0].fn(query="attention is all you need")


def test_behind_a_proxy_the_proxy_that_did_not_resolve_is_named(no_dns_noname, sleeps, monkeypatch):
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.corp.example:3128")
    spec = ArxivToolSpec(client=ArxivClient())
    with pytest.raises(AskUser) as caught:
        spec.to_tool_list()[0].fn(query="transformers")
    assert no_dns_noname == ["proxy.corp.example"]  # requests looked up the proxy only
    assert "could not resolve proxy.corp.example (no network, or no DNS)" in str(caught.value)
    assert "export.arxiv.org" not in str(caught.value)


def test_behind_a_proxy_an_unknown_failed_name_may_be_the_proxy(sleeps, monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.corp.example:3128")
    with pytest.raises(ArxivUnreachable) as caught:  # no urllib3 error names the host
        ArxivReader(ArxivClient(transport=_NoName())).load_data("transformers")
    assert caught.value.host == "export.arxiv.org (or the proxy)"
    assert sleeps == []


class _HiccupOnce(FakeArxiv):
    """arXiv, after one temporary failure to resolve its name (a DNS hiccup)."""

    def __init__(self) -> None:
        super().__init__()
        self.hiccups = 1

    def send(self, request, *args, **kwargs):
        if self.hiccups:
            self.hiccups -= 1
            raise requests.ConnectionError(
                socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
            )
        return super().send(request, *args, **kwargs)


class _NoName(BaseAdapter):
    """A transport whose every lookup fails, the host unsaid (``requests`` alone)."""

    def send(self, request, *args, **kwargs):
        raise requests.ConnectionError(socket.gaierror(socket.EAI_NONAME, "Name unknown"))

    def close(self) -> None:
        pass


def test_a_refused_connection_names_the_host_after_the_retries(refused, sleeps):
    client = ArxivClient(num_retries=2)
    with pytest.raises(ArxivUnreachable) as caught:
        ArxivReader(client).load_data("transformers")
    assert refused == ["export.arxiv.org"] * 3  # the first try and 2 retries
    assert caught.value.resolved and caught.value.retryable
    assert caught.value.reason == "could not connect to export.arxiv.org (connection refused)"
    assert len(sleeps) == 2  # arXiv's pace between the tries, kept as before


def test_a_refused_connection_is_guidance_to_retry_naming_the_host(refused, sleeps):
    spec = ArxivToolSpec(client=ArxivClient(num_retries=0))
    with pytest.raises(RetryLater) as caught:
        spec.to_tool_list()[0].fn(query="transformers")
    assert "arXiv could not be reached: could not connect to export.arxiv.org" in str(caught.value)
    assert "export.arxiv.org refuses connections from this machine" in str(caught.value)
