"""What the arXiv tools tell the agent when a call succeeds: every reply, in its words.

What papers say (titles, author names, abstracts, PDF text) is third-party text: it
reaches the agent fenced (:mod:`toolspecs.core.fence`): one-line fields for titles and
names, blocks naming the paper for abstracts and pages. When a call cannot go on,
:mod:`~toolspecs.specs.arxiv.guidance` says so.

Each reply carries its structured result (:mod:`~toolspecs.specs.arxiv.outputs`), built
beside the text from the same values (:mod:`~toolspecs.specs.arxiv.facts`): the same
facts, what papers say as ``Quoted``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from llama_index.core.schema import Document

from toolspecs.core import fence, ref
from toolspecs.core.prefixed import offered
from toolspecs.core.structured import Quoted, Replies, Reply
from toolspecs.specs.arxiv import outputs
from toolspecs.specs.arxiv.facts import (
    MAX_ABSTRACT_CHARS,
    MAX_AUTHORS_SHOWN,
    SectionDocument,
    heading_data,
    ids_of,
    paper_data,
    short_id_of,
)

if TYPE_CHECKING:
    import arxiv
    from toolspecs.loaders.arxiv.outline import Heading
    from toolspecs.loaders.pdf.pdftext import PdfText

MAX_OUTLINE_SHOWN = 120  # headings listed by arxiv_paper_outline

BROADEN_QUERY = (
    "Broaden the query: use fewer or more general keywords, check the spelling, or drop "
    "field prefixes such as 'ti:'."
)
NO_PAPERS = "No arXiv papers match {query!r}. " + BROADEN_QUERY
"""``arxiv_query``'s reply when a plain search finds nothing (its ``empty=``)."""
BROADEN_SEARCH = "Broaden the search: drop a field, widen the dates, or use fewer title words."

_BLANK_LINES = re.compile(r"\n\s*\n\s*")
# A "word" of 200 characters or more is no word (a URL is shorter): broken every 200, so
# that cutting the text into passages stays fast (llama-index's splitter slows to
# seconds per page on text without spaces).
_LONG_WORDS = re.compile(r"(\S{200})(?=\S)")


def _tidy(text: str) -> str:
    """PDF text with runs of blank lines made one, and over-long "words" broken."""
    return _LONG_WORDS.sub(r"\1 ", _BLANK_LINES.sub("\n\n", text.strip()))


def _day(paper: arxiv.Result) -> str:
    dates = f"{paper.published:%Y-%m-%d}"
    if paper.updated.date() != paper.published.date():
        dates += f" (updated {paper.updated:%Y-%m-%d})"
    return dates


# -- papers ------------------------------------------------------------------------------


def describe(paper: arxiv.Result, notes: Sequence[str] = ()) -> str:
    """One paper as the agent reads it: its own words fenced, ours around them.

    Args:
        paper: The paper.
        notes: Lines of ours to show before the abstract (which a preview may cut).
    """
    from toolspecs.loaders.arxiv import to_document

    document = to_document(paper)
    paper_id = fence.field(document.metadata["arxiv_id"], 60)
    names = [fence.field(name, 100) for name in document.metadata["authors"]]
    authors = ", ".join(names[:MAX_AUTHORS_SHOWN])
    if len(names) > MAX_AUTHORS_SHOWN:
        authors += f", et al. ({len(names)} authors)"
    category = fence.field(paper.primary_category, 40)
    lines = [
        f"Title: {fence.field(paper.title)}",
        f"Authors: {authors or 'unknown'}",
        f"Published: {_day(paper)}",
        f"arXiv id: {paper_id}" + (f" | Category: {category}" if category else ""),
        f"URL: https://arxiv.org/abs/{paper_id} | PDF: https://arxiv.org/pdf/{paper_id}",
    ]
    if paper.journal_ref:
        lines.append(f"Journal: {fence.field(paper.journal_ref)}")
    lines.extend(notes)
    abstract = fence.field(paper.summary, MAX_ABSTRACT_CHARS)  # one paragraph, bounded
    lines.append(fence.block(abstract, f"arXiv {paper_id}", "abstract"))
    return "\n".join(lines)


def paper_document(paper: arxiv.Result, notes: Sequence[str] = ()) -> Document:
    """The loader's Document of ``paper`` (id, metadata), with the fenced text."""
    from toolspecs.loaders.arxiv import to_document

    document = to_document(paper)
    document.set_content(describe(paper, notes))
    return document


def search_results(
    papers: Sequence[arxiv.Result],
    *,
    query: str,
    sort_by: str,
    max_results: int,
    ids: Sequence[str] = (),
) -> Replies:
    """The papers a search found as Documents, and as data with the search and its count.

    A plain search that found nothing is no Document: the tool's ``empty`` text says so.

    Args:
        papers: The papers, best first.
        query: arXiv's ``search_query`` as sent (``""`` for an id lookup).
        sort_by: The order asked for.
        max_results: How many were asked for (as many came: more may exist).
        ids: The ids looked up, for an id lookup.
    """
    data = outputs.Search(
        query=query,
        ids=list(ids) or None,
        sort_by=sort_by,
        max_results=max_results,
        count=len(papers),
        more_may_exist=not ids and len(papers) >= max_results,
        papers=[paper_data(paper) for paper in papers],
        next_step=None if papers else BROADEN_QUERY,
    )
    return Replies([paper_document(paper) for paper in papers], data)


def no_match(search: str, *, sort_by: str, max_results: int) -> Replies:
    """A fielded search that found nothing: the query arXiv was sent, and what to widen."""
    data = outputs.Search(
        query=search,
        sort_by=sort_by,
        max_results=max_results,
        count=0,
        more_may_exist=False,
        papers=[],
        next_step=BROADEN_SEARCH,
    )
    return Replies(
        [Document(text=f"No arXiv papers match {fence.field(search, 500)}. {BROADEN_SEARCH}")],
        data,
    )


def full_text_documents(paper: arxiv.Result, text: PdfText) -> Replies:
    """The paper's header (with a note when the text is not whole), then one per page.

    Its data: the paper, its page count, why pages are missing or cut, and each page.
    """
    from toolspecs.loaders.pdf import pdftext  # where a PDF was read (see TYPE_CHECKING)

    total = text.page_count or len(text.pages)
    notes = [f"Full text: {total} page{'s' if total != 1 else ''}, read from the PDF."]
    if text.stopped:
        notes.append(f"[Only pages 1-{len(text.pages)} of {total} are shown: {text.stopped}.]")
    if text.cut_pages:
        listed = ", ".join(str(n) for n in text.cut_pages[:10])
        more = ", ..." if len(text.cut_pages) > 10 else ""
        notes.append(
            f"[Page(s) {listed}{more} are cut: a page shows at most its first "
            f"{pdftext.MAX_PAGE_CHARS:,} characters.]"
        )
    header = paper_document(paper, notes)
    paper_id = header.metadata["arxiv_id"]
    documents = [header]
    pages = []
    for number, page in enumerate(text.pages, start=1):
        tidy = _tidy(page)
        pages.append(outputs.Page(number=number, text=Quoted(text=tidy)))
        documents.append(
            Document(
                text=fence.block(
                    tidy or "(no text on this page)",
                    f"arXiv {fence.field(paper_id, 60)}",
                    f"page {number}/{total}",
                ),
                id_=f"arxiv:{paper_id}:page:{number}",
                metadata={"arxiv_id": paper_id, "page": number},
            )
        )
    data = outputs.PaperText(
        paper=paper_data(paper),
        page_count=total,
        stopped=text.stopped or None,
        cut_pages=list(text.cut_pages) or None,
        pages=pages,
    )
    return Replies(documents, data)


def passage_source(document: Document) -> str:
    """``paper 1706.03762v7``, and ``, page 3`` for a page of its full text."""
    paper_id = fence.field(document.metadata.get("arxiv_id", ""), 60)
    if not paper_id:
        return ""
    page = document.metadata.get("page")
    return f"paper {paper_id}" + (f", page {page}" if isinstance(page, int) else "")


# -- outline and sections ----------------------------------------------------------------


def outline(
    paper: arxiv.Result,
    text: PdfText,
    found: Sequence[Heading],
    source: str,
    *,
    offers_section: bool,
) -> Reply:
    """A paper's headings with their pages, and how to read one when the agent can."""
    pid = fence.field(short_id_of(paper), 60)
    total = text.page_count or len(text.pages)
    origin = "the PDF's bookmarks" if source == "bookmarks" else "numbered lines of its text"
    lines = [
        f"Outline of arXiv {pid}: {fence.field(paper.title, 200)} ({total} pages; "
        f"{len(found)} headings, from {origin}):"
    ]
    for heading in found[:MAX_OUTLINE_SHOWN]:
        indent = "  " * (min(heading.level, 4) - 1)
        lines.append(f"{indent}- {fence.field(heading.title, 200)} (page {heading.page})")
    if len(found) > MAX_OUTLINE_SHOWN:
        lines.append(f"[... {len(found) - MAX_OUTLINE_SHOWN} more headings not shown]")
    example = found[min(1, len(found) - 1)]
    arxiv_id, versioned_id = ids_of(paper)
    next_step = None
    if offers_section:  # opt-in: the agent may not have it
        next_step = (
            f"Next: {ref('arxiv_paper_section')}(paper_id={pid!r}, "
            f"section={fence.field(example.number or example.name, 80)!r}) reads one "
            "section."
        )
        lines.append(next_step)
    data = outputs.Outline(
        arxiv_id=arxiv_id,
        versioned_id=versioned_id,
        title=Quoted(text=fence.field(paper.title, 200)),
        page_count=total,
        heading_count=len(found),
        source="bookmarks" if source == "bookmarks" else "text",
        headings=[heading_data(h) for h in found[:MAX_OUTLINE_SHOWN]],
        next_step=next_step,
    )
    return Reply("\n".join(lines), data)


def section(
    paper: arxiv.Result,
    found: Sequence[Heading],
    index: int,
    others: Sequence[int],
    body: str,
    *,
    max_chars: int,
    offers_outline: bool,
) -> SectionDocument:
    """One section's text, fenced, with the other matches and how to read the next one.

    Args:
        paper: The paper.
        found: Its headings.
        index: The heading of the section.
        others: The headings that matched as well.
        body: The section's text, at most ``max_chars`` long.
        max_chars: Where the loader cut it.
        offers_outline: Whether the agent has ``arxiv_paper_outline``.
    """
    pid = fence.field(short_id_of(paper), 60)
    heading = found[index]
    body = _tidy(body)
    title = fence.field(heading.title, 200)
    lines = [f"Section {title!r} of arXiv {pid} (from page {heading.page}):"]
    cut = len(body) >= max_chars
    if cut:
        lines.append(f"[Cut at {max_chars:,} characters.]")
    also = [fence.field(found[i].title, 100) for i in others[:5]]
    if others:
        lines.append(f"Also matching: {'; '.join(also)}.")
    lines.append(
        fence.block(body or "(no text under this heading)", f"arXiv {pid}", f"section {title}")
    )
    after = next((h for h in found[index + 1 :] if h.level <= heading.level), None)
    # arxiv_paper_outline is opt-in: named only when the agent has it.
    listing = f"; {ref('arxiv_paper_outline')} lists them all" if offers_outline else ""
    label = None
    if after is not None:
        label = fence.field(after.number or after.name, 80)
        next_step = (
            f"Next: {ref('arxiv_paper_section')}(paper_id={pid!r}, section={label!r}) reads the "
            f"next section{listing}."
        )
    else:
        next_step = f"This is the last section{listing}."
    lines.append(next_step)
    document = SectionDocument(
        text="\n".join(lines),
        id_=f"arxiv:{short_id_of(paper)}:section:{index + 1}",
        metadata={"arxiv_id": short_id_of(paper), "page": heading.page},
    )
    arxiv_id, versioned_id = ids_of(paper)
    document._data = outputs.Section(
        arxiv_id=arxiv_id,
        versioned_id=versioned_id,
        section=heading_data(heading),
        text=Quoted(text=body),
        cut_at_chars=max_chars if cut else None,
        also_matching=[Quoted(text=t) for t in also] or None,
        next_section=label,
        next_step=next_step,
    )
    return document


# -- BibTeX ------------------------------------------------------------------------------


def bibtex(papers: Sequence[arxiv.Result], entries: Sequence[str], wanted: Sequence[str]) -> Reply:
    """The entries, fenced, for the user as they are; and the ids arXiv did not have."""
    found = {re.sub(r"v\d+$", "", short_id_of(paper)) for paper in papers}
    missing = [i for i in wanted if re.sub(r"v\d+$", "", i) not in found]
    count = len(papers)
    lines = [
        f"BibTeX for {count} paper{'s' if count != 1 else ''} "
        f"({', '.join(fence.field(short_id_of(p), 60) for p in papers)}), built from "
        "arXiv's metadata; give it to the user as it is:",
        fence.block("\n\n".join(entries), "arXiv metadata", "BibTeX"),
    ]
    next_step = None
    if missing:
        find = f", or find them with {ref('arxiv_query')}" if offered("arxiv_query") else ""
        next_step = f"No arXiv paper has the id(s) {', '.join(missing)}: check them{find}."
        lines.append(next_step)
    data = outputs.Bibtex(
        entries=[
            outputs.BibtexEntry(arxiv_id=ids[0], versioned_id=ids[1], bibtex=Quoted(text=entry))
            for ids, entry in zip(map(ids_of, papers), entries, strict=True)
        ],
        missing=list(missing) or None,
        next_step=next_step,
    )
    return Reply("\n".join(lines), data)
