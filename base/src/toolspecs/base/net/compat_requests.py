"""Brittle: everything toolspecs relies on in requests beyond its public API, in one place.

``BoundedGet`` reads a streamed reply itself, within a deadline and a size cap, then the
caller reads ``content`` and ``text`` as usual. Internals, checked against the pinned
requests (and urllib3) by ``tests/base/test_requests_compat.py``:

1. ``Response._content``/``_content_consumed``, where requests keeps a body it has read
   (:func:`keep_body`). If they change, ``content`` reads the drained stream again.
2. The urllib3 errors ``iter_content`` maps to requests' own (``ProtocolError`` ->
   ``ChunkedEncodingError``, ``DecodeError`` -> ``ContentDecodingError``, ``SSLError``;
   a read timeout is a ``ReadTimeout`` here): :func:`arrived` reads ``raw.read1``
   (``iter_content`` waits for a whole chunk: a body sent a byte at a time would never
   let the deadline be checked) and raises what ``iter_content`` would.
3. ``Response.raw`` is a ``urllib3.HTTPResponse`` (2.x: ``read1`` returns what has
   arrived, decompressed) for requests' own adapter; any other is read by ``iter_content``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import requests

CHUNK = 16 * 1024
"""The most bytes one read of a reply returns (a read returns what has arrived)."""


def arrived(response: requests.Response, chunk: int = CHUNK) -> Iterator[bytes]:
    """A streamed reply's body as it arrives: each chunk is what has come (internals 2, 3).

    A ``raw`` that is not urllib3's (another adapter's, LlamaHub's tests' ``MagicMock``)
    is read through requests' own ``iter_content``.
    """
    import requests
    import urllib3
    from urllib3.exceptions import DecodeError, ProtocolError, ReadTimeoutError, SSLError

    raw = response.raw
    if not isinstance(raw, urllib3.HTTPResponse):
        yield from response.iter_content(chunk)
        return
    try:
        while data := raw.read1(chunk, decode_content=True):
            yield data
    except ReadTimeoutError as exc:
        raise requests.ReadTimeout(exc) from exc
    except ProtocolError as exc:
        raise requests.exceptions.ChunkedEncodingError(exc) from exc
    except DecodeError as exc:
        raise requests.exceptions.ContentDecodingError(exc) from exc
    except SSLError as exc:
        raise requests.exceptions.SSLError(exc) from exc


def keep_body(response: requests.Response, body: bytes) -> None:
    """Make ``body``, read here within the limits, the body of ``response`` (internal 1)."""
    response._content = body
    response._content_consumed = True  # type: ignore[attr-defined]
