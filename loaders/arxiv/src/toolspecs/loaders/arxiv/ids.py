"""arXiv identifiers as people and agents write them: bare, prefixed, versioned, or as URLs."""

from __future__ import annotations

import functools
import re

_NEW = r"\d{4}\.\d{4,5}(?:v\d+)?"
_OLD = r"[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?"
_ID = rf"(?:{_NEW}|{_OLD})"


# Compiled on the first query, not at import: the two cost about 1.5 ms to compile
# (case-insensitive classes), more than the rest of the module.
@functools.cache
def _url() -> re.Pattern[str]:
    return re.compile(rf"arxiv\.org/(?:abs|pdf|html)/({_ID})(?:\.pdf)?", re.IGNORECASE)


@functools.cache
def _bare() -> re.Pattern[str]:
    return re.compile(rf"^(?:arxiv:\s*)?({_ID})$", re.IGNORECASE)


def parse_ids(text: str) -> list[str]:
    """The arXiv ids a query consists of (in order, once each), or ``[]`` when it is a search.

    ``"1706.03762"``, ``"arXiv:1706.03762v7"``, ``"https://arxiv.org/abs/1706.03762v7"``,
    ``"arxiv.org/pdf/1706.03762.pdf"`` and ``"hep-th/9711200"`` are ids, alone or in a
    list; any other word makes the text a search.
    """
    # "arXiv: 1706.03762" is one id: join the prefix to it before splitting on spaces.
    joined = re.sub(r"(?i)\barxiv:\s+", "arXiv:", text.strip())
    tokens = [t for t in re.split(r"[\s,;]+", joined) if t]
    found: list[str] = []
    for token in tokens:
        match = _url().search(token) or _bare().match(token.strip("()[]<>\"'."))
        if match is None:
            return []
        if match.group(1) not in found:
            found.append(match.group(1))
    return found


def parse_id(text: str) -> str | None:
    """The single arXiv id in ``text`` (bare, prefixed or a URL), or ``None``."""
    ids = parse_ids(text)
    return ids[0] if len(ids) == 1 else None
