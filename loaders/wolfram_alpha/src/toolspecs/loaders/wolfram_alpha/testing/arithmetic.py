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
_TIMES = "\N{MULTIPLICATION SIGN}"


def evaluate(text: str) -> Fraction | None:
    """The exact value of a plain arithmetic expression, or None if it is not one.

    Accepts numbers, ``+ - * / ^`` (``**`` and the multiplication and division signs
    too) and parentheses; integer powers up to 1000. Division by zero gives None.
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
            return left ** int(right)
        if type(node.op) in _BINARY:
            return _BINARY[type(node.op)](left, right)
    raise ValueError("not arithmetic")


def describe(value: Fraction, decimal_input: bool = False) -> list[tuple[str, str]]:
    """The result sections Wolfram shows for ``value``.

    An integer is the result; other values show the exact fraction and a decimal
    approximation, or only the decimal result when the input had decimals (``2.5*3``).
    """
    if value.denominator == 1:
        return [("Result", str(value.numerator))]
    if decimal_input:
        return [("Result", _decimal(value))]
    return [("Exact result", str(value)), ("Decimal approximation", _decimal(value))]


def _decimal(value: Fraction) -> str:
    with localcontext() as context:
        context.prec = 30
        decimal = (Decimal(value.numerator) / Decimal(value.denominator)).normalize()
    exponent = decimal.adjusted()
    if -5 <= exponent < 15:
        return f"{decimal:f}"
    # As Wolfram writes large and small numbers: 4.2255... times 10^29.
    return f"{decimal.scaleb(-exponent)} {_TIMES} 10^{exponent}"
