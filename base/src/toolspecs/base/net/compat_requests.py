"""Brittle: everything toolspecs relies on in requests beyond its public API, in one place.

:class:`~toolspecs.base.net.bounded.BoundedGet` sends a GET with ``requests.get(...,
stream=True)`` and reads the reply itself, within a deadline and a size cap; the caller
then reads ``response.content`` and ``response.text`` as usual. To do that we lean on these
internals, checked against the pinned requests (and urllib3) by
``tests/base/test_requests_compat.py``:

1. ``Response._content`` and ``Response._content_consumed``: where requests keeps a body it
   has read (``Response.content`` sets them). Set by :func:`keep_body`, ``content`` is our
   bytes and ``text`` decodes them by requests' own rules. If they change, ``content``
   reads the (already drained) stream again: an empty or cut body, or requests'
   ``StreamConsumedError``.
2. The urllib3 errors that ``Response.iter_content`` turns into requests' own
   (``ProtocolError`` -> ``ChunkedEncodingError``, ``DecodeError`` ->
   ``ContentDecodingError``, ``ReadTimeoutError`` -> ``ConnectionError``, which we make a
   ``ReadTimeout``, ``SSLError`` -> ``SSLError``): :func:`arrived` reads urllib3's
   ``raw.read1`` instead of ``iter_content`` (which waits for a whole chunk, so a body sent
   a byte at a time would never let the deadline be checked) and raises what
   ``iter_content`` would. If requests maps them otherwise, a broken reply reaches the
   caller as another error (the loaders' failure messages change).
3. ``Response.raw`` is a ``urllib3.HTTPResponse`` (urllib3 2.x, whose ``read1`` returns
   what has arrived, decompressed, ``b""`` at the end) for requests' own adapter; any
   other ``raw`` is read with ``iter_content``.
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
