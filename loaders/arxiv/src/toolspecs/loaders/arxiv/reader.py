r"""``ArxivReader``: arXiv search results and full texts as LlamaIndex Documents.

Every Document's text carries what an agent needs (title, authors, dates, id,
links, abstract), because llama-index drops metadata when a tool result becomes text.

A paper's headings come from its PDF's bookmarks, else its lines: without bookmarks
(LaTeX's hyperref writes them for most papers), headings are lines such as
``3.2 Attention`` (numbers that go up, no full stop) and the usual unnumbered ones.

BibTeX entries are built from arXiv's metadata, as arXiv's own "Export BibTeX" writes
them. LaTeX's special characters are escaped so an entry compiles whatever a title holds.
Braces are written as ``\textbraceleft{}``/``\textbraceright{}``, never ``\{``: BibTeX
counts a brace even after a backslash, so ``a} @misc{x`` in a title would close the
field and start an entry of its own; ``@`` is written ``{\char64}`` for parsers that
start an entry at any ``@``. ``doi`` and ``url`` are verbatim (biblatex reads them so):
a DOI that holds a brace, a backslash, an ``@`` or a space is left out.
"""

from __future__ import annotations

import datetime as dt
import re
import time
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
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
from toolspecs.loaders.arxiv.query import fielded_query, parse_id
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


_NUMBERED = re.compile(r"(?P<number>\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+(?P<title>[A-Z][^\n]{1,80})")
_LEADING_NUMBER = re.compile(r"(?:section\s+)?(?P<number>\d{1,2}(?:\.\d{1,2}){0,3}|[A-Z])[.:]?\s+")
_NAMED = re.compile(
    r"(?:abstract|introduction|related work|background|conclusions?|discussion|references|"
    r"bibliography|acknowledge?ments?|appendix(?: [A-Z])?|appendices)",
    re.IGNORECASE,
)
# The most a top-level number may jump from one heading to the next (a skipped
# section's heading may be unreadable; a larger jump is a table row or a list).
_MAX_JUMP = 5


@dataclass(frozen=True)
class Heading:
    """One heading: level (1 for a section), title as printed, page (from 1), ``number`` or ""."""

    level: int
    title: str
    page: int
    number: str = ""

    @property
    def name(self) -> str:
        """The title without its number: ``Model Architecture`` for ``3 Model Architecture``."""
        match = _LEADING_NUMBER.match(self.title)
        return self.title[match.end() :] if match and self.number else self.title


def _number(title: str) -> str:
    match = _LEADING_NUMBER.match(title)
    return match.group("number") if match else ""


def headings(text: PdfText) -> tuple[list[Heading], str]:
    """The paper's headings in order, and where they came from (``"bookmarks"``, ``"text"``)."""
    if text.outline:
        found = [Heading(level, title, page, _number(title)) for level, title, page in text.outline]
        return found, "bookmarks"
    found, top = [], 0
    for page_number, page in enumerate(text.pages, start=1):
        for raw in page.splitlines():
            line = " ".join(raw.split())
            if len(line) > 90 or line.endswith((".", ",", ";", ":")):
                continue
            match = _NUMBERED.fullmatch(line)
            if match:
                number = match.group("number")
                first = int(number.split(".")[0])
                if not top <= first <= top + _MAX_JUMP or (first == top and "." not in number):
                    continue
                top = first
                found.append(Heading(number.count(".") + 1, line, page_number, number))
            elif _NAMED.fullmatch(line):
                found.append(Heading(1, line, page_number))
    return found, "text"


def _start(text: PdfText, heading: Heading) -> tuple[int, int]:
    index = min(max(heading.page, 1), max(len(text.pages), 1)) - 1
    page = text.pages[index] if text.pages else ""
    for probe in (heading.title, heading.name):
        words = probe.split()
        if not words:
            continue
        pattern = r"\s+".join(re.escape(word) for word in words)
        match = re.search(pattern, page, re.IGNORECASE)
        if match:  # from the start of its line ("Section 3. " before a bookmark's title)
            return index, page.rfind("\n", 0, match.start()) + 1
    return index, 0


def section_text(text: PdfText, found: list[Heading], index: int, max_chars: int) -> str:
    """The text of ``found[index]`` up to the next heading of its level or above, cut short."""
    heading = found[index]
    page, offset = _start(text, heading)
    end_page, end_offset = len(text.pages), 0
    for later in found[index + 1 :]:
        if later.level <= heading.level:
            end_page, end_offset = _start(text, later)
            if (end_page, end_offset) > (page, offset):
                break
            end_page, end_offset = len(text.pages), 0
    parts: list[str] = []
    size = 0
    for number in range(page, min(end_page + 1, len(text.pages))):
        body = text.pages[number]
        body = body[: end_offset if number == end_page else len(body)]
        body = body[offset:] if number == page else body
        parts.append(body)
        size += len(body)
        if size >= max_chars:
            break
    return "\n".join(parts)[:max_chars]


_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "@": r"{\char64}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_SPECIAL = re.compile("|".join(re.escape(char) for char in _SPECIALS))
# A DOI as biblatex reads it verbatim: no character that could end the field or the entry.
_SAFE_DOI = re.compile(r"^10\.[0-9.]+/[^\s{}@\\]+$")
_GROUP = re.compile(r"\b(?:collaboration|consortium|team|group|project)\b", re.IGNORECASE)
_STOP_WORDS = frozenset([
    "a", "an", "the", "on", "of", "in", "for", "and", "to", "with", "is", "are", "via",
    "from", "by", "at", "as", "towards", "toward", "do", "does",
])  # fmt: skip


def escape_latex(text: str) -> str:
    r"""``text`` on one line with LaTeX's special characters escaped (``&`` as ``\&``)."""
    return _SPECIAL.sub(lambda match: _SPECIALS[match.group()], " ".join(text.split()))


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def citation_key(result: arxiv.Result) -> str:
    """``vaswani2017attention``: first author's surname, year, first real title word."""
    names = [author.name for author in result.authors]
    surname = ""
    for name in names[:1]:
        words = [_ascii_word(word) for word in name.split()]
        surname = next((word for word in reversed(words) if word), "")
    title_words = [_ascii_word(word) for word in result.title.split()]
    word = next((w for w in title_words if w and w not in _STOP_WORDS), "")
    return f"{surname or 'arxiv'}{result.published:%Y}{word}"


def _author(name: str) -> str:
    # A group ("H1 Collaboration") braced, not split into names.
    escaped = escape_latex(name)
    return "{" + escaped + "}" if _GROUP.search(name) else escaped


def bibtex_entry(result: arxiv.Result, key: str | None = None) -> str:
    """One ``@misc`` entry for ``result``, keyed ``key`` (default :func:`citation_key`)."""
    paper_id = re.sub(r"v\d+$", "", short_id(result))
    fields = [
        ("title", "{" + escape_latex(result.title) + "}"),
        ("author", " and ".join(_author(author.name) for author in result.authors)),
        ("year", f"{result.published:%Y}"),
        ("eprint", paper_id),
        ("archivePrefix", "arXiv"),
        ("primaryClass", escape_latex(result.primary_category or "")),
        ("doi", doi if _SAFE_DOI.match(doi := (result.doi or "").strip()) else ""),
        ("journal", escape_latex(result.journal_ref or "")),
        ("url", f"https://arxiv.org/abs/{paper_id}"),
    ]
    lines = [f"  {name} = {{{value}}}," for name, value in fields if value]
    return "@misc{" + (key or citation_key(result)) + ",\n" + "\n".join(lines) + "\n}"


def bibtex_entries(results: Sequence[arxiv.Result]) -> list[str]:
    """One entry per paper; a key met twice gets ``b``, ``c``... after its second use."""
    seen: dict[str, int] = {}
    entries = []
    for result in results:
        key = citation_key(result)
        count = seen.get(key, 0)
        seen[key] = count + 1
        entries.append(bibtex_entry(result, key + (chr(ord("a") + count) if count else "")))
    return entries
