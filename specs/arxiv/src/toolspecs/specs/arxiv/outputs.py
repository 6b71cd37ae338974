"""The structured results of the arXiv tools (issue 25): the facts of each reply as data.

Built by :mod:`~toolspecs.specs.arxiv.render` beside the text it writes (with
:mod:`~toolspecs.specs.arxiv.facts`). What papers say (titles, author names, abstracts,
headings, PDF text, BibTeX built from their metadata) is
:class:`~toolspecs.core.structured.Quoted`, as the text fences it. Times are ISO 8601
with their offset (arXiv's, UTC).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from toolspecs.core.structured import Listing, Quoted, Structure

__all__ = [
    "Bibtex",
    "BibtexEntry",
    "Heading",
    "Outline",
    "Page",
    "Paper",
    "PaperText",
    "Search",
    "Section",
]


class Paper(Structure):
    """One paper, as a search shows it."""

    arxiv_id: str = Field(description="Without version, e.g. '1706.03762': pass as paper_id.")
    versioned_id: str
    title: Quoted
    authors: list[Quoted] = Field(description="The first 10; author_count says how many.")
    author_count: int
    published: str
    updated: str
    primary_category: str | None = None
    categories: list[str]
    journal_ref: Quoted | None = None
    url: str
    pdf_url: str
    abstract: Quoted
    uri: str | None = Field(
        default=None, description="Its full text as an MCP resource, for resources/read."
    )


class Search(Listing):
    """A search: the papers found, best first, and how it was sent."""

    items_field: ClassVar[str] = "papers"

    query: str = Field(description="arXiv's search_query as sent ('' for an id lookup).")
    ids: list[str] | None = Field(default=None, description="The ids looked up.")
    sort_by: str
    max_results: int
    count: int
    more_may_exist: bool = Field(
        description="As many papers came as were asked for: a larger max_results may find more."
    )
    papers: list[Paper]
    next_step: str | None = None


class Page(Structure):
    """One page of a paper's full text."""

    number: int
    text: Quoted


class PaperText(Listing):
    """A paper's full text: the paper, and its pages as read from the PDF."""

    items_field: ClassVar[str] = "pages"

    paper: Paper
    page_count: int
    stopped: str | None = Field(default=None, description="Why the later pages are not shown.")
    cut_pages: list[int] | None = Field(
        default=None, description="Pages shown only up to their first characters."
    )
    pages: list[Page]


class Heading(Structure):
    """One heading of a paper."""

    section: str = Field(description="Its number, or its title without one: pass as section.")
    title: Quoted
    level: int
    page: int


class Outline(Listing):
    """A paper's headings with their pages."""

    items_field: ClassVar[str] = "headings"

    arxiv_id: str
    versioned_id: str
    title: Quoted
    page_count: int
    heading_count: int
    source: Literal["bookmarks", "text"] = Field(
        description="The PDF's bookmarks, or numbered lines of its text."
    )
    headings: list[Heading] = Field(description="The first 120.")
    next_step: str | None = None


class Section(Listing):
    """One section of a paper: its heading and text, and the next section."""

    arxiv_id: str
    versioned_id: str
    section: Heading
    text: Quoted
    cut_at_chars: int | None = Field(default=None, description="Set when the text was cut.")
    also_matching: list[Quoted] | None = None
    next_section: str | None = Field(
        default=None, description="The next section, to pass as section (none: the last)."
    )
    next_step: str


class BibtexEntry(Structure):
    """One paper's BibTeX entry."""

    arxiv_id: str
    versioned_id: str
    bibtex: Quoted


class Bibtex(Structure):
    """BibTeX: an entry per paper found, and the ids arXiv did not have."""

    entries: list[BibtexEntry]
    missing: list[str] | None = None
    next_step: str | None = None
