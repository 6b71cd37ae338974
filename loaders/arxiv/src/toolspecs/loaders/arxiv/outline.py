"""A paper's headings and the text under each: from its PDF's bookmarks, else its lines.

Without bookmarks (LaTeX's hyperref writes them for most papers), headings are lines such
as ``3.2 Attention`` (numbers that go up, no full stop) and the usual unnumbered ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolspecs.loaders.pdf.pdftext import PdfText

__all__ = ["Heading", "headings", "section_text"]

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
