"""The httplib2 internals compat_httplib2 leans on, checked against the pinned httplib2.

Each test names the internal (its number in the compat module's banner). When an upgrade of
httplib2 fails one, read the banner and its changes before touching anything else: what a
Google call says when a name does not resolve, and whether it tries again, rest on these.
"""

from __future__ import annotations

import socket

import httplib2
import pytest

from toolspecs.loaders.google.compat_httplib2 import named_host


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every name looked up, each failing with ``EAI_AGAIN``: nothing leaves the machine."""
    asked: list[str] = []

    def fail(host, *args, **kwargs):
        asked.append(host)
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    return asked


def unresolved() -> httplib2.ServerNotFoundError:
    with pytest.raises(httplib2.ServerNotFoundError) as raised:
        httplib2.Http(timeout=5).request("https://calendar.example.invalid/x")
    return raised.value


def test_1_the_error_names_the_host_only_in_its_text(lookups):
    error = unresolved()
    assert lookups and set(lookups) == {"calendar.example.invalid"}
    assert named_host(error) == "calendar.example.invalid"
    assert not hasattr(error, "host")
    assert named_host(ValueError("something else")) is None


def test_2_the_lookup_error_and_its_errno_are_the_context(lookups):
    context = unresolved().__context__
    assert isinstance(context, socket.gaierror) and context.errno == socket.EAI_AGAIN
