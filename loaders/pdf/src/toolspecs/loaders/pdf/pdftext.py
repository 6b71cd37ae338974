"""The text of a PDF, read in a child process bounded in time, memory, pages and characters.

A 16 KB PDF can make pypdf work for an hour and fill gigabytes (one compressed text
stream shown by 1,000 pages), and a thread cannot be stopped from outside. So
:func:`read_pages` runs pypdf in a child Python (this file alone) with address-space and
CPU-time limits, stopped at a wall-clock deadline. The child sends each page as soon as
it is read, so a PDF stopped halfway still gives the pages before it. Starting the child
takes about 0.3 s.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

MAX_PAGES = 500
"""Pages read at most (arXiv papers have 10-100; long theses a few hundred)."""
MAX_CHARS = 500_000
"""Characters read at most, all pages together (a 30-page paper has about 120,000)."""
MAX_PAGE_CHARS = 30_000
"""Characters kept of one page (a dense page has about 6,000)."""
MAX_SECONDS = 20.0
"""Seconds the reading may take, unless the caller has less."""
MAX_MEMORY = 1024 * 2**20
"""Bytes of address space the child may use (where the platform can limit it)."""
MAX_OUTLINE = 300
"""Bookmarks read at most (a thesis has about 200 headings)."""
MAX_TITLE_CHARS = 200
"""Characters kept of one bookmark's title."""

# The child runs this file alone: importing the package would import llama-index (2 s).
_CHILD = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"


@dataclass(frozen=True)
class PdfText:
    """The text read from a PDF.

    Attributes:
        pages: The text of each page read, in order.
        page_count: How many pages the PDF has (``None`` when it could not be opened).
        stopped: Why the reading stopped before the end, or ``""``.
        error: Why the PDF could not be read at all, or ``""``.
        cut_pages: The pages whose text was cut at the limit of one page.
        outline: The PDF's bookmarks: (level from 1, title, page from 1).
    """

    pages: list[str]
    page_count: int | None
    stopped: str = ""
    error: str = ""
    cut_pages: list[int] = field(default_factory=list)
    outline: list[tuple[int, str, int]] = field(default_factory=list)


def read_pages(
    pdf: bytes,
    *,
    seconds: float = MAX_SECONDS,
    max_pages: int = MAX_PAGES,
    max_chars: int = MAX_CHARS,
    max_page_chars: int = MAX_PAGE_CHARS,
    memory: int = MAX_MEMORY,
) -> PdfText:
    """The text of ``pdf``'s pages, read within the limits (see the module's constants)."""
    limits = {
        "max_pages": max_pages,
        "max_chars": max_chars,
        "max_page_chars": max_page_chars,
        "memory": memory,
        "cpu": max(1, int(seconds) + 1),
        "outline": MAX_OUTLINE,
        "title": MAX_TITLE_CHARS,
    }
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", _CHILD, __file__, json.dumps(limits)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError as exc:  # no interpreter to start (an embedded Python), no processes left
        return PdfText([], None, error=f"no process could be started to read it ({exc})")
    timed_out = False
    try:
        out, _ = process.communicate(pdf, timeout=max(seconds, 0.1))
    except subprocess.TimeoutExpired:
        timed_out = True
        process.kill()
        out, _ = process.communicate()  # the pages it sent before
    return _collect(out, timed_out, seconds, process.returncode)


def _collect(out: bytes, timed_out: bool, seconds: float, returncode: int | None) -> PdfText:
    pages: list[str] = []
    page_count: int | None = None
    cut_pages: list[int] = []
    outline: list[tuple[int, str, int]] = []
    failed: list[str] = []
    stopped = error = ""
    for line in out.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            break  # a line cut off when the child was stopped
        if "page" in message:
            pages.append(str(message["page"]))
            if "failed" in message:
                failed.append(str(message["failed"]))
        elif "count" in message:
            page_count = int(message["count"])
        elif "outline" in message:
            outline = [(int(lv), str(title), int(page)) for lv, title, page in message["outline"]]
        elif "cut" in message:
            cut_pages.append(int(message["cut"]))
        elif "stopped" in message:
            stopped = str(message["stopped"])
        elif "error" in message:
            error = f"the PDF is damaged ({message['error']})"
    if timed_out:
        stopped = f"reading it took over {seconds:.1f} s"
    elif not (error or stopped) and (page_count is None or len(pages) < page_count):
        # Stopped by its limits (CPU time, memory) without a word.
        stopped = f"reading it needed too much memory or time (exit status {returncode})"
    if failed and not any(p.strip() for p in pages):
        error = error or f"the PDF is damaged ({failed[0]})"  # every page failed
    if page_count is None and not error:
        error, stopped = stopped, ""
    return PdfText(pages, page_count, stopped, error, cut_pages, outline)


def _child(limits: dict[str, int]) -> None:
    # Read the PDF on stdin; write one JSON line per page, then how it ended.
    try:
        import resource

        soft = limits["memory"]
        resource.setrlimit(resource.RLIMIT_AS, (soft, soft))
        resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu"], limits["cpu"] + 1))
    except (ImportError, ValueError, OSError):  # no such limits here (Windows)
        pass
    out = sys.stdout

    def send(**message: object) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    import io
    import logging

    logging.disable(logging.WARNING)  # pypdf warns about every oddity of a file
    data = sys.stdin.buffer.read()
    try:
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(data))
        send(count=len(reader.pages))
        send(outline=_bookmarks(reader, limits))
        total = 0
        for number, page in enumerate(reader.pages, start=1):
            if number > limits["max_pages"]:
                send(stopped=f"only the first {limits['max_pages']} pages are read")
                return
            try:
                text = page.extract_text() or ""
            except MemoryError:
                raise
            except Exception as exc:  # one damaged page: the others may still be read
                send(page="", failed=type(exc).__name__)
                continue
            if len(text) > limits["max_page_chars"]:
                text = text[: limits["max_page_chars"]]
                send(cut=number)
            room = limits["max_chars"] - total
            if len(text) > room:
                send(page=text[:room])
                send(stopped=f"the text is cut at {limits['max_chars']:,} characters")
                return
            total += len(text)
            send(page=text)
    except MemoryError:
        send(stopped="reading it needed too much memory")
    except Exception as exc:
        # A damaged file makes pypdf raise nearly anything: PdfReadError, but also
        # TypeError, AttributeError, LimitReachedError... It is the file's fault.
        send(error=type(exc).__name__)


def _bookmarks(reader: Any, limits: dict[str, int]) -> list[list[object]]:
    found: list[list[object]] = []
    try:
        # pypdf's outline: Destinations, each followed by a list of its children.
        stack: list[tuple[int, list[Any]]] = [(1, list(reader.outline))]
        while stack and len(found) < limits["outline"]:
            level, items = stack.pop()
            while items and len(found) < limits["outline"]:
                item = items.pop(0)
                if isinstance(item, list):
                    stack.append((level, items))
                    level, items = level + 1, item
                    continue
                page = reader.get_destination_page_number(item)
                title = " ".join(str(item.title or "").split())[: limits["title"]]
                if page is not None and page >= 0 and title:
                    found.append([level, title, page + 1])
    except Exception:  # a damaged outline: the text may still be read, headings found in it
        return found
    return found


if __name__ == "__main__":
    _child(json.loads(sys.argv[2]))
