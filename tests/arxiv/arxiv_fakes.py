"""Helpers of the arXiv tests: fixture feeds, sent query parameters, PDFs.

The PDF writer and the long paper ship in ``toolspecs.loaders.arxiv.testing``.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from toolspecs.loaders.arxiv.testing import NEEDLE, NEEDLE_PAGE, long_pages, make_pdf

__all__ = [
    "API", "API_ANY", "FIXTURES", "NEEDLE", "NEEDLE_PAGE", "PDF_URL", "SHORT_PAGES",
    "assert_guidance", "feed", "long_pages", "make_pdf", "sent",
]  # fmt: skip

FIXTURES = Path(__file__).parent.parent / "fixtures" / "arxiv"
API = "https://export.arxiv.org/api/query"
API_ANY = re.compile(r"https://export\.arxiv\.org/api/query(\?.*)?$")
# The PDF link of 1706.03762v7 in the feed (``<link title="pdf" ...>``, http there), over
# https: the only way the client fetches it.
PDF_URL = "https://arxiv.org/pdf/1706.03762v7"


def feed(name: str) -> str:
    """A fixture feed by file name, e.g. ``feed("empty.xml")``."""
    return (FIXTURES / name).read_text(encoding="utf-8")


def sent(call) -> dict[str, str]:
    """The query parameters of a recorded ``responses`` call, one value each."""
    return {k: v[0] for k, v in parse_qs(urlparse(call.request.url).query, True).items()}


SHORT_PAGES = [
    [
        "Attention Is All You Need",
        "Ashish Vaswani, Noam Shazeer, Niki Parmar, Jakob Uszkoreit",
        "Abstract: The dominant sequence transduction models are based on complex",
        "recurrent or convolutional neural networks that include an encoder and a decoder.",
    ],
    [
        "3 Model Architecture",
        "Most competitive neural sequence transduction models have an encoder-decoder",
        "structure. The Transformer follows this overall architecture using stacked",
        "self-attention and point-wise, fully connected layers for both the encoder and decoder.",
    ],
    [
        "7 Conclusion",
        "In this work, we presented the Transformer, the first sequence transduction model",
        "based entirely on attention, replacing the recurrent layers most commonly used.",
    ],
]


def assert_guidance(output, *needles: str, kind: type | None = None) -> str:
    """Check that a tool output is guidance (``is_error``) naming every needle; return its text.

    Guidance comes back as a ``ToolOutput``: a raised exception never reaches this check.
    """
    assert output.is_error is True, output.content
    text = output.content
    for needle in needles:
        assert needle in text, f"{needle!r} not in {text!r}"
    if kind is not None:
        assert isinstance(output.exception, kind), output.exception
    return text
