"""Small, valid PDFs for the offline arXiv: text pages that pypdf reads back verbatim.

The PDFs are written by the PDF loader's ``make_pdf`` and ``bomb_pdf``
(:mod:`toolspecs.loaders.pdf.testing`), re-exported here; the pages are arXiv's.
"""

from __future__ import annotations

import textwrap

from toolspecs.loaders.pdf.testing import bomb_pdf, make_pdf

__all__ = [
    "NEEDLE",
    "NEEDLE_PAGE",
    "TOPICS",
    "bomb_pdf",
    "long_outline",
    "long_pages",
    "make_pdf",
    "paper_pages",
]


def paper_pages(title: str, authors: list[str], abstract: str) -> list[list[str]]:
    """One page: the title, the authors and the abstract wrapped to 90 characters."""
    return [[title, ", ".join(authors), *textwrap.wrap(f"Abstract: {abstract}", 90)]]


TOPICS = [
    "encoder stacks", "decoder stacks", "scaled dot-product attention", "multi-head attention",
    "position-wise feed-forward networks", "embeddings and softmax", "positional encoding",
    "self-attention cost", "training data and batching", "hardware and schedule",
    "optimizer settings", "residual dropout", "label smoothing", "machine translation results",
    "model variations", "English constituency parsing", "attention head ablations",
    "beam search settings", "checkpoint averaging", "byte-pair encoding", "vocabulary sharing",
    "learning rate warmup", "layer normalization", "sequence length limits", "restricted attention",
    "sinusoidal versus learned positions", "attention visualisations", "anaphora resolution",
    "future work", "acknowledgements",
]  # fmt: skip
NEEDLE_PAGE = 17
"""The one page of :func:`long_pages` that holds :data:`NEEDLE`."""
NEEDLE = "The quokka ablation lowered perplexity from 4.92 to 4.50 on the development set."
"""A sentence to search a long paper for: only page 17 says "quokka"."""


def long_outline() -> list[tuple[str, int]]:
    """The bookmarks of :func:`long_pages`: ``"3 Scaled dot-product attention"`` on page 3."""
    return [(f"{number} {topic.capitalize()}", number) for number, topic in enumerate(TOPICS, 1)]


def long_pages() -> list[list[str]]:
    """30 pages of distinct paragraphs about the Transformer; only page 17 says "quokka".

    The offline arXiv serves them as the PDF of 1706.03762: long enough (over 2,000
    tokens) to be stored and searched with ``read_stored_papers``.
    """
    pages = []
    for number, topic in enumerate(TOPICS, start=1):
        lines = [
            f"Section {number}. {topic.capitalize()}",
            f"In this section we study {topic} in the Transformer and report its effect on BLEU.",
            f"The {topic} experiments use the WMT 2014 English-German data set of 4.5 million",
            f"sentence pairs; Table {number} lists the results on the newstest2013 set.",
            "Each variant was trained for 100,000 steps on eight P100 GPUs with Adam.",
            f"These findings about {topic} hold across the base and the big model sizes.",
        ]
        if number == NEEDLE_PAGE:
            lines.insert(3, NEEDLE)
        pages.append(lines)
    return pages
