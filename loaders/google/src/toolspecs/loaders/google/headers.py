"""Header values of a parsed mail, decoded when read, bounded for any input.

RFC 2047 encoded words and 8-bit UTF-8 (RFC 6532) decoded, folded lines joined, at most
``MAX_HEADER_CHARS`` characters of a value read; addresses parsed without the standard
library's recursion into nested comments.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from email.header import decode_header, make_header
from email.message import Message
from email.utils import getaddresses

MAX_HEADER_CHARS = 16_000
"""Characters of one header value parsed."""
_MAX_PARENS = 64


def address_pairs(value: str) -> list[tuple[str, str]]:
    """``(name, email)`` pairs of an address header, bounded."""
    value = value[:MAX_HEADER_CHARS]
    if value.count("(") > _MAX_PARENS:
        value = value.replace("(", " ").replace(")", " ")
    return getaddresses([value])


class Headers(Mapping[str, str]):
    """Header values by lower-case name, decoded on first read (a reader shows five of dozens)."""

    def __init__(self, raw: dict[str, str]) -> None:
        self._raw = raw
        self._decoded: dict[str, str] = {}

    def __getitem__(self, key: str) -> str:
        value = self._decoded.get(key)
        if value is None:
            value = self._decoded[key] = header_text(key, self._raw[key])
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._raw

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __repr__(self) -> str:
        return f"Headers({dict(self)!r})"


# Headers whose values are addresses: parsed as such (names quoted where needed).
ADDRESS_HEADERS = frozenset(
    {"from", "to", "cc", "bcc", "reply-to", "sender", "resent-from", "resent-to", "resent-cc"}
    | {"resent-bcc", "resent-sender"}
)


def header_text(name: str, raw: str) -> str:
    """A raw header value as text: RFC 2047 words and 8-bit UTF-8 decoded, on one line."""
    # 8-bit bytes come from the parser as surrogate escapes: they are UTF-8 (RFC 6532).
    value = _utf8(raw[:MAX_HEADER_CHARS])
    value = "".join(value.splitlines())
    if name in ADDRESS_HEADERS and value.count("(") <= _MAX_PARENS:
        simple = simple_addresses(value)
        if simple is not None:
            return simple
        # email.policy's default policy (its header registry and address parser, about
        # 2 ms) is imported here, for the addresses that need it, not with the module.
        from email.policy import default

        try:
            return " ".join(str(default.header_factory(name, value)).split())
        except (ValueError, LookupError, IndexError, TypeError, OverflowError, RecursionError):
            pass  # a malformed encoded word or address: the words as they are
    return decode_words(value)


_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_DOT_ATOM = rf"{_ATOM}(?:\.{_ATOM})*"


# Compiled on the first address header, not at import (about 0.4 ms).
@functools.cache
def _mailbox() -> re.Pattern[str]:
    return re.compile(
        rf"[ \t]*(?:(?P<name>(?:{_ATOM} )*{_ATOM})[ \t]*<(?P<addr>{_DOT_ATOM}@{_DOT_ATOM})>"
        rf"|(?P<bare>{_DOT_ATOM}@{_DOT_ATOM}))[ \t]*(?:,|$)"
    )


def simple_addresses(value: str) -> str | None:
    """A plain list of addresses as the default policy writes it, or ``None`` (then the parser)."""
    if "=?" in value or not value.strip():
        return None
    found = []
    position = 0
    while position < len(value):
        match = _mailbox().match(value, position)
        if match is None or match.end() == position:
            return None
        found.append(match["bare"] or f"{match['name']} <{match['addr']}>")
        position = match.end()
    return ", ".join(found) if value.rstrip()[-1:] != "," else None


def decode_words(value: str) -> str:
    """A header value with RFC 2047 encoded words (``=?UTF-8?B?...?=``) decoded."""
    if "=?" not in value:
        return " ".join(value.split())
    try:
        return " ".join(str(make_header(decode_header(value))).split())
    except (LookupError, UnicodeDecodeError, ValueError):
        return " ".join(value.split())


def part_filename(part: Message) -> str:
    """A part's file name, decoded, on one line; ``""`` if it has none."""
    try:
        name = part.get_filename()
    except (ValueError, LookupError, IndexError, TypeError):
        return "(unreadable name)"
    if not name:
        return ""
    # RFC 2231 names are decoded by the parser; RFC 2047 words in a name (not standard,
    # but common) are decoded here. Either may hold line breaks: the reader shows one line.
    return decode_words(_utf8(str(name)[:MAX_HEADER_CHARS]))


def _utf8(value: str) -> str:
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
