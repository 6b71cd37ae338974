"""The Wolfram|Alpha tools' arguments as an agent writes them, read as Wolfram reads them."""

from __future__ import annotations

import re
from typing import Annotated

from annotated_types import MaxLen

from toolspecs.specs.wolfram_alpha import guidance

# Wolfram reads short keyword queries; a longer one is a mistake, not a question.
MAX_QUERY_CHARS = 1000
_E_NOTATION = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[eE]([+-]?\d+)(?![\w.])")
# Characters an agent may copy around an assumption value from our « » quotes.
_QUOTES = "«»'\"` "

# A pod title or an assumption value: short words Wolfram gave, never a long text.
Choice = Annotated[str, MaxLen(200)]


def normalize_query(query: str) -> str:
    """One line, and ``6e14`` written as Wolfram reads it: ``6*10^14``."""
    one_line = " ".join(query.split())
    return _E_NOTATION.sub(lambda m: f"{m.group(1)}*10^{_exponent(m.group(2))}", one_line)


def _exponent(text: str) -> str:
    # Never through int(), which refuses more than 4,300 digits (1e999...9).
    digits = text.lstrip("+-").lstrip("0")
    if not digits:
        return "0"
    return f"-{digits}" if text.startswith("-") else digits


def query_text(query: str) -> str:
    """The query as sent: normalized, without our « » quotes around it (or ``FixArguments``)."""
    text = normalize_query(query)
    if len(text) > 1 and text[0] == "«" and text[-1] == "»":  # copied from our quotes
        text = text[1:-1].strip()
    if not text:
        raise guidance.empty_query()
    if len(text) > MAX_QUERY_CHARS:
        raise guidance.long_query(text, MAX_QUERY_CHARS)
    return text


def choice(value: str | None) -> str | None:
    """A pod title or an assumption value, without the quotes an agent may copy with it."""
    chosen = value.strip().strip(_QUOTES) if value else ""
    return chosen or None
