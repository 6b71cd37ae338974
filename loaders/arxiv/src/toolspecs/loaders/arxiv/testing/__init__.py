"""An offline arXiv for tests and demos: no network, no rate limit, realistic answers.

:class:`FakeArxiv` is a ``requests`` transport adapter that answers arXiv's query API
from a bundled catalogue of real entries, and serves PDFs that pypdf reads. Pass it
as ``transport=`` (the one seam of every toolspecs client, reader and spec)::

    from toolspecs.loaders.arxiv.testing import FakeArxiv
    from toolspecs.specs.arxiv import ArxivToolSpec

    arxiv = FakeArxiv()
    spec = ArxivToolSpec(transport=arxiv.transport())
    spec.arxiv_query("retrieval-augmented generation", sort_by="recent")
    arxiv.requests[-1].url  # what the spec sent
    arxiv.fail.append(503)  # the next request fails: test your retries and guidance
    arxiv.fail.append((429, {"Retry-After": "120"}))  # with headers
    arxiv.fail.append("slow")  # or "html", "empty", "damaged", "huge", "bomb": see MODES
    arxiv.fail_every = "html"  # every request, once ``fail`` is used up

``ArxivReader(transport=...)`` and ``ArxivClient(transport=...)`` take it the same way.

:class:`ArxivServer` runs the same fake as a real HTTP server on 127.0.0.1 (the export
API and the PDF host), for clients built as users build them, pointed at it with
``base_url=``::

    from toolspecs.loaders.arxiv.testing import ArxivServer

    with ArxivServer() as server:
        spec = ArxivToolSpec(base_url=server.url)
        spec.arxiv_query("attention is all you need")
        server.fake.fail.append(503)  # the same failures, on the wire

``make_pdf`` writes small text PDFs of your own (pass them as ``FakeArxiv(pdfs=...)``);
``bomb_pdf`` a small one that no reader should read whole.
"""

from toolspecs.loaders.arxiv.testing.fake import MODES, FakeArxiv, Paper
from toolspecs.loaders.arxiv.testing.pdf import (
    NEEDLE,
    NEEDLE_PAGE,
    bomb_pdf,
    long_pages,
    make_pdf,
)
from toolspecs.loaders.arxiv.testing.wire import ArxivServer

__all__ = [
    "MODES",
    "NEEDLE",
    "NEEDLE_PAGE",
    "ArxivServer",
    "FakeArxiv",
    "Paper",
    "bomb_pdf",
    "long_pages",
    "make_pdf",
]
