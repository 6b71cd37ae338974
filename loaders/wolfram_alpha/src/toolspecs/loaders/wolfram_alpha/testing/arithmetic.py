"""Exact arithmetic for the offline Wolfram|Alpha: ``(7 * 12 ^ 10) / 321`` as Wolfram writes it."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from decimal import Decimal, localcontext
from fractions import Fraction

_BINARY: dict[type[ast.operator], Callable[[Fraction, Fraction], Fraction]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
MAX_EXPONENT = 1000
# The largest numerator or denominator computed exactly (about 30,000 digits): powers of
# powers stop here instead of filling memory; such a query is left unread (None).
MAX_BITS = 100_000
# Integers longer than this are shown as Wolfram shows them, by their decimal
# approximation and length, never in full (Python will not even write one past 4,300).
SHOWN_DIGITS = 1000
_TIMES = "\N{MULTIPLICATION SIGN}"


def evaluate(text: str) -> Fraction | None:
    """The exact value of a plain arithmetic expression, or None if it is not one.

    Accepts numbers, ``+ - * / ^`` (``**`` and the multiplication and division signs
    too) and parentheses; integer powers up to 1000. Division by zero, and values whose
    numerator or denominator would pass :data:`MAX_BITS`, give None.
    """
    source = text.replace("^", "**").replace(_TIMES, "*").replace("\N{DIVISION SIGN}", "/")
    try:
        tree = ast.parse(source, mode="eval")
        return _value(tree.body)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError):
        return None


def _value(node: ast.expr) -> Fraction:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return Fraction(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _value(node.operand)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow):
            if right.denominator != 1 or abs(right) > MAX_EXPONENT:
                raise ValueError("only small integer powers")
            if _bits(left) * abs(int(right)) > MAX_BITS:
                raise ValueError("too large to compute exactly")
            return left ** int(right)
        if type(node.op) in _BINARY:
            if _bits(left) + _bits(right) > MAX_BITS:
                raise ValueError("too large to compute exactly")
            return _BINARY[type(node.op)](left, right)
    raise ValueError("not arithmetic")


def _bits(value: Fraction) -> int:
    return max(value.numerator.bit_length(), value.denominator.bit_length())


def describe(value: Fraction, decimal_input: bool = False) -> list[tuple[str, str]]:
    """The result sections Wolfram shows for ``value``.

    An integer is the result; other values show the exact fraction and a decimal
    approximation, or only the decimal result when the input had decimals (``2.5*3``).
    A number too long to write out (over :data:`SHOWN_DIGITS` digits, such as
    ``(9^999)^5``) is shown by its decimal approximation and, for an integer, its length.
    """
    if max(_digits(value.numerator), _digits(value.denominator)) > SHOWN_DIGITS:
        approximation = ("Decimal approximation", _decimal(value))
        if value.denominator != 1:
            return [approximation]
        return [approximation, ("Number length", f"{_digits(value.numerator)} decimal digits")]
    if value.denominator == 1:
        return [("Result", str(value.numerator))]
    if decimal_input:
        return [("Result", _decimal(value))]
    return [("Exact result", str(value)), ("Decimal approximation", _decimal(value))]


def _digits(number: int) -> int:
    """How many decimal digits ``number`` has, without writing it (``str`` refuses past 4,300)."""
    number = abs(number)
    # log10(2) = 0.30103 (a little under): an estimate at most one short, then checked.
    digits = max(1, int((number.bit_length() - 1) * 0.30102999566) + 1)
    return digits + 1 if number >= 10**digits else digits


def _decimal(value: Fraction) -> str:
    exponent10 = 0
    if max(_digits(value.numerator), _digits(value.denominator)) > 40:
        # The digits kept, and the power of ten set aside, so that Decimal sees small ints.
        cut_n = max(0, _digits(value.numerator) - 40)
        cut_d = max(0, _digits(value.denominator) - 40)
        value = Fraction(value.numerator // 10**cut_n, value.denominator // 10**cut_d)
        exponent10 = cut_n - cut_d
    with localcontext() as context:
        context.prec = 30
        decimal = (Decimal(value.numerator) / Decimal(value.denominator)).normalize()
        decimal = decimal.scaleb(exponent10)
    exponent = decimal.adjusted()
    if -5 <= exponent < 15:
        return f"{decimal:f}"
    # As Wolfram writes large and small numbers: 4.2255... times 10^29.
    return f"{decimal.scaleb(-exponent)} {_TIMES} 10^{exponent}"
