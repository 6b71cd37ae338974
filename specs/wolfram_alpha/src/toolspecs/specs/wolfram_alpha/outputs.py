"""The structured results of the Wolfram|Alpha tools (issue 25): each answer as data.

Built by :mod:`~toolspecs.specs.wolfram_alpha.render` beside the text it writes. Wolfram's
words (interpretations, answers, section titles and text, assumption descriptions and
values, image alt texts) are :class:`~toolspecs.core.structured.Quoted`, as the text
fences them; an assumption's value is Wolfram's too, and is sent back as it is.
"""

from __future__ import annotations

from pydantic import Field

from toolspecs.core.structured import Quoted, Structure

__all__ = ["Answer", "Assumption", "Choice", "Image", "Pod", "Pods"]


class Pod(Structure):
    """One titled result section."""

    title: Quoted = Field(description="Pass its text as pod to ask for this section alone.")
    text: Quoted
    primary: bool | None = Field(default=None, description="True for the main result.")


class Choice(Structure):
    """One meaning Wolfram|Alpha can give the query."""

    description: Quoted
    assumption: Quoted = Field(description="Pass its text as assumption for this meaning.")


class Answer(Structure):
    """An answer of Wolfram|Alpha's LLM API, section by section."""

    query: str = Field(description="The query as sent.")
    input_interpretation: Quoted | None = None
    answer: Quoted | None = Field(
        default=None, description="The main result: the 'Result' section, else the first."
    )
    sections: list[Pod]
    assumption: Quoted | None = Field(default=None, description="The meaning used.")
    other_assumptions: list[Choice] | None = None
    url: str | None = Field(default=None, description="The answer on Wolfram|Alpha's website.")


class Image(Structure):
    """An image section (a plot, a map), as a link on Wolfram|Alpha's own server."""

    pod: Quoted
    url: str
    alt: Quoted | None = None
    width: int | None = None
    height: int | None = None


class Assumption(Structure):
    """A word Wolfram|Alpha read one way and could read others."""

    word: Quoted
    choices: list[Choice] = Field(description="The first is the one used.")


class Pods(Structure):
    """Wolfram|Alpha's result sections (pods), images, assumptions and steps."""

    query: str = Field(description="The query as sent.")
    input_interpretation: Quoted | None = None
    answer: Quoted | None = Field(default=None, description="The primary section's text.")
    pods: list[Pod]
    images: list[Image] | None = Field(default=None, description="The first 8.")
    more_images: int | None = None
    assumptions: list[Assumption] | None = None
    steps_offered: bool | None = Field(
        default=None, description="A step-by-step solution is offered: call with steps=true."
    )
    next_step: str | None = None
