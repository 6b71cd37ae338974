"""Budgets for text: token counts, and values shown back to the agent cut short.

Guidance echoes what the agent sent so that it can see its mistake; an echo must not
become the flood it reports (100,000 characters sent as a date). :func:`shown` cuts
one value, :func:`clip` cuts a whole text to a token budget, both marked with "…";
:func:`fill` fills a message template whose ``!r`` echoes are cut by :func:`shown`.
"""

from __future__ import annotations

import functools
import os
import string
from collections.abc import Mapping
from typing import Any

from llama_index.core.utils import get_tokenizer

ELLIPSIS = "…"
# The longest value guidance repeats back, in characters.
SHOWN_CHARS = 80


# Texts longer than this (in characters) are counted block by block: the tokenizer gives a
# Python list of ints, about 36 bytes a token, which for a whole 1 MB text is ten times it.
COUNT_BLOCK_CHARS = 2**16


def count_tokens(text: str, stop_above: int | None = None) -> int:
    """Tokens in ``text`` as llama-index counts them (tiktoken ``cl100k_base``).

    A long text is counted in blocks of about :data:`COUNT_BLOCK_CHARS` characters, cut
    before a space where there is one (a block edge in a run without spaces may count a
    token more than the whole text would), so no more than one block's tokens are held.

    Args:
        text: Any text.
        stop_above: Stop counting once the count is over this: the answer is then only
            known to be over it (a budget check needs no more).
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

    llama-index's tokenizer is ``functools.partial(encoding.encode, ...)`` (we rely on that
    shape); when a user set another global tokenizer, this is still ``cl100k_base``, read
    from the files llama-index bundles.
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
    """``repr(value)`` for guidance, cut to ``limit`` characters with "…".

    Args:
        value: What the agent sent.
        limit: The most characters to show.

    Returns:
        The repr, or its start and "…" when it is longer than ``limit``; for a value
        Python cannot repr (an int past its digit limit, lists nested thousands deep),
        a short description of it.
    """
    try:
        text = repr(value)
    except (ValueError, RecursionError) as exc:
        text = _unprintable(value, exc)
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 1)] + ELLIPSIS


def _unprintable(value: object, exc: Exception) -> str:
    """What ``value`` is, when its repr failed with ``exc``."""
    if isinstance(value, int):
        # int.bit_length is cheap where str() is refused: about log10(2) digits per bit.
        return f"<a number of about {int(value.bit_length() * 0.30103) + 1} digits>"
    kind = type(value).__name__
    if isinstance(exc, RecursionError):
        return f"<a {kind} nested too deeply to show>"
    return f"<a {kind} holding a number too long to show>"


def clip(text: str, tokens: int) -> str:
    """``text`` cut to at most ``tokens`` tokens, ending with "…" when it was cut.

    Args:
        text: Any text.
        tokens: The budget (at least 1).

    Returns:
        The text, or its start and "…".
    """
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
    """``template`` formatted with ``values``; unknown names are left empty, ``!r`` cut.

    Args:
        template: A ``str.format`` template, e.g. ``"No papers match {query!r}."``.
        values: The names it may use.

    Returns:
        The text; each ``{name!r}`` is ``shown(value)``.
    """
    return _Formatter().vformat(template, (), _Values(values))
