r"""BibTeX entries built from arXiv's metadata, as arXiv's own "Export BibTeX" writes them.

LaTeX's special characters are escaped so an entry compiles whatever a title holds.
Braces are written as ``\textbraceleft{}``/``\textbraceright{}``, never ``\{``: BibTeX
counts a brace even after a backslash, so ``a} @misc{x`` in a title would close the
field and start an entry of its own; ``@`` is written ``{\char64}`` for parsers that
start an entry at any ``@``. ``doi`` and ``url`` are verbatim (biblatex reads them so):
a DOI that holds a brace, a backslash, an ``@`` or a space is left out.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import arxiv

__all__ = ["bibtex_entries", "bibtex_entry", "citation_key", "escape_latex"]

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


def _bare_id(result: arxiv.Result) -> str:
    return re.sub(r"v\d+$", "", str(result.entry_id).split("/abs/")[-1])


def _doi(result: arxiv.Result) -> str:
    doi = (result.doi or "").strip()
    return doi if _SAFE_DOI.match(doi) else ""


def bibtex_entry(result: arxiv.Result, key: str | None = None) -> str:
    """One ``@misc`` entry for ``result``, keyed ``key`` (default :func:`citation_key`)."""
    paper_id = _bare_id(result)
    fields = [
        ("title", "{" + escape_latex(result.title) + "}"),
        ("author", " and ".join(_author(author.name) for author in result.authors)),
        ("year", f"{result.published:%Y}"),
        ("eprint", paper_id),
        ("archivePrefix", "arXiv"),
        ("primaryClass", escape_latex(result.primary_category or "")),
        ("doi", _doi(result)),
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
