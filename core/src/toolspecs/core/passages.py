"""A long text cut into passages of about so many tokens, held as offsets into the text."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np

from toolspecs.core import bounds


class Passages(Sequence[str]):
    """The passages of a stored result, as offsets into the texts it holds (each held once)."""

    def __init__(self, texts: list[str], doc: Any, start: Any, end: Any) -> None:
        self.texts = texts
        self._doc, self._start, self._end = doc, start, end

    def __len__(self) -> int:
        return len(self._doc)

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        text = self.texts[int(self._doc[i])]
        return text[int(self._start[i]) : int(self._end[i])]

    def __iter__(self) -> Iterator[str]:
        texts = self.texts
        for doc, start, end in zip(
            self._doc.tolist(), self._start.tolist(), self._end.tolist(), strict=True
        ):
            yield texts[doc][start:end]

    def nbytes(self) -> int:
        """The memory of the passages' offsets (the texts are counted apart)."""
        return sum(int(a.nbytes) for a in (self._doc, self._start, self._end))


# tiktoken's BPE is superlinear in the length of one pre-token (a run of letters without a
# space: base64, Chinese, "xxxx…"), so the text is encoded in blocks of at most this many
# characters, cut at whitespace where there is some.
_BLOCK_CHARS = 8192
_SPACE_BYTES = frozenset(b" \t\n\r\f\v")


# Per token id: does it start with whitespace (a word boundary), a character (not a UTF-8
# continuation byte), and how many characters start in it. Per encoding: it may change.
@functools.cache
def _tables_of(encoding: Any) -> tuple[Any, Any, Any]:
    size = encoding.max_token_value + 1
    space = np.zeros(size, dtype=bool)
    starts_char = np.ones(size, dtype=bool)
    chars = np.zeros(size, dtype=np.int64)
    for token in range(size):
        try:
            piece = encoding.decode_single_token_bytes(token)
        except KeyError:  # ids no token has
            continue
        if piece:
            space[token] = piece[0] in _SPACE_BYTES
            starts_char[token] = not 0x80 <= piece[0] < 0xC0
            chars[token] = sum(not 0x80 <= byte < 0xC0 for byte in piece)
    return space, starts_char, chars


def _blocks(text: str) -> Iterator[Any]:
    encoding = bounds.encoding()
    start = 0
    while start < len(text):
        end = min(start + _BLOCK_CHARS, len(text))
        if end < len(text):
            space = max(text.rfind(" ", start, end), text.rfind("\n", start, end))
            if space > start + _BLOCK_CHARS // 2:
                end = space
        yield encoding.encode_to_numpy(text[start:end], allowed_special="all")
        start = end


def cut(text: str, size: int, overlap: int) -> tuple[list[int], list[int], int]:
    """``text`` cut into passages of about ``size`` tokens overlapping by about ``overlap``.

    Passages end between words where they can, else at a character boundary; returns
    their starts, ends and the text's token count. Only the tokens from the current
    passage on are held, never the whole text's.
    """
    space, starts_char, chars = _tables_of(bounds.encoding())
    blocks = _blocks(text)
    tokens = np.zeros(0, dtype=np.uint32)  # the text's tokens from ``base`` on
    base = 0
    done = False

    def have(upto: int) -> bool:
        nonlocal tokens, done
        while base + len(tokens) < upto and not done:
            block = next(blocks, None)
            if block is None:
                done = True
            else:
                tokens = np.concatenate((tokens, block))
        return base + len(tokens) >= upto

    def boundary(at: int, lowest: int) -> int:
        window = tokens[lowest + 1 - base : at + 1 - base]
        for table in (space, starts_char):
            good = np.flatnonzero(table[window])
            if len(good):
                return lowest + 1 + int(good[-1])
        return at

    # The character offset of token ``at``: the characters starting in the tokens before it.
    cursor = [0, 0]  # a token, its character offset

    def offset(at: int) -> int:
        token, char = cursor
        if at >= token:
            char += int(chars[tokens[token - base : at - base]].sum())
        else:
            char -= int(chars[tokens[at - base : token - base]].sum())
        cursor[:] = [at, char]
        return char

    starts: list[int] = []
    ends: list[int] = []
    start = 0
    while have(start + 1):
        if have(start + size + 1):
            end = boundary(start + size, start + size // 2)
        else:
            end = base + len(tokens)  # the rest of the text
        first, last = offset(start), offset(end)
        piece = text[first:last]
        kept = piece.lstrip()
        if kept:
            starts.append(first + len(piece) - len(kept))
            ends.append(last - (len(kept) - len(kept.rstrip())))
        if end >= base + len(tokens) and not have(end + 1):
            break
        start = max(boundary(end - overlap, start), start + 1) if overlap else end
        tokens, base = tokens[start - base :], start  # a view: copied on the next block
    return starts, ends, base + len(tokens)


def utf8_size(text: str, chunk: int = 2**16) -> int:
    """The UTF-8 size of ``text``, without a UTF-8 copy of all of it at once."""
    if text.isascii():
        return len(text)
    return sum(len(text[i : i + chunk].encode("utf-8")) for i in range(0, len(text), chunk))
