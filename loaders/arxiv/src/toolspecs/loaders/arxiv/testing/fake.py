"""``FakeArxiv``: arXiv's query API and PDFs, answered offline at the requests transport.

A ``requests`` transport adapter: pass :meth:`FakeArxiv.transport` as ``transport=`` to
``ArxivToolSpec``, ``ArxivReader`` or ``ArxivClient``, or call it directly through
:meth:`FakeArxiv.session`.
It searches a bundled catalogue of real arXiv entries (``data/catalogue.xml``: the
Transformer, RAG, BERT, GPT-3, an H1 paper...) and answers as arXiv does: Atom feeds
with ``opensearch`` totals, ``sortBy``/``sortOrder``/``start``/``max_results`` honoured,
an error feed (HTTP 400) for a malformed id, and PDFs under ``/pdf/<id>``.
"""

from __future__ import annotations

import copy
import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from importlib.resources import files
from typing import Any
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

import requests
from lxml import etree
from requests.adapters import HTTPAdapter
from urllib3 import HTTPResponse

from toolspecs.loaders.arxiv.testing.pdf import long_pages, make_pdf, paper_pages

ATOM_NS = "http://www.w3.org/2005/Atom"
_NS = {"a": ATOM_NS, "arxiv": "http://arxiv.org/schemas/atom"}
_ATOM_TYPE = "application/atom+xml; charset=utf-8"
_VALID_ID = re.compile(
    r"(?:\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
)
_FIELDS = ("ti", "au", "abs", "cat", "co", "jr", "id", "all")
_TERM = re.compile(r'(?:([a-z]+):)?("[^"]*"|[^\s()"]+)')
_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom"
      xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">
  <link href="http://arxiv.org/api/query?{query}" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: {query}</title>
  <id>http://arxiv.org/api/toolspecs-offline</id>
  <updated>2025-03-14T00:00:00-04:00</updated>
  <opensearch:totalResults>{total}</opensearch:totalResults>
  <opensearch:startIndex>{start}</opensearch:startIndex>
  <opensearch:itemsPerPage>{per_page}</opensearch:itemsPerPage>
</feed>"""
_ERROR = """<entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_{id}</id>
<title>Error</title><summary>incorrect id format for {id}</summary>
<updated>2025-03-14T00:00:00-04:00</updated><author><name>arXiv api core</name></author></entry>"""


@dataclass
class Paper:
    """One catalogue entry: its Atom ``<entry>`` and the text of each searchable field."""

    entry: etree._Element
    fields: dict[str, str]

    @classmethod
    def from_entry(cls, entry: etree._Element) -> Paper:
        """Read the fields that ``search_query`` prefixes (``ti:``, ``au:``...) name."""

        def text(path: str) -> str:
            return " ".join(" ".join(entry.xpath(path, namespaces=_NS)).split())

        fields = {
            "id": entry.findtext("a:id", "", _NS).split("/abs/")[-1],
            "ti": text("a:title/text()"),
            "au": text("a:author/a:name/text()"),
            "abs": text("a:summary/text()"),
            "cat": text("a:category/@term"),
            "co": text("arxiv:comment/text()"),
            "jr": text("arxiv:journal_ref/text()"),
            "published": entry.findtext("a:published", "", _NS),
            "updated": entry.findtext("a:updated", "", _NS),
        }
        return cls(entry, fields)

    @property
    def base_id(self) -> str:
        """The id without its version, e.g. ``1706.03762``."""
        return _base(self.fields["id"])

    def hits(self, field: str, term: str) -> int:
        """How often ``term`` (a plural also as its singular) occurs in ``field``."""
        if term.endswith("s") and len(term) > 3:
            term = term[:-1]
        names = _FIELDS[:-1] if field == "all" else (field,)
        return sum(self.fields.get(name, "").lower().count(term) for name in names)


class FakeArxiv(HTTPAdapter):
    """arXiv offline: a requests adapter serving a catalogue of papers and their PDFs.

    Args:
        feeds: More Atom feeds (as arXiv sends them) whose entries it should know too.
        pdfs: PDFs by arXiv id without version. Others get a one-page PDF of their
            abstract; ``1706.03762`` is 30 pages (see ``long_pages``) unless given here.

    Attributes:
        papers: The known papers by id without version.
        requests: Every request received, in order.
        fail: Failures to answer the next requests with: an HTTP status (``503``), or
            a status and headers (``(429, {"Retry-After": "120"})``).
        delay_seconds: The pause between requests this arXiv asks for: none (the real
            one asks for 3 s). ``ArxivClient`` paces itself by it unless told otherwise.
    """

    delay_seconds = 0.0

    def __init__(
        self, feeds: Iterable[str | bytes] = (), pdfs: Mapping[str, bytes] | None = None
    ) -> None:
        super().__init__()
        self.papers: dict[str, Paper] = {}
        catalogue = files("toolspecs.loaders.arxiv.testing") / "data" / "catalogue.xml"
        for feed in [catalogue.read_bytes(), *feeds]:
            data = feed.encode() if isinstance(feed, str) else feed
            for entry in etree.fromstring(data).iterfind("a:entry", _NS):
                paper = Paper.from_entry(entry)
                self.papers[paper.base_id] = paper
        self.pdfs = dict(pdfs or {})
        self.requests: list[requests.PreparedRequest] = []
        self.fail: list[int | tuple[int, Mapping[str, str]]] = []

    def transport(self) -> FakeArxiv:
        """The transport adapter to pass as ``transport=``: this fake itself."""
        return self

    def session(self) -> requests.Session:
        """A ``requests.Session`` whose every request this fake answers (to call it directly)."""
        session = requests.Session()
        session.mount("http://", self)
        session.mount("https://", self)
        return session

    def pdf(self, paper_id: str) -> bytes | None:
        """The PDF served for ``paper_id`` (with or without version), if the paper is known."""
        base = _base(paper_id)
        if base in self.pdfs:
            return self.pdfs[base]
        if base == "1706.03762":
            return make_pdf(long_pages())
        paper = self.papers.get(base)
        if paper is None:
            return None
        authors = [a.strip() for a in paper.entry.xpath("a:author/a:name/text()", namespaces=_NS)]
        return make_pdf(paper_pages(paper.fields["ti"], authors, paper.fields["abs"]))

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        """Answer one request (the requests adapter interface)."""
        self.requests.append(request)
        url = urlsplit(request.url or "")
        if self.fail:
            failure = self.fail.pop(0)
            status, headers = failure if isinstance(failure, tuple) else (failure, {})
            phrase = HTTPStatus(status).phrase.encode()
            return self._reply(request, status, phrase, "text/html", headers)
        if not (url.hostname or "").endswith("arxiv.org"):
            return self._reply(request, 404, b"FakeArxiv answers arxiv.org only.", "text/plain")
        if url.path == "/api/query":
            return self._query(request, parse_qs(url.query))
        if url.path.startswith("/pdf/"):
            pdf = self.pdf(url.path.removeprefix("/pdf/").removesuffix(".pdf"))
            if pdf is not None:
                return self._reply(request, 200, pdf, "application/pdf")
        return self._reply(request, 404, b"<h1>Not Found</h1>", "text/html")

    def _query(self, request: requests.PreparedRequest, params: dict[str, list[str]]) -> Any:
        arg = {key: values[0] for key, values in params.items()}
        query_text = "&".join(f"{k}={v}" for k, v in arg.items())
        ids = [i for i in arg.get("id_list", "").split(",") if i]
        bad = [i for i in ids if not _VALID_ID.fullmatch(i)]
        if bad:
            body = _feed(query_text, 1, 0, [etree.fromstring(_ERROR.format(id=escape(bad[0])))])
            return self._reply(request, 400, body, _ATOM_TYPE)
        papers = [self.papers[_base(i)] for i in ids if _base(i) in self.papers]
        if not ids:
            papers = list(self.papers.values()) if arg.get("search_query") else []
        scored = [(p, _score(arg.get("search_query", ""), p)) for p in papers]
        found = [(p, score) for p, score in scored if score is not None]
        order = arg.get("sortBy", "relevance")
        newest_first = arg.get("sortOrder", "descending") == "descending"
        if order in ("submittedDate", "lastUpdatedDate"):
            field = "published" if order == "submittedDate" else "updated"
            found.sort(key=lambda ps: ps[0].fields[field], reverse=newest_first)
        elif not ids:
            found.sort(key=lambda ps: ps[1] or 0, reverse=newest_first)
        start, count = int(arg.get("start", 0)), int(arg.get("max_results", 10))
        page = [copy.deepcopy(p.entry) for p, _ in found[start : start + count]]
        return self._reply(request, 200, _feed(query_text, len(found), start, page), _ATOM_TYPE)

    def _reply(
        self,
        request: requests.PreparedRequest,
        status: int,
        body: bytes,
        content_type: str,
        headers: Mapping[str, str] | None = None,
    ) -> requests.Response:
        raw = HTTPResponse(
            body=io.BytesIO(body),
            headers={
                "Content-Type": content_type,
                "Content-Length": str(len(body)),
                **(headers or {}),
            },
            status=status,
            reason=HTTPStatus(status).phrase,
            preload_content=False,
        )
        return self.build_response(request, raw)


def _base(paper_id: str) -> str:
    return re.sub(r"v\d+$", "", paper_id)


def _score(query: str, paper: Paper) -> int | None:
    """Hits of a ``search_query`` in ``paper``, or None when it does not match.

    Terms are joined by AND (the default), OR or ANDNOT, left to right; parentheses
    are ignored; ``ti:``, ``au:``, ``abs:``, ``cat:``, ``co:``, ``jr:`` and ``all:``
    choose the field.
    """
    matched: bool | None = None
    operator, total = "AND", 0
    for prefix, raw in _TERM.findall(query):
        if not prefix and raw in ("AND", "OR", "ANDNOT"):
            operator = raw
            continue
        field, term = prefix, raw.strip('"').lower()
        if prefix not in _FIELDS:
            field, term = "all", f"{prefix}:{term}" if prefix else term
        hits = paper.hits(field, term)
        total += hits
        if matched is None:
            matched = hits > 0
        elif operator == "OR":
            matched = matched or hits > 0
        elif operator == "ANDNOT":
            matched = matched and hits == 0
        else:
            matched = matched and hits > 0
        operator = "AND"
    if matched is None:  # no terms: every paper (an id_list lookup)
        return 0
    return total if matched else None


def _feed(query: str, total: int, start: int, entries: list[etree._Element]) -> bytes:
    head = _FEED.format(
        query=escape(query, {'"': "&quot;"}), total=total, start=start, per_page=len(entries)
    )
    root = etree.fromstring(head.encode())
    root.extend(entries)
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
