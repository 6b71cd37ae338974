"""``ArxivReader``: arXiv search results and full texts as LlamaIndex Documents.

Every Document's text carries what an agent needs (title, authors, dates, id,
links, abstract), because llama-index drops metadata when a tool result becomes text.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Iterable, Sequence
from typing import Literal

from llama_index.core.readers.base import BaseReader
from llama_index.core.schema import Document
from requests.adapters import BaseAdapter

import arxiv
from toolspecs.base.cache import Cache
from toolspecs.base.net import under
from toolspecs.loaders.arxiv.cache import MAX_PDF_BYTES
from toolspecs.loaders.arxiv.client import (
    ArxivClient,
    Redirected,
    TooLarge,
    arxiv_url,
    shared_client,
)
from toolspecs.loaders.arxiv.errors import ArxivQueryError, PaperNotFound, PaperUnreadable
from toolspecs.loaders.arxiv.ids import parse_id
from toolspecs.loaders.arxiv.query import fielded_query
from toolspecs.loaders.pdf import pdftext
from toolspecs.loaders.pdf.pdftext import PdfText

SortBy = Literal["relevance", "recent", "updated"]

_SORT = {
    "relevance": arxiv.SortCriterion.Relevance,
    "recent": arxiv.SortCriterion.SubmittedDate,
    "submitted": arxiv.SortCriterion.SubmittedDate,
    "updated": arxiv.SortCriterion.LastUpdatedDate,
}
MAX_AUTHORS_SHOWN = 10
# The least time given to reading a PDF's text, whatever is left of a deadline.
_MIN_PARSE_SECONDS = 1.0


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def short_id(result: arxiv.Result) -> str:
    """``1706.03762v7`` for ``http://arxiv.org/abs/1706.03762v7``."""
    entry_id: str = result.entry_id
    return entry_id.split("/abs/")[-1]


def pdf_link(result: arxiv.Result) -> str:
    """The paper's PDF over https; ``https://arxiv.org/pdf/<id>`` when the feed links elsewhere."""
    link: str = result.pdf_url or ""
    if link.startswith("http://"):
        link = "https://" + link.removeprefix("http://")
    return link if arxiv_url(link) else f"https://arxiv.org/pdf/{short_id(result)}"


def describe(result: arxiv.Result) -> str:
    """The text of one paper as the agent reads it."""
    names = [a.name for a in result.authors]
    authors = ", ".join(names[:MAX_AUTHORS_SHOWN])
    if len(names) > MAX_AUTHORS_SHOWN:
        authors += f", et al. ({len(names)} authors)"
    dates = f"{result.published:%Y-%m-%d}"
    if result.updated.date() != result.published.date():
        dates += f" (updated {result.updated:%Y-%m-%d})"
    paper_id = short_id(result)
    lines = [
        f"Title: {_squash(result.title)}",
        f"Authors: {authors or 'unknown'}",
        f"Published: {dates}",
        f"arXiv id: {paper_id}"
        + (f" | Category: {result.primary_category}" if result.primary_category else ""),
        f"URL: https://arxiv.org/abs/{paper_id} | PDF: {pdf_link(result)}",
    ]
    if result.journal_ref:
        lines.append(f"Journal: {_squash(result.journal_ref)}")
    lines.append(f"Abstract: {_squash(result.summary)}")
    return "\n".join(lines)


def to_document(result: arxiv.Result) -> Document:
    """One paper as a Document: the text above, and the same facts as metadata."""
    paper_id = short_id(result)
    return Document(
        text=describe(result),
        id_=f"arxiv:{paper_id}",
        metadata={
            "arxiv_id": paper_id,
            "title": _squash(result.title),
            "authors": [a.name for a in result.authors],
            "published": result.published.date().isoformat(),
            "updated": result.updated.date().isoformat(),
            "url": f"https://arxiv.org/abs/{paper_id}",
            "pdf_url": pdf_link(result),
            "categories": list(result.categories),
        },
        excluded_llm_metadata_keys=["authors", "categories", "pdf_url", "updated"],
    )


class SearchResults(list[arxiv.Result]):
    """The papers a search found, best first, and the ``query`` it sent arXiv (``""`` for ids)."""

    def __init__(self, papers: Iterable[arxiv.Result] = (), query: str = "") -> None:
        super().__init__(papers)
        self.query = query


class ArxivReader(BaseReader):
    """Read arXiv: searches and id lookups as one Document per paper, PDFs as text.

    Args:
        client: An ``ArxivClient`` to share (one rate limit); default the process-wide one.
        transport: A ``requests`` transport adapter for a client of this reader's own.
        cache: Where downloaded PDFs are kept (a ``PaperCache`` or any
            ``toolspecs.base.cache.Cache``), or ``None`` to download every time.
        base_url: Where arXiv is reached instead, for a client of this reader's own.
    """

    def __init__(
        self,
        client: ArxivClient | None = None,
        *,
        transport: BaseAdapter | None = None,
        cache: Cache | None = None,
        base_url: str | None = None,
    ) -> None:
        self.cache = cache
        if client is not None and (transport is not None or base_url is not None):
            given = "transport=" if transport is not None else "base_url="
            raise ValueError(
                f"ArxivReader takes client= or {given}, not both: give it to the client "
                f"(ArxivClient({given}...))."
            )
        if transport is not None or base_url is not None:
            client = ArxivClient(transport=transport, base_url=base_url)
        self.client = client or shared_client()

    def load_data(
        self,
        query: str = "",
        max_results: int = 3,
        sort_by: SortBy | str = "relevance",
        id_list: Sequence[str] | None = None,
        *,
        authors: str | Sequence[str] = (),
        title: str = "",
        abstract: str = "",
        categories: str | Sequence[str] = (),
        submitted: tuple[dt.datetime | dt.date, dt.datetime | dt.date] | None = None,
        deadline: float | None = None,
    ) -> list[Document]:
        """Search arXiv, or look papers up by id; the fields narrow the search (all must match).

        Args:
            query: An arXiv search query, e.g. ``"ti:attention AND cat:cs.CL"``, or
                keywords; may be empty when a field is given.
            max_results: How many papers at most.
            sort_by: ``"relevance"``, ``"recent"`` (submission date) or ``"updated"``.
            id_list: arXiv ids to look up (with or without version).
            authors: Author names, e.g. ``["Ashish Vaswani"]`` (one string is one name).
            title: Words of the title, as one phrase.
            abstract: Words of the abstract, as one phrase.
            categories: Category codes, any of which may match, e.g. ``["cs.CL"]``.
            submitted: Submitted from, to (both included), in GMT, e.g.
                ``(date(2017, 1, 1), date(2017, 12, 31))``.
            deadline: Seconds the search may take, retries included.
        """
        results = self.search(
            query,
            max_results,
            sort_by,
            id_list,
            authors=authors,
            title=title,
            abstract=abstract,
            categories=categories,
            submitted=submitted,
            deadline=deadline,
        )
        return [to_document(result) for result in results]

    def search(
        self,
        query: str = "",
        max_results: int = 3,
        sort_by: SortBy | str = "relevance",
        id_list: Sequence[str] | None = None,
        *,
        authors: str | Sequence[str] = (),
        title: str = "",
        abstract: str = "",
        categories: str | Sequence[str] = (),
        submitted: tuple[dt.datetime | dt.date, dt.datetime | dt.date] | None = None,
        deadline: float | None = None,
    ) -> SearchResults:
        """:meth:`load_data` as ``arxiv.Result`` objects, for callers that show papers their way."""
        sent = fielded_query(
            query,
            authors=authors,
            title=title,
            abstract=abstract,
            categories=categories,
            submitted=submitted,
        )
        search = arxiv.Search(
            query=sent,
            id_list=list(id_list or []),
            max_results=max_results,
            sort_by=_SORT.get(str(sort_by), arxiv.SortCriterion.Relevance),
        )
        end = None if deadline is None else time.monotonic() + deadline
        return SearchResults(self.client.results_by(search, end), sent)

    def load_paper(self, paper_id: str, *, deadline: float | None = None) -> arxiv.Result:
        """The search result of one paper, by id or URL (or ``PaperNotFound``)."""
        clean = parse_id(paper_id) or paper_id.strip()
        results = self.search(id_list=[clean], max_results=1, deadline=deadline)
        if not results:
            raise PaperNotFound(clean)
        return results[0]

    def load_full_text(self, paper_id: str, *, deadline: float | None = None) -> list[Document]:
        """A paper's full text from its PDF: the paper's header, then one Document per page.

        The header's metadata has ``pages`` and, when the text is not whole,
        ``text_stopped`` and ``cut_pages``. Raises ``PaperNotFound``, ``PaperUnreadable``.
        """
        paper, text = self.read_full_text(paper_id, deadline=deadline)
        pid = short_id(paper)
        header = to_document(paper)
        header.metadata.update(
            {"pages": text.page_count, "pages_read": len(text.pages), "text_stopped": text.stopped}
        )
        if text.cut_pages:
            header.metadata["cut_pages"] = text.cut_pages
        documents = [header]
        total = text.page_count or len(text.pages)
        for number, page in enumerate(text.pages, start=1):
            documents.append(
                Document(
                    text=f"[{pid}, page {number} of {total}]\n{page.strip()}",
                    id_=f"arxiv:{pid}:page:{number}",
                    metadata={"arxiv_id": pid, "page": number},
                )
            )
        return documents

    def read_full_text(
        self, paper_id: str, *, deadline: float | None = None
    ) -> tuple[arxiv.Result, PdfText]:
        """The paper and its PDF's pages: from the ``cache``, else :meth:`pdf_source`, then kept."""
        end = None if deadline is None else time.monotonic() + deadline
        clean = parse_id(paper_id) or paper_id.strip()
        paper = self.load_paper(clean, deadline=deadline)
        pid = short_id(paper)
        cached = self.cache.get(pid) if self.cache is not None else None
        # Whatever the cache, only a PDF within the limit is read from it.
        if cached is not None and cached.startswith(b"%PDF") and len(cached) <= MAX_PDF_BYTES:
            return paper, self._read_pdf(pid, cached, end)
        try:
            response = self.client.get_with_retries(
                self.pdf_source(paper, clean), max_bytes=MAX_PDF_BYTES, end=end
            )
        except ArxivQueryError as exc:  # e.g. a 404 on the PDF: the id itself was fine
            raise PaperUnreadable(
                pid, f"arXiv did not serve the PDF ({exc.message})", status=exc.status
            ) from exc
        except TooLarge as exc:
            raise PaperUnreadable(
                pid, f"the PDF is larger than {MAX_PDF_BYTES // 2**20} MB"
            ) from exc
        except Redirected as exc:
            raise PaperUnreadable(pid, f"the PDF link was redirected: {exc.reason}") from exc
        content = response.content
        if not content.startswith(b"%PDF"):
            raise PaperUnreadable(pid, "arXiv did not send a PDF (it may still be processing)")
        text = self._read_pdf(pid, content, end)
        if self.cache is not None:  # only a PDF that was read: a damaged one is not kept
            self.cache.put(pid, content)
        return paper, text

    def pdf_source(self, paper: arxiv.Result, asked: str) -> str:
        """Where the PDF of ``paper`` (looked up as ``asked``) is fetched from.

        Under a base URL, the feed's link when it lies under it, else ``<base>/pdf/<id>``.
        """
        base = self.client.base_url
        if base is None:
            return pdf_link(paper)
        link = paper.pdf_url or ""
        if link and under(base, link):
            return str(link)
        for candidate in (short_id(paper), asked):
            if parse_id(candidate) == candidate:
                return f"{base}/pdf/{candidate}"
        raise PaperUnreadable(asked, "the paper's id is not an arXiv id: no PDF was fetched")

    def _read_pdf(self, pid: str, content: bytes, end: float | None) -> PdfText:
        seconds = pdftext.MAX_SECONDS
        if end is not None:
            seconds = min(seconds, max(end - time.monotonic(), _MIN_PARSE_SECONDS))
        text = pdftext.read_pages(content, seconds=seconds)
        if text.error:
            raise PaperUnreadable(pid, text.error)
        if not any(page.strip() for page in text.pages):
            if text.stopped:
                raise PaperUnreadable(pid, f"no text was read from the PDF: {text.stopped}")
            raise PaperUnreadable(pid, "the PDF has no extractable text (scanned images?)")
        return text
