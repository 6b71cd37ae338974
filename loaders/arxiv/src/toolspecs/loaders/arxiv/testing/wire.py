"""``ArxivServer``: the offline arXiv (``FakeArxiv``) as a real HTTP server on 127.0.0.1.

arXiv's export API (``/api/query``, the Atom feed) and its PDF host (``/pdf/<id>``)
under one base URL, answered by a :class:`~toolspecs.loaders.arxiv.testing.FakeArxiv`:
the same catalogue, the same checks of the query parameters (an error feed with HTTP 400,
as arXiv answers), the same failures on demand (``server.fake.fail``). A user's client
reaches it as it reaches arXiv, through ``requests`` and urllib3, pointed at it with the
base-URL option::

    from toolspecs.loaders.arxiv.testing import ArxivServer
    from toolspecs.specs.arxiv import ArxivToolSpec

    with ArxivServer() as arxiv:
        spec = ArxivToolSpec(base_url=arxiv.url)
        spec.arxiv_query("attention is all you need")
        arxiv.fake.requests[-1].url  # what arrived (as https://export.arxiv.org/...)
        arxiv.fake.fail.append(503)  # the next request fails, on the wire

Its feeds link the papers as arXiv's do (``http://arxiv.org/pdf/...``), as a mirror
passing arXiv's feed through would; ``links_here=True`` rewrites them to this server,
as a mirror serving the PDFs itself would.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import requests

from toolspecs.base.net.testing import LoopbackServer, WireAnswer, WireRequest
from toolspecs.loaders.arxiv.testing.fake import FakeArxiv

__all__ = ["ArxivServer"]

_CHUNK = 64 * 1024


class ArxivServer(LoopbackServer):
    """arXiv's export API and PDF host on a free port of 127.0.0.1.

    Args:
        fake: The ``FakeArxiv`` that answers (its catalogue, PDFs and failures); default
            a new one.
        links_here: Rewrite the feeds' ``http://arxiv.org/`` links (PDF, abstract page)
            to this server's URL.
        prefix: A path to serve arXiv under, e.g. ``"/arxiv"``, as a mirror may.
        gzip: Send feeds and PDFs gzip-compressed to clients that accept it, as arXiv does.

    Attributes:
        fake: The ``FakeArxiv`` answering: ``fake.requests`` holds every request that
            arrived, its URL as it would have been sent to arXiv.
    """

    def __init__(
        self,
        fake: FakeArxiv | None = None,
        *,
        links_here: bool = False,
        prefix: str = "",
        gzip: bool = False,
    ) -> None:
        super().__init__(self._answer, prefix=prefix, gzip=gzip)
        self.fake = fake if fake is not None else FakeArxiv()
        self.links_here = links_here

    def __enter__(self) -> ArxivServer:
        self.start()
        return self

    def _answer(self, request: WireRequest) -> WireAnswer | None:
        host = "export.arxiv.org" if request.path == "/api/query" else "arxiv.org"
        query = f"?{request.query}" if request.query else ""
        prepared = requests.Request("GET", f"https://{host}{request.path}{query}").prepare()
        prepared.headers.update(request.headers)
        response: Any = self.fake.send(prepared)
        headers = {
            name: value
            for name, value in response.headers.items()
            if name.lower() not in ("connection", "transfer-encoding")
        }
        body: Iterator[bytes] = _chunks(response.raw)
        if self.links_here and "atom" in headers.get("Content-Type", ""):
            content = b"".join(body).replace(b"http://arxiv.org/", f"{self.url}/".encode())
            headers["Content-Length"] = str(len(content))
            body = iter([content])
        return WireAnswer(response.status_code, headers, body)


def _chunks(raw: Any) -> Iterator[bytes]:
    """The fake's body as it makes it: one read at a time (a byte, when it trickles)."""
    try:
        while True:
            chunk = raw.read1(_CHUNK)
            if not chunk:
                return
            yield chunk
    finally:
        raw.close()
