"""Tasks of Wolfram|Alpha: exact answers a model should not compute in its head.

The Wolfram|Alpha sandbox answers plain arithmetic exactly, and a few recorded queries
as Wolfram answered them (the boiling point of water, the speed of light, "pi" as a
number or a film, the integral of x^2 sin x with its plot and steps); anything else it
does not understand, with Wolfram's suggestions. The recorded values differ from the
ones a model remembers (211.9 °F, not 212; 84 minutes), so a guess fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from toolspecs.evals.task import Check, Ending, Task, matches, mentions_number

__all__ = ["TASKS", "mentions_quantity", "numbers"]

DECIMAL = r"Decimal approximation:\s*(-?[\d.]+)"
"""Where Wolfram's answer gives the decimal value."""
PLOT = "MSP5161i5c1d0f4b9e3h2e00001h0d4gf1a3i7e2b4"
"""The name of the recorded plot of the integral of x^2 sin x, on Wolfram's server."""
_SUPERSCRIPTS = str.maketrans(
    "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b", "0123456789-"
)
_SEPARATOR = r"(?<=\d)[,\u202f\u00a0 ](?=\d{3}\b)"  # 670,600,000 and 670 600 000
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_QUANTITY = re.compile(
    r"(?<![\d.])(-?\d+(?:\.\d+)?)"
    r"(?:\s*(?:[\u00d7x*\u00b7]|times)\s*10\s*(?:\^|\*\*)\s*\(?([-+\u2212]?\d+)\)?"
    r"|[eE]([-+]?\d+)"
    r"|\s*(thousand|million|billion|trillion))?",
    re.IGNORECASE,
)


def numbers(text: str) -> list[float]:
    """The numbers of ``text`` as people write them: 670,600,000, 6.706 x 10^8, 670.6 million."""
    text = text.replace("\u2212", "-")
    text = re.sub(
        r"10([\u2070\u00b9\u00b2\u00b3\u2074-\u2079\u207b]+)",
        lambda m: "10^" + m[1].translate(_SUPERSCRIPTS),
        text,
    )
    text = re.sub(_SEPARATOR, "", text)
    found = []
    for match in _QUANTITY.finditer(text):
        value = float(match[1])
        if match[2] or match[3]:
            value *= 10.0 ** int((match[2] or match[3]).replace("\u2212", "-"))
        elif match[4]:
            value *= _SCALES[match[4].lower()]
        found.append(value)
    return found


def mentions_quantity(value: float, tolerance: float) -> Callable[[Ending], bool]:
    """A check's test: the answer has a number within ``tolerance`` (relative) of ``value``.

    Unlike :func:`~toolspecs.evals.task.mentions_number`, it reads powers of ten and
    scale words: ``6.706 x 10^8``, ``6.706e8`` and ``670.6 million`` are one number.
    """
    return lambda ending: any(
        abs(number - value) <= abs(value) * tolerance for number in numbers(ending.answer)
    )


def _says_fraction(numerator: int, denominator: int) -> Callable[[Ending], bool]:
    pattern = rf"(?<![\d.]){numerator}\s*(?:/|\u2044|\u2215)\s*{denominator}(?![\d.])"
    return lambda ending: re.search(pattern, ending.answer) is not None


def _two_places(number: str) -> str:
    return f"{float(number):.2f}"


def _digits(value: int) -> Callable[[Ending], bool]:
    """A check's test: the answer writes ``value`` in full (thousands' separators aside)."""
    return lambda ending: str(value) in re.sub(_SEPARATOR, "", ending.answer)


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
    Task(
        id="wolfram_alpha.exact_fraction",
        specs=("wolfram_alpha",),
        request="What is 1/7 + 1/13 + 1/17 as an exact fraction in lowest terms?",
        checks=(Check("the answer gives 431/1547", _says_fraction(431, 1547)),),
        reason="An exact fraction, not a rounded decimal: the tool keeps it exact.",
        techniques=("lookup",),
        solution=[
            [("wolfram_alpha_query", {"query": "1/7 + 1/13 + 1/17"})],
            lambda talk: "1/7 + 1/13 + 1/17 = " + talk.find(r"Exact result:\s*(\d+/\d+)"),
        ],
        mistakes={
            "rounded-wrong": ["1/7 + 1/13 + 1/17 is about 0.28."],
            "guessed": ["1/7 + 1/13 + 1/17 = 431/1457."],
        },
    ),
    Task(
        id="wolfram_alpha.big_power",
        specs=("wolfram_alpha",),
        request="Write out 3^100 exactly, every digit.",
        checks=(Check("the answer writes 3^100 in full", _digits(3**100)),),
        reason="48 digits: a model rounds or invents the tail; the tool writes them all.",
        techniques=("lookup",),
        solution=[
            [("wolfram_alpha_query", {"query": "3^100"})],
            lambda talk: "3^100 = " + talk.find(r"Result:\s*(\d+)"),
        ],
        mistakes={
            "rounded-wrong": ["3^100 is about 5.1537752 \u00d7 10^47."],
            "guessed": ["3^100 = 515377520732011331036461129765621272702107522000."],
        },
    ),
    Task(
        id="wolfram_alpha.boiling_point",
        specs=("wolfram_alpha",),
        request=(
            "Ask Wolfram Alpha for the boiling point of water in K, and tell me what it says "
            "in kelvins and in degrees Fahrenheit."
        ),
        checks=(
            Check("the answer gives 373.12 K", mentions_number(373.12)),
            Check("the answer gives 211.9 \u00b0F", mentions_number(211.9)),
        ),
        reason="A recorded answer and its conversions: Wolfram's 211.9 °F, not the 212 of memory.",
        techniques=("lookup",),
        solution=[
            [("wolfram_alpha_query", {"query": "boiling point of water in K"})],
            lambda talk: (
                "Water boils at "
                + talk.find(r"Result:\s*([\d.]+) K")
                + " K, which is "
                + talk.find(r"([\d.]+) \u00b0F")
                + " \u00b0F (at 760 mmHg)."
            ),
        ],
        mistakes={
            "guessed": ["Water boils at 373.15 K, which is 212 \u00b0F."],
            "rounded-wrong": [
                [("wolfram_alpha_query", {"query": "boiling point of water in K"})],
                "Water boils at about 373 K, or 212 \u00b0F.",
            ],
        },
    ),
    Task(
        id="wolfram_alpha.speed_of_light_mph",
        specs=("wolfram_alpha",),
        request=(
            "Using Wolfram Alpha: what is the speed of light in miles per hour, to four "
            "significant figures?"
        ),
        checks=(
            Check(
                "the answer gives 6.706 \u00d7 10^8 mph",
                mentions_quantity(6.706e8, tolerance=5e-5),
            ),
        ),
        reason="A sentence is not a Wolfram query: the guidance asks for keywords, and the "
        "keywords' answer lists the conversion.",
        techniques=("recovery", "lookup"),
        solution=[
            [("wolfram_alpha_query", {"query": "What is the speed of light in miles per hour?"})],
            [("wolfram_alpha_query", {"query": "speed of light"})],
            lambda talk: (
                "The speed of light is " + talk.find(r"([\d.]+\u00d710\^\d+) mph") + " mph."
            ),
        ],
        mistakes={
            "gave-up": [
                [
                    (
                        "wolfram_alpha_query",
                        {"query": "What is the speed of light in miles per hour?"},
                    )
                ],
                "Wolfram Alpha did not understand the question.",
            ],
            "rounded-wrong": ["The speed of light is about 670 million miles per hour."],
            "guessed": ["The speed of light is 186,000 miles per hour."],
        },
    ),
    Task(
        id="wolfram_alpha.integral_plot",
        specs=("wolfram_alpha",),
        request=(
            "Integrate x^2 sin x with Wolfram Alpha: what is the definite integral over a "
            "half-period (0 to \u03c0), exactly and to four decimals? Show me Wolfram's plot of "
            "the integral too."
        ),
        checks=(
            Check("the answer gives 5.8696", mentions_number(5.8696)),
            Check(
                "the answer gives \u03c0^2 - 4",
                lambda e: (
                    re.search(
                        r"(\u03c0|pi)\s*(\^\s*2|\u00b2|\*\*\s*2)\s*[-\u2212\u2013]\s*4",
                        e.answer,
                        re.IGNORECASE,
                    )
                    is not None
                ),
            ),
            Check("the answer shows Wolfram's plot (its image link)", lambda e: PLOT in e.answer),
        ),
        reason="Plots are a section of the full results: the pods tool gives them.",
        techniques=("lookup",),
        solution=[
            [("wolfram_alpha_pods", {"query": "integrate x^2 sin x"})],
            lambda talk: (
                "The integral over 0 to \u03c0 is "
                + talk.find(r"integral_0\^\u03c0 x\^2 sin\(x\) dx = (\u03c0\^2 - 4\u2248[\d.]+)")
                + "\n\n![Plots of the integral]("
                + talk.find(r"(https://\S+MSP\S+)")
                + ")"
            ),
        ],
        mistakes={
            "guessed": [
                "The integral of x^2 sin x from 0 to \u03c0 is \u03c0\u00b2 \u2212 4 \u2248 5.8696 "
                "(I cannot show a plot)."
            ],
        },
    ),
    Task(
        id="wolfram_alpha.pi_the_film",
        specs=("wolfram_alpha",),
        request=(
            "Look up 'pi' on Wolfram Alpha, the 1998 film, not the number: when was it "
            "released in the United States, and how many minutes does it run?"
        ),
        checks=(
            Check(
                "the answer gives the release date, July 10, 1998",
                lambda e: (
                    re.search(
                        r"july\s+10(th)?,?\s+1998|10(th)?\s+(of\s+)?july,?\s+1998|1998-07-10",
                        e.answer,
                        re.IGNORECASE,
                    )
                    is not None
                ),
            ),
            Check(
                "the answer gives the runtime, 84 minutes",
                matches(r"\b84\s*(minutes|mins?)\b|\b1\s*(h|hours?|hr)\s*(and\s*)?24\s*m"),
            ),
        ),
        reason="'pi' is the number first: the answer's other meanings say how to ask for the film.",
        techniques=("recovery", "lookup"),
        solution=[
            [("wolfram_alpha_query", {"query": "pi"})],
            lambda talk: [
                (
                    "wolfram_alpha_query",
                    {"query": "pi", "assumption": talk.find(r"as a movie \(assumption=([^)]+)\)")},
                )
            ],
            lambda talk: (
                "Pi was released on "
                + talk.find(r"release date \| ([^(\n]+?) \(")
                + " in the United States and runs "
                + talk.find(r"runtime \| (\d+) minutes")
                + " minutes."
            ),
        ],
        mistakes={
            "guessed": ["Pi came out in the US in July 1998 and runs 85 minutes."],
            "gave-up": [
                [("wolfram_alpha_query", {"query": "pi"})],
                "Wolfram Alpha only knows pi as the number 3.14159...",
            ],
        },
    ),
]
