"""Budgets for text: token counts, and values shown back to the agent cut short.

An echo of what the agent sent must not become the flood it reports (100,000 characters
sent as a date): :func:`shown`, :func:`clip` and :func:`fill` cut with "…".
"""

from __future__ import annotations

import functools
import os
import string
from collections.abc import Mapping
from typing import Any

from llama_index.core.utils import get_tokenizer

ELLIPSIS = "…"
SHOWN_CHARS = 80


# Texts longer than this (in characters) are counted block by block: the tokenizer gives a
# Python list of ints, about 36 bytes a token, which for a whole 1 MB text is ten times it.
COUNT_BLOCK_CHARS = 2**16


def count_tokens(text: str, stop_above: int | None = None) -> int:
    """Tokens in ``text`` as llama-index counts them (tiktoken ``cl100k_base``).

    Long text is counted in blocks cut before a space; with ``stop_above``, counting
    stops once over it (the answer is then only known to be over).
    """
    encode = get_tokenizer()
    if len(text) <= COUNT_BLOCK_CHARS:
        return len(encode(text))
    total = start = 0
    while start < len(text):
        end = min(start + COUNT_BLOCK_CHARS, len(text))
        if end < len(text):
            space = text.rfind(" ", start + COUNT_BLOCK_CHARS // 2, end)
            end = space if space > start else end
        total += len(encode(text[start:end]))
        if stop_above is not None and total > stop_above:
            return total
        start = end
    return total


def encoding() -> Any:
    """The ``tiktoken.Encoding`` behind :func:`count_tokens` (``cl100k_base``).

    We rely on llama-index's tokenizer being ``functools.partial(encoding.encode, ...)``;
    with another global tokenizer, the bundled ``cl100k_base``.
    """
    found = getattr(getattr(get_tokenizer(), "func", None), "__self__", None)
    if found is not None and hasattr(found, "encode_to_numpy"):
        return found
    return _bundled_cl100k()


@functools.cache
def _bundled_cl100k() -> Any:
    import llama_index.core
    import tiktoken

    bundled = os.path.join(os.path.dirname(llama_index.core.__file__), "_static/tiktoken_cache")
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", bundled)
    return tiktoken.get_encoding("cl100k_base")


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """``repr(value)`` for guidance, cut to ``limit`` characters with "…" (or described)."""
    try:
        text = repr(value)
    except (ValueError, RecursionError) as exc:
        text = _unprintable(value, exc)
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 1)] + ELLIPSIS


def _unprintable(value: object, exc: Exception) -> str:
    if isinstance(value, int):
        # int.bit_length is cheap where str() is refused: about log10(2) digits per bit.
        return f"<a number of about {int(value.bit_length() * 0.30103) + 1} digits>"
    kind = type(value).__name__
    if isinstance(exc, RecursionError):
        return f"<a {kind} nested too deeply to show>"
    return f"<a {kind} holding a number too long to show>"


def clip(text: str, tokens: int) -> str:
    """``text`` cut to at most ``tokens`` tokens, ending with "…" when it was cut."""
    tokens = max(tokens, 1)
    # Quick accept without tokenizing a huge text: a token is at least one character.
    if len(text) <= tokens or count_tokens(text) <= tokens:
        return text
    encode = get_tokenizer()
    limit = min(len(text), tokens * 8)
    cut = text[:limit]
    while count_tokens(cut + ELLIPSIS) > tokens and cut:
        # Dense text (symbols, other scripts) has fewer characters per token.
        counted = len(encode(cut + ELLIPSIS))
        cut = cut[: max(0, min(len(cut) - 1, int(len(cut) * tokens / counted * 0.95)))]
    return cut.rstrip() + ELLIPSIS


class _Values(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return ""


class _Formatter(string.Formatter):
    def convert_field(self, value: Any, conversion: str | None) -> Any:
        # "{query!r}" echoes what the agent or the service sent: cut it short.
        if conversion == "r":
            return shown(value)
        return super().convert_field(value, conversion)


def fill(template: str, values: Mapping[str, Any]) -> str:
    """``template`` formatted with ``values``; unknown names are left empty, ``!r`` cut."""
    return _Formatter().vformat(template, (), _Values(values))
