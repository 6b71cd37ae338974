"""An offline arXiv for tests and demos: no network, no rate limit, realistic answers.

:class:`FakeArxiv` is a ``requests`` transport adapter that answers arXiv's query API
from a bundled catalogue of real entries, and serves PDFs that pypdf reads. Give a
spec a client on it::

    from toolspecs.loaders.arxiv.testing import FakeArxiv
    from toolspecs.specs.arxiv import ArxivToolSpec

    arxiv = FakeArxiv()
    spec = ArxivToolSpec(client=arxiv.client())
    spec.arxiv_query("retrieval-augmented generation", sort_by="recent")
    arxiv.requests[-1].url  # what the spec sent
    arxiv.fail.append(503)  # the next request fails: test your retries and guidance

``make_pdf`` writes small text PDFs of your own (pass them as ``FakeArxiv(pdfs=...)``).
"""

from toolspecs.loaders.arxiv.testing.fake import FakeArxiv, Paper
from toolspecs.loaders.arxiv.testing.pdf import NEEDLE, NEEDLE_PAGE, long_pages, make_pdf

__all__ = ["NEEDLE", "NEEDLE_PAGE", "FakeArxiv", "Paper", "long_pages", "make_pdf"]
