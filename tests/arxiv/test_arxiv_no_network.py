"""arXiv on a machine without network, through the real requests stack (no fake transport).

``socket.getaddrinfo`` fails as it does with no DNS (the ``no_dns`` fixture), or every
connection is refused (``refused``): nothing leaves the machine. The call ends at once,
with the host named: counted in lookups and sleeps, not in seconds.
"""

from __future__ import annotations

import pytest

from toolspecs.core import AskUser, RetryLater
from toolspecs.loaders.arxiv import ArxivClient, ArxivReader, ArxivUnavailable, ArxivUnreachable
from toolspecs.specs.arxiv import ArxivToolSpec


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The client's sleeps (arXiv's 3 s pace, Retry-After waits), recorded, not slept."""
    slept: list[float] = []
    monkeypatch.setattr("toolspecs.loaders.arxiv.client.time.sleep", slept.append)
    return slept


def test_a_name_that_does_not_resolve_is_asked_once_and_named(no_dns, sleeps):
    client = ArxivClient()  # arXiv's pace (3 s) and 3 retries, as shipped
    with pytest.raises(ArxivUnreachable) as caught:
        ArxivReader(client).load_data("attention is all you need")
    assert no_dns == ["export.arxiv.org"]  # one lookup: no retry
    assert sleeps == []  # no pace, no back-off
    assert caught.value.host == "export.arxiv.org"
    assert not caught.value.resolved and not caught.value.retryable
    assert str(caught.value) == (
        "arXiv is unavailable: could not resolve export.arxiv.org (no network or DNS?)"
    )
    assert isinstance(caught.value, ArxivUnavailable)  # callers that caught it still do


def test_a_failed_lookup_keeps_no_pace_for_the_next_call(no_dns, sleeps):
    client = ArxivClient()
    for _ in range(3):  # no request reached arXiv: there is no pace to keep
        with pytest.raises(ArxivUnreachable):
            ArxivReader(client).load_data("transformers")
    assert len(no_dns) == 3
    assert sleeps == []


def test_the_tool_asks_the_user_naming_the_host(no_dns, sleeps):
    spec = ArxivToolSpec(client=ArxivClient())
    output = spec.call_tool("arxiv_query", query="attention is all you need")
    assert output.is_error
    assert no_dns == ["export.arxiv.org"] and sleeps == []
    text = output.content
    assert "could not resolve export.arxiv.org (no network, or no DNS)" in text
    assert "Do not retry now: tell the user this machine seems to be offline" in text
    with pytest.raises(AskUser):
        spec.to_tool_list()[0].fn(query="attention is all you need")


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
