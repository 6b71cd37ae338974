"""Tasks of Wolfram|Alpha: exact answers a model should not compute in its head."""

from __future__ import annotations

from toolspecs.evals.task import Check, Task, mentions_number

DECIMAL = r"Decimal approximation:\s*(-?[\d.]+)"
"""Where Wolfram's answer gives the decimal value."""


def _two_places(number: str) -> str:
    return f"{float(number):.2f}"


TASKS: list[Task] = [
    Task(
        id="wolfram_alpha.arithmetic",
        specs=("wolfram_alpha",),
        request="What is 7 * 12^10 / 321? Give the decimal value to two places.",
        checks=(
            Check(
                "the answer gives 1350222895.85",
                mentions_number(1350222895.85, tolerance=1e-11),
            ),
        ),
        reason="A product a model gets wrong in its head; the tool's exact answer is right.",
        techniques=("lookup",),
        solution=[
            [("wolfram_alpha_query", {"query": "7 * 12^10 / 321"})],
            lambda talk: "7 * 12^10 / 321 = " + _two_places(talk.find(DECIMAL)),
        ],
        mistakes={
            "guessed": ["7 * 12^10 / 321 is about 1,350,222,896."],
        },
    ),
]
