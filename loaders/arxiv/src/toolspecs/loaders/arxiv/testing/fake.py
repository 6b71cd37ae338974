"""``FakeArxiv``: arXiv's query API and PDFs, answered offline at the requests transport.

A ``requests`` transport adapter: pass :meth:`FakeArxiv.transport` as ``transport=`` to
``ArxivToolSpec``, ``ArxivReader`` or ``ArxivClient``, or call it directly through
:meth:`FakeArxiv.session`.
It searches a bundled catalogue of real arXiv entries (``data/catalogue.xml``: the
Transformer, RAG, BERT, GPT-3, an H1 paper...) and answers as arXiv does: Atom feeds
with ``opensearch`` totals, ``sortBy``/``sortOrder``/``start``/``max_results`` honoured,
an error feed (HTTP 400) for a malformed id, and PDFs under ``/pdf/<id>``.

It also fails on demand, in the ways arXiv and the network fail: see ``FakeArxiv.fail``
and :data:`MODES`.
"""

from __future__ import annotations

import copy
import io
import re
import threading
from collections.abc import Callable, Iterable, Mapping
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

from toolspecs.loaders.arxiv.testing.pdf import (
    bomb_pdf,
    long_outline,
    long_pages,
    make_pdf,
    paper_pages,
)

ATOM_NS = "http://www.w3.org/2005/Atom"


def _wait(seconds: float) -> None:
    threading.Event().wait(seconds)  # a real wait: tests patch time.sleep


_NS = {"a": ATOM_NS, "arxiv": "http://arxiv.org/schemas/atom"}
_ATOM_TYPE = "application/atom+xml; charset=utf-8"
_VALID_ID = re.compile(
    r"(?:\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
)
_FIELDS = ("ti", "au", "abs", "cat", "co", "jr", "id", "all")
_TERM = re.compile(r'(?:([a-z]+):)?("[^"]*"|[^\s()"]+)')
# arXiv's date ranges: submittedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM], in GMT.
_SUBMITTED = re.compile(r"submittedDate:\[(\d{12}) TO (\d{12})\]")
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
_MAINTENANCE = b"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>arXiv is undergoing maintenance</title>
</head><body><h1>arXiv is undergoing scheduled maintenance</h1>
<p>We expect to be back shortly. Please try again in a few minutes.</p></body></html>
"""
MODES = {
    "ok": "the right answer (to let a request through before a failure meant for the next)",
    "html": "200 with an HTML maintenance page instead of a feed or a PDF",
    "empty": "200 with an empty body",
    "slow": "the right answer, trickling in one byte every ``trickle_seconds``",
    "damaged": "200 with a PDF header followed by noise (for a PDF request)",
    "huge": "200 with a 500 MB body (a PDF header, then zeros) made as it is read, "
    "without Content-Length",
    "bomb": "200 with a 16 KB PDF whose text takes pypdf an hour to read (``bomb_pdf``)",
}
"""The named failures ``FakeArxiv.fail`` and ``fail_every`` take, besides HTTP statuses."""
Failure = int | tuple[int, Mapping[str, str]] | str
"""An HTTP status, a status with headers (``(429, {"Retry-After": "30"})``), or a mode."""
HUGE_BYTES = 500 * 2**20
_ERROR = """<entry><id>http://arxiv.org/api/errors#{anchor}</id>
<title>Error</title><summary>{message}</summary>
<updated>2025-03-14T00:00:00-04:00</updated><author><name>arXiv api core</name></author></entry>"""
# The values arXiv's API takes for its ordering parameters; any other is an error feed.
_SORT_BY = ("relevance", "lastUpdatedDate", "submittedDate")
_SORT_ORDER = ("ascending", "descending")


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
        latency: Seconds each request waits before it is answered (its round trip, as
            a real arXiv's), with ``sleep``.

    Attributes:
        papers: The known papers by id without version.
        requests: Every request received, in order.
        fail: Failures to answer the next requests with, one each, in order: an HTTP
            status (``503``); a status and headers (``(429, {"Retry-After": "120"})``,
            ``(302, {"Location": "https://elsewhere.example/x.pdf"})``); or the name of
            a mode of :data:`MODES`: ``"html"``, ``"empty"``, ``"slow"``, ``"damaged"``,
            ``"huge"``, ``"bomb"``, or ``"ok"`` for no failure (``["ok", "huge"]``:
            the id feed answers, the PDF fails).
        fail_every: A failure (as in ``fail``) to answer every request with once
            ``fail`` is used up, or ``None``: e.g. ``"slow"`` for an arXiv that
            always trickles.
        trickle_seconds: The pause before each byte of a ``"slow"`` answer (really
            waited: ``threading.Event().wait``, not ``time.sleep``).
        bytes_sent: Body bytes the clients have read from this fake so far: how much
            of a ``"huge"`` answer was read before it was dropped.
        delay_seconds: The pause between requests this arXiv asks for: none (the real
            one asks for 3 s). ``ArxivClient`` paces itself by it unless told otherwise.
        sleep: How ``latency`` is waited: a real wait (``threading.Event().wait``, not
            ``time.sleep``, which tests patch); a test may replace it to record the waits.
    """

    delay_seconds = 0.0
    trickle_seconds = 0.05

    def __init__(
        self,
        feeds: Iterable[str | bytes] = (),
        pdfs: Mapping[str, bytes] | None = None,
        *,
        latency: float = 0.0,
    ) -> None:
        super().__init__()
        self.latency = latency
        self.sleep: Callable[[float], Any] = _wait
        self.papers: dict[str, Paper] = {}
        catalogue = files("toolspecs.loaders.arxiv.testing") / "data" / "catalogue.xml"
        for feed in [catalogue.read_bytes(), *feeds]:
            data = feed.encode() if isinstance(feed, str) else feed
            for entry in etree.fromstring(data).iterfind("a:entry", _NS):
                paper = Paper.from_entry(entry)
                self.papers[paper.base_id] = paper
        self.pdfs = dict(pdfs or {})
        self.requests: list[requests.PreparedRequest] = []
        self.fail: list[Failure] = []
        self.fail_every: Failure | None = None
        self.bytes_sent = 0
        self._count = threading.Lock()

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
        if base == "1706.03762":  # with bookmarks, as LaTeX's hyperref writes them
            return make_pdf(long_pages(), outline=long_outline())
        paper = self.papers.get(base)
        if paper is None:
            return None
        authors = [a.strip() for a in paper.entry.xpath("a:author/a:name/text()", namespaces=_NS)]
        return make_pdf(paper_pages(paper.fields["ti"], authors, paper.fields["abs"]))

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        """Answer one request (the requests adapter interface), after ``latency`` seconds."""
        if self.latency > 0:
            self.sleep(self.latency)
        self.requests.append(request)
        failure = self.fail.pop(0) if self.fail else self.fail_every
        if failure is not None:
            return self._fail(request, failure)
        return self._answer(request)

    def _answer(self, request: requests.PreparedRequest) -> Any:
        url = urlsplit(request.url or "")
        if not (url.hostname or "").endswith("arxiv.org"):
            return self._reply(request, 404, b"FakeArxiv answers arxiv.org only.", "text/plain")
        if url.path == "/api/query":
            return self._query(request, parse_qs(url.query))
        if url.path.startswith("/pdf/"):
            pdf = self.pdf(url.path.removeprefix("/pdf/").removesuffix(".pdf"))
            if pdf is not None:
                return self._reply(request, 200, pdf, "application/pdf")
        return self._reply(request, 404, b"<h1>Not Found</h1>", "text/html")

    def _fail(self, request: requests.PreparedRequest, failure: Failure) -> Any:
        if isinstance(failure, str):
            if failure not in MODES:
                raise ValueError(f"FakeArxiv knows the modes {sorted(MODES)}, not {failure!r}")
            if failure == "ok":
                return self._answer(request)
            if failure == "html":
                return self._reply(request, 200, _MAINTENANCE, "text/html; charset=utf-8")
            if failure == "empty":
                return self._reply(request, 200, b"", _ATOM_TYPE)
            if failure == "damaged":
                noise = b"%PDF-1.5\n" + bytes(range(256)) * 8
                return self._reply(request, 200, noise, "application/pdf")
            if failure == "huge":
                body = _Body(self, b"%PDF-1.7\n", size=HUGE_BYTES)
                return self._reply(request, 200, body, "application/pdf", length=False)
            if failure == "bomb":
                return self._reply(request, 200, bomb_pdf(), "application/pdf")
            answer = self._answer(request)  # "slow": the right answer, byte by byte
            content = answer.raw.read()
            self._sent(-len(content))  # read here, not by the client
            body = _Body(self, content, pause=self.trickle_seconds)
            kind = answer.headers.get("Content-Type", "text/plain")
            return self._reply(request, answer.status_code, body, kind)
        status, headers = failure if isinstance(failure, tuple) else (failure, {})
        phrase = HTTPStatus(status).phrase.encode()
        return self._reply(request, status, phrase, "text/html", headers)

    def _query(self, request: requests.PreparedRequest, params: dict[str, list[str]]) -> Any:
        arg = {key: values[0] for key, values in params.items()}
        query_text = "&".join(f"{k}={v}" for k, v in arg.items())
        ids = [i for i in arg.get("id_list", "").split(",") if i]
        problem = _parameter_problem(arg, ids)
        if problem is not None:
            anchor, message = (escape(part) for part in problem)
            entry = etree.fromstring(_ERROR.format(anchor=anchor, message=message))
            return self._reply(request, 400, _feed(query_text, 1, 0, [entry]), _ATOM_TYPE)
        papers = [self.papers[_base(i)] for i in ids if _base(i) in self.papers]
        if not ids:
            papers = list(self.papers.values()) if arg.get("search_query") else []
        search_query = arg.get("search_query", "")
        for start_at, end_at in _SUBMITTED.findall(search_query):
            papers = [p for p in papers if start_at <= _minute(p.fields["published"]) <= end_at]
        search_query = _SUBMITTED.sub(" ", search_query)
        scored = [(p, _score(search_query, p)) for p in papers]
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
        body: bytes | _Body,
        content_type: str,
        headers: Mapping[str, str] | None = None,
        *,
        length: bool = True,
    ) -> requests.Response:
        stream = body if isinstance(body, _Body) else _Body(self, body)
        declared = {"Content-Length": str(stream.size)} if length else {}
        raw = HTTPResponse(
            body=stream,
            headers={"Content-Type": content_type, **declared, **(headers or {})},
            status=status,
            reason=HTTPStatus(status).phrase,
            preload_content=False,
        )
        return self.build_response(request, raw)

    def _sent(self, count: int) -> None:
        with self._count:
            self.bytes_sent += count


class _Body(io.RawIOBase):
    """An answer's body as a socket gives it: counted, and made as it is read.

    Args:
        fake: The fake to count the bytes read in (``bytes_sent``).
        head: The first bytes.
        size: The whole size: ``head`` then zeros up to it (default: ``head`` alone).
        pause: Seconds to wait before each byte (a trickling server); 0 for none.
    """

    def __init__(self, fake: FakeArxiv, head: bytes, size: int | None = None, pause: float = 0.0):
        super().__init__()
        self.fake, self.head, self.pause = fake, head, pause
        self.size = len(head) if size is None else size
        self.position = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        """Up to ``len(buffer)`` bytes, one if trickling: never more than one read gives."""
        left = self.size - self.position
        count = min(len(buffer), left, 1 if self.pause else left)
        if count <= 0:
            return 0
        if self.pause:
            threading.Event().wait(self.pause)  # real time: tests patch time.sleep
        start = self.position
        part = self.head[start : start + count]
        part += bytes(count - len(part))
        buffer[:count] = part
        self.position += count
        self.fake._sent(count)
        return count

    def read1(self, size: int = -1) -> bytes:
        """One read: what ``readinto`` gives (urllib3 reads streamed bodies this way)."""
        return self.read(size if size is not None and size >= 0 else 64 * 1024)


def _parameter_problem(arg: Mapping[str, str], ids: list[str]) -> tuple[str, str] | None:
    """What arXiv's API refuses in a query's parameters, as ``(anchor, message)``, or None.

    As arXiv checks them: each id's format, ``start`` and ``max_results`` whole numbers
    (not negative), ``sortBy`` and ``sortOrder`` among their values.
    """
    bad = [i for i in ids if not _VALID_ID.fullmatch(i)]
    if bad:
        return f"incorrect_id_format_for_{bad[0]}", f"incorrect id format for {bad[0]}"
    for name in ("start", "max_results"):
        value = arg.get(name)
        if value is not None and not value.strip().isdigit():
            return f"{name}_must_be_an_integer", f"{name} must be an integer"
    for name, allowed in (("sortBy", _SORT_BY), ("sortOrder", _SORT_ORDER)):
        value = arg.get(name)
        if value is not None and value not in allowed:
            listed = ", ".join(allowed)
            return f"{name}_must_be_in", f"{name} must be in: {listed}"
    return None


def _minute(stamp: str) -> str:
    """``200506121757`` for an Atom time ``2017-06-12T17:57:34Z`` (arXiv's are in GMT)."""
    return re.sub(r"\D", "", stamp)[:12]


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


# Characters XML 1.0 cannot hold: arXiv echoes a query without them.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _feed(query: str, total: int, start: int, entries: list[etree._Element]) -> bytes:
    query = _NOT_XML.sub("", query)
    head = _FEED.format(
        query=escape(query, {'"': "&quot;"}), total=total, start=start, per_page=len(entries)
    )
    root = etree.fromstring(head.encode())
    root.extend(entries)
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
