"""The requests internals toolspecs.base.net.compat_requests leans on, checked against the pinned requests.

Each test names the internal (its number in the compat module's banner). When an upgrade of
requests or urllib3 fails one, read the banner and their changes before touching anything
else: every bounded GET sent with requests rests on these.
"""

from __future__ import annotations

import gzip
import inspect
import io

import pytest
import requests
import urllib3
from urllib3.exceptions import DecodeError, ProtocolError, ReadTimeoutError, SSLError

from toolspecs.base.net import compat_requests as compat


def streamed(body: bytes = b"", headers: dict[str, str] | None = None) -> requests.Response:
    """A requests reply over urllib3's own reply, its body not read yet (``stream=True``)."""
    response = requests.Response()
    response.status_code = 200
    response.headers.update(headers or {})
    response.raw = urllib3.HTTPResponse(
        body=io.BytesIO(body), headers=headers or {}, preload_content=False
    )
    return response


def test_1_content_and_text_read_the_body_kept_in_content():
    assert "_content" in inspect.getsource(requests.Response.content.fget)
    response = streamed(b"drained", {"Content-Type": "text/plain; charset=utf-8"})
    assert response._content is False and response._content_consumed is False
    response.raw.read()  # read here, within the limits: the stream is drained
    compat.keep_body(response, "café".encode())
    assert response.content == "café".encode()
    assert response.text == "café"
    assert response._content_consumed is True


def test_1_without_the_kept_body_a_drained_stream_reads_empty():
    response = streamed(b"drained")
    response.raw.read()
    assert response.content == b""  # what keep_body prevents


class Breaking(urllib3.HTTPResponse):
    """urllib3's reply whose reads fail with ``error`` (both ``read1`` and ``stream``)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(body=io.BytesIO(b"x"), preload_content=False)
        self.error = error

    def read1(self, *args, **kwargs):
        raise self.error

    def stream(self, *args, **kwargs):
        raise self.error


ERRORS = [
    (ProtocolError("cut"), requests.exceptions.ChunkedEncodingError),
    (DecodeError("bad gzip"), requests.exceptions.ContentDecodingError),
    (SSLError("bad record"), requests.exceptions.SSLError),
    (ReadTimeoutError(None, "/", "read timed out"), requests.exceptions.ConnectionError),
]


@pytest.mark.parametrize(("error", "expected"), ERRORS)
def test_2_iter_content_turns_urllib3_errors_into_these_and_arrived_does_the_same(error, expected):
    response = requests.Response()
    response.raw = Breaking(error)
    with pytest.raises(expected):
        next(response.iter_content(16))
    ours = requests.ReadTimeout if isinstance(error, ReadTimeoutError) else expected
    response = requests.Response()
    response.raw = Breaking(error)
    with pytest.raises(ours):
        next(compat.arrived(response))


def test_3_urllib3_read1_returns_what_arrived_decompressed_and_empty_at_the_end():
    body = b"one line of a reply\n" * 2000
    response = streamed(gzip.compress(body), {"Content-Encoding": "gzip"})
    assert isinstance(response.raw, urllib3.HTTPResponse)
    chunks = list(compat.arrived(response, 1024))
    assert b"".join(chunks) == body
    assert all(chunks) and len(chunks) > 1


def test_3_another_raw_is_read_with_iter_content():
    response = requests.Response()
    response.raw = io.BytesIO(b"plain")
    assert b"".join(compat.arrived(response)) == b"plain"
