"""The visible text of an HTML mail: one line per block, links kept, hidden text counted.

Converted by libxml2 (lxml), linear where the standard library's ``HTMLParser`` is
quadratic on some inputs (``<a<a<a…``: minutes for a few hundred KB). Text that HTML hides
(``display:none``, ``visibility:hidden``, ``font-size:0``, ``opacity:0``,
``mso-hide:all``, ``hidden``) is left out and counted: it is where mails hide
instructions meant for agents. ``aria-hidden`` text is kept: people see it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

MAX_HTML_CHARS = 2_000_000
"""Characters of one HTML part converted to text."""

_BLOCKS = {
    "p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol",
    "blockquote", "pre", "hr", "section", "article", "header", "footer",
}  # fmt: skip
_LINES = {"br": "\n", "tr": "\n", "li": "\n- ", "td": " ", "th": " "}  # at the start tag
_NOT_TEXT = {"script", "style", "head", "title", "template"}
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_ZERO = r"(?:0+(?:\.0*)?|\.0+)(?:[a-z]+|%)?\s*(?:!\s*important\s*)?(?:;|$)"


# Compiled on the first styled element, not at import: it costs about 1 ms to compile.
@functools.cache
def _hiding_style() -> re.Pattern[str]:
    return re.compile(
        r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)"
        rf"|mso-hide\s*:\s*all|font-size\s*:\s*{_ZERO}|opacity\s*:\s*{_ZERO})",
        re.I,
    )


_CHUNK = 256 * 1024
_SPACE_RUNS = re.compile("  +")


def _one_space(text: str) -> str:
    r"""As ``re.sub(r"[ \t\u00a0]+", " ", text)``, 20 times quicker on mail."""
    if "\t" in text:
        text = text.replace("\t", " ")
    if "\u00a0" in text:
        text = text.replace("\u00a0", " ")
    return _SPACE_RUNS.sub(" ", text) if "  " in text else text


def hides_text(attributes: dict[str, str]) -> bool:
    """Whether an HTML element's attributes hide its text from a person reading the mail."""
    if "hidden" in attributes:
        return True
    style = attributes.get("style", "")
    return bool(style) and _hiding_style().search(_CSS_COMMENT.sub("", style)) is not None


class _TextFromHtml:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.hidden_chars = 0
        # One entry per open element: None, or what kind of hiding it does.
        self.open: list[str | None] = []
        self.not_text = 0
        self.hidden = 0
        self.link: str | None = None

    def _add(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)

    def start(self, tag: str, attrib: Any) -> None:
        attributes = {str(k).lower(): str(v) for k, v in attrib.items()}
        kind = "not_text" if tag in _NOT_TEXT else "hidden" if hides_text(attributes) else None
        self.open.append(kind)
        if kind == "not_text":
            self.not_text += 1
        elif kind == "hidden":
            self.hidden += 1
        if self.not_text or self.hidden:
            return
        if tag in _BLOCKS:
            self._add("\n")
        self._add(_LINES.get(tag, ""))
        if tag == "a":
            self.link = attributes.get("href")
        if tag == "img" and attributes.get("alt"):
            self._add(f"[image: {attributes['alt']}]")

    def end(self, tag: str) -> None:
        kind = self.open.pop() if self.open else None
        if kind == "not_text":
            self.not_text -= 1
        elif kind == "hidden":
            self.hidden -= 1
        if self.not_text or self.hidden or kind:
            return
        if tag in _BLOCKS:
            self._add("\n")
        if tag == "a" and self.link:
            if (
                self.link.startswith(("http://", "https://"))
                and self.link not in (self.parts or [""])[-1]
            ):
                self._add(f" ({self.link})")
            self.link = None

    def data(self, data: str) -> None:
        if self.not_text:
            return
        if self.hidden:
            self.hidden_chars += len(data.strip())
        else:
            self._add(data)

    def close(self) -> None:
        return None


@dataclass
class HtmlText:
    """An HTML document as text, with what was left out of it."""

    text: str
    hidden_chars: int = 0
    cut_chars: int = 0


def convert_html(markup: str, limit: int) -> HtmlText:
    """The visible text of ``markup`` (``MAX_HTML_CHARS`` at most), to about ``limit`` chars."""
    from lxml import etree  # here: about 8 ms of CPU at import, for HTML mail only

    # lxml refuses strings with lone surrogates, which a lying charset can leave behind.
    markup = markup.encode("utf-8", "replace").decode("utf-8")
    target = _TextFromHtml()
    parser = etree.HTMLParser(target=target, no_network=True, recover=True)
    read = 0
    try:
        while read < min(len(markup), MAX_HTML_CHARS) and target.size <= limit:
            parser.feed(markup[read : read + _CHUNK])
            read += _CHUNK
        parser.close()
    except etree.LxmlError:  # e.g. "Document is empty": what was read is the text
        pass
    return HtmlText(tidy("".join(target.parts)), target.hidden_chars, max(len(markup) - read, 0))


def html_to_text(markup: str) -> str:
    """Readable text of an HTML document: one line per block; no tags, scripts or hidden text."""
    return convert_html(markup, limit=MAX_HTML_CHARS).text


def tidy(text: str) -> str:
    """Collapse the runs of spaces and blank lines that HTML and MIME leave behind."""
    lines = [line.strip() for line in _one_space(text).splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()
