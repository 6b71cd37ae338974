"""What the arXiv tools return: each result as data, and the text the agent reads made from it.

What papers say (titles, names, abstracts, headings, PDF text, BibTeX) is
:class:`~toolspecs.core.structured.Quoted` in the data and reaches the agent fenced.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Literal

from llama_index.core.schema import Document
from pydantic import Field, PrivateAttr

from toolspecs.core import fence, ref
from toolspecs.core.prefixed import offered
from toolspecs.core.structured import Listing, Output, Quoted, Structure

if TYPE_CHECKING:
    import arxiv
    from toolspecs.loaders.arxiv import reader
    from toolspecs.loaders.pdf.pdftext import PdfText

MAX_AUTHORS_SHOWN = 10
MAX_ABSTRACT_CHARS = 3000  # arXiv allows 1,920
MAX_OUTLINE_SHOWN = 120  # headings listed by arxiv_paper_outline

BROADEN_QUERY = (
    "Broaden the query: use fewer or more general keywords, check the spelling, or drop "
    "field prefixes such as 'ti:'."
)
NO_PAPERS = "No arXiv papers match {query!r}. " + BROADEN_QUERY
"""``arxiv_query``'s reply when a plain search finds nothing (its ``empty=``)."""
BROADEN_SEARCH = "Broaden the search: drop a field, widen the dates, or use fewer title words."

_VERSION = re.compile(r"v\d+$")
_BLANK_LINES = re.compile(r"\n\s*\n\s*")
# "Words" of 200 characters or more are broken: llama-index's splitter slows to seconds
# per page on text without spaces.
_LONG_WORDS = re.compile(r"(\S{200})(?=\S)")


def short_id_of(paper: arxiv.Result) -> str:
    """``1706.03762v7`` for a paper."""
    return str(paper.entry_id).split("/abs/")[-1]


def _ids_of(paper: arxiv.Result) -> tuple[str, str]:
    versioned = fence.field(short_id_of(paper), 60)
    return _VERSION.sub("", versioned), versioned


def _tidy(text: str) -> str:
    return _LONG_WORDS.sub(r"\1 ", _BLANK_LINES.sub("\n\n", text.strip()))


def passage_source(document: Document) -> str:
    """``paper 1706.03762v7``, and ``, page 3`` for a page of its full text."""
    paper_id = fence.field(document.metadata.get("arxiv_id", ""), 60)
    if not paper_id:
        return ""
    page = document.metadata.get("page")
    return f"paper {paper_id}" + (f", page {page}" if isinstance(page, int) else "")


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
    _document: Document = PrivateAttr()

    @classmethod
    def of(cls, paper: arxiv.Result) -> Paper:
        """``paper`` as data: what the agent is shown of it."""
        from toolspecs.loaders.arxiv import to_document

        document = to_document(paper)
        paper_id = fence.field(document.metadata["arxiv_id"], 60)
        names = [Quoted(text=fence.field(name, 100)) for name in document.metadata["authors"]]
        arxiv_id, versioned_id = _ids_of(paper)
        made = cls(
            arxiv_id=arxiv_id,
            versioned_id=versioned_id,
            title=Quoted(text=fence.field(paper.title)),
            authors=names[:MAX_AUTHORS_SHOWN],
            author_count=len(names),
            published=paper.published.isoformat(),
            updated=paper.updated.isoformat(),
            primary_category=fence.field(paper.primary_category, 40) or None,
            categories=[fence.field(c, 40) for c in paper.categories],
            journal_ref=Quoted(text=fence.field(paper.journal_ref)) if paper.journal_ref else None,
            url=f"https://arxiv.org/abs/{paper_id}",
            pdf_url=f"https://arxiv.org/pdf/{paper_id}",
            abstract=Quoted(text=fence.field(paper.summary, MAX_ABSTRACT_CHARS)),
        )
        made._document = document
        return made

    def text(self, notes: Sequence[str] = ()) -> str:
        """The paper as the agent reads it; ``notes`` (ours) go before the abstract."""
        authors = ", ".join(name.text for name in self.authors)
        if self.author_count > len(self.authors):
            authors += f", et al. ({self.author_count} authors)"
        day = self.published[:10]
        if self.updated[:10] != day:
            day += f" (updated {self.updated[:10]})"
        category = f" | Category: {self.primary_category}" if self.primary_category else ""
        lines = [
            f"Title: {self.title.text}",
            f"Authors: {authors or 'unknown'}",
            f"Published: {day}",
            f"arXiv id: {self.versioned_id}{category}",
            f"URL: {self.url} | PDF: {self.pdf_url}",
        ]
        if self.journal_ref:
            lines.append(f"Journal: {self.journal_ref.text}")
        lines.extend(notes)
        lines.append(fence.block(self.abstract.text, f"arXiv {self.versioned_id}", "abstract"))
        return "\n".join(lines)

    def document(self, notes: Sequence[str] = ()) -> Document:
        """The loader's Document of the paper (id, metadata), with :meth:`text`."""
        document = self._document.model_copy(deep=True)
        document.set_content(self.text(notes))
        return document


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

    @classmethod
    def of(
        cls,
        papers: Sequence[arxiv.Result],
        *,
        query: str,
        sort_by: str,
        max_results: int,
        ids: Sequence[str] = (),
    ) -> Search:
        """The papers a search found, with the search and its count."""
        return cls(
            query=query,
            ids=list(ids) or None,
            sort_by=sort_by,
            max_results=max_results,
            count=len(papers),
            more_may_exist=not ids and len(papers) >= max_results,
            papers=[Paper.of(paper) for paper in papers],
            next_step=None if papers else BROADEN_QUERY,
        )

    @classmethod
    def no_match(cls, query: str, *, sort_by: str, max_results: int) -> Search:
        """A fielded search that found nothing, and what to widen."""
        return cls(
            query=query,
            sort_by=sort_by,
            max_results=max_results,
            count=0,
            more_may_exist=False,
            papers=[],
            next_step=BROADEN_SEARCH,
        )

    def reply(self) -> list[Document]:
        """A Document per paper; none for a plain search that found nothing (``empty``)."""
        if not self.papers and self.next_step == BROADEN_SEARCH:
            return [
                Document(
                    text=f"No arXiv papers match {fence.field(self.query, 500)}. {BROADEN_SEARCH}"
                )
            ]
        return [paper.document() for paper in self.papers]


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

    @classmethod
    def of(cls, paper: arxiv.Result, text: PdfText) -> PaperText:
        """The paper, its page count, why pages are missing or cut, and each page."""
        return cls(
            paper=Paper.of(paper),
            page_count=text.page_count or len(text.pages),
            stopped=text.stopped or None,
            cut_pages=list(text.cut_pages) or None,
            pages=[
                Page(number=number, text=Quoted(text=_tidy(page)))
                for number, page in enumerate(text.pages, start=1)
            ],
        )

    def reply(self) -> list[Document]:
        """The paper's header (with a note when the text is not whole), then one per page."""
        from toolspecs.loaders.pdf import pdftext  # where a PDF was read (see TYPE_CHECKING)

        total = self.page_count
        notes = [f"Full text: {total} page{'s' if total != 1 else ''}, read from the PDF."]
        if self.stopped:
            notes.append(f"[Only pages 1-{len(self.pages)} of {total} are shown: {self.stopped}.]")
        if self.cut_pages:
            listed = ", ".join(str(n) for n in self.cut_pages[:10])
            more = ", ..." if len(self.cut_pages) > 10 else ""
            notes.append(
                f"[Page(s) {listed}{more} are cut: a page shows at most its first "
                f"{pdftext.MAX_PAGE_CHARS:,} characters.]"
            )
        header = self.paper.document(notes)
        paper_id = header.metadata["arxiv_id"]
        return [header] + [
            Document(
                text=fence.block(
                    page.text.text or "(no text on this page)",
                    f"arXiv {fence.field(paper_id, 60)}",
                    f"page {page.number}/{total}",
                ),
                id_=f"arxiv:{paper_id}:page:{page.number}",
                metadata={"arxiv_id": paper_id, "page": page.number},
            )
            for page in self.pages
        ]


class Heading(Structure):
    """One heading of a paper."""

    section: str = Field(description="Its number, or its title without one: pass as section.")
    title: Quoted
    level: int
    page: int

    @classmethod
    def of(cls, heading: reader.Heading) -> Heading:
        """What to pass as ``section`` to read ``heading``, its title and page."""
        return cls(
            section=fence.field(heading.number or heading.name, 80),
            title=Quoted(text=fence.field(heading.title, 200)),
            level=heading.level,
            page=heading.page,
        )


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

    @classmethod
    def of(
        cls,
        paper: arxiv.Result,
        text: PdfText,
        found: Sequence[reader.Heading],
        source: str,
        *,
        offers_section: bool,
    ) -> Outline:
        """A paper's headings with their pages, and how to read one when the agent can."""
        headings = [Heading.of(heading) for heading in found[:MAX_OUTLINE_SHOWN]]
        arxiv_id, versioned_id = _ids_of(paper)
        next_step = None
        if offers_section:  # opt-in: the agent may not have it
            example = headings[min(1, len(headings) - 1)]
            next_step = (
                f"Next: {ref('arxiv_paper_section')}(paper_id={versioned_id!r}, "
                f"section={example.section!r}) reads one section."
            )
        return cls(
            arxiv_id=arxiv_id,
            versioned_id=versioned_id,
            title=Quoted(text=fence.field(paper.title, 200)),
            page_count=text.page_count or len(text.pages),
            heading_count=len(found),
            source="bookmarks" if source == "bookmarks" else "text",
            headings=headings,
            next_step=next_step,
        )

    def reply(self) -> str:
        """The headings, indented by level, each with its page."""
        origin = (
            "the PDF's bookmarks" if self.source == "bookmarks" else "numbered lines of its text"
        )
        lines = [
            f"Outline of arXiv {self.versioned_id}: {self.title.text} ({self.page_count} pages; "
            f"{self.heading_count} headings, from {origin}):"
        ]
        for heading in self.headings:
            indent = "  " * (min(heading.level, 4) - 1)
            lines.append(f"{indent}- {heading.title.text} (page {heading.page})")
        if self.heading_count > len(self.headings):
            lines.append(f"[... {self.heading_count - len(self.headings)} more headings not shown]")
        if self.next_step:
            lines.append(self.next_step)
        return "\n".join(lines)


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
    _paper_id: str = PrivateAttr(default="")
    _number: int = PrivateAttr(default=0)

    @classmethod
    def of(
        cls,
        paper: arxiv.Result,
        found: Sequence[reader.Heading],
        index: int,
        others: Sequence[int],
        body: str,
        *,
        max_chars: int,
        offers_outline: bool,
    ) -> Section:
        """Section ``found[index]``'s text (``body``), the ``others`` matching, and what next."""
        arxiv_id, versioned_id = _ids_of(paper)
        heading = found[index]
        body = _tidy(body)
        after = next((h for h in found[index + 1 :] if h.level <= heading.level), None)
        listing = f"; {ref('arxiv_paper_outline')} lists them all" if offers_outline else ""
        label = None
        if after is not None:
            label = fence.field(after.number or after.name, 80)
            next_step = (
                f"Next: {ref('arxiv_paper_section')}(paper_id={versioned_id!r}, "
                f"section={label!r}) reads the next section{listing}."
            )
        else:
            next_step = f"This is the last section{listing}."
        also = [Quoted(text=fence.field(found[i].title, 100)) for i in others[:5]]
        made = cls(
            arxiv_id=arxiv_id,
            versioned_id=versioned_id,
            section=Heading.of(heading),
            text=Quoted(text=body),
            cut_at_chars=max_chars if len(body) >= max_chars else None,
            also_matching=also or None,
            next_section=label,
            next_step=next_step,
        )
        made._paper_id, made._number = short_id_of(paper), index + 1
        return made

    def reply(self) -> Document:
        """The section's text, fenced, under its heading and before the next step."""
        title = self.section.title.text
        pid = self.versioned_id
        lines = [f"Section {title!r} of arXiv {pid} (from page {self.section.page}):"]
        if self.cut_at_chars is not None:
            lines.append(f"[Cut at {self.cut_at_chars:,} characters.]")
        if self.also_matching:
            lines.append(f"Also matching: {'; '.join(t.text for t in self.also_matching)}.")
        body = self.text.text or "(no text under this heading)"
        lines.append(fence.block(body, f"arXiv {pid}", f"section {title}"))
        lines.append(self.next_step)
        return Document(
            text="\n".join(lines),
            id_=f"arxiv:{self._paper_id}:section:{self._number}",
            metadata={"arxiv_id": self._paper_id, "page": self.section.page},
        )


class BibtexEntry(Structure):
    """One paper's BibTeX entry."""

    arxiv_id: str
    versioned_id: str
    bibtex: Quoted


class Bibtex(Output):
    """BibTeX: an entry per paper found, and the ids arXiv did not have."""

    entries: list[BibtexEntry]
    missing: list[str] | None = None
    next_step: str | None = None

    @classmethod
    def of(
        cls, papers: Sequence[arxiv.Result], entries: Sequence[str], wanted: Sequence[str]
    ) -> Bibtex:
        """The entries of ``papers``, and the ``wanted`` ids arXiv did not have."""
        found = {_VERSION.sub("", short_id_of(paper)) for paper in papers}
        missing = [i for i in wanted if _VERSION.sub("", i) not in found]
        next_step = None
        if missing:
            find = f", or find them with {ref('arxiv_query')}" if offered("arxiv_query") else ""
            next_step = f"No arXiv paper has the id(s) {', '.join(missing)}: check them{find}."
        return cls(
            entries=[
                BibtexEntry(arxiv_id=ids[0], versioned_id=ids[1], bibtex=Quoted(text=entry))
                for ids, entry in zip(map(_ids_of, papers), entries, strict=True)
            ],
            missing=missing or None,
            next_step=next_step,
        )

    def reply(self) -> str:
        """The entries, fenced, for the user as they are; and the ids arXiv did not have."""
        count = len(self.entries)
        lines = [
            f"BibTeX for {count} paper{'s' if count != 1 else ''} "
            f"({', '.join(e.versioned_id for e in self.entries)}), built from "
            "arXiv's metadata; give it to the user as it is:",
            fence.block(
                "\n\n".join(e.bibtex.text for e in self.entries), "arXiv metadata", "BibTeX"
            ),
        ]
        if self.next_step:
            lines.append(self.next_step)
        return "\n".join(lines)
