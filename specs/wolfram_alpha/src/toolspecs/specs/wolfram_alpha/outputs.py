"""What the Wolfram|Alpha tools return: each answer as data, and the text the agent reads.

Wolfram's words are :class:`~toolspecs.core.structured.Quoted` in the data and reach the
agent fenced as third-party text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field, PrivateAttr

from toolspecs.core import FixArguments, fence
from toolspecs.core.bounds import shown
from toolspecs.core.structured import Output, Quoted, Structure
from toolspecs.loaders.wolfram_alpha.client import as_list

SOURCE = "Wolfram|Alpha"
# Images are listed only from Wolfram's own hosts, over https, with none of the URL
# characters Markdown reads (``( ) [ ] ! ' *``): a link cannot close itself and open an
# image from another host.
_IMAGE_HOST = re.compile(r"^(?:www|public)[0-9a-z]*\.wolframalpha\.com$")
_URL_CHARS = re.compile(r"^[A-Za-z0-9._~/?=&%:-]{1,600}$")
SHOWN_IMAGES = 8
_NOT_ENTITLED = (
    "Wolfram|Alpha offers a step-by-step solution for {pods} but sent none: this AppID is "
    "likely not entitled to step-by-step results. Tell the user that their Wolfram|Alpha "
    "API plan needs step-by-step access (https://developer.wolframalpha.com); the results "
    "above stand without steps."
)
_NO_STEPS = (
    "Wolfram|Alpha has no step-by-step solution for {query}: none of its sections offers "
    "one. Steps come for math such as 'solve 3x-7=11' or 'integrate x^2 sin x'; use the "
    "results above."
)

# Titles of the LLM API's sections that are no result: the query, the meaning, the link.
_QUERY_TITLES = {"query"}
_INPUT_TITLES = {"input", "input interpretation"}
_ASSUMPTION_TITLES = {"assumption", "assumptions"}
_WEBSITE_TITLE = "wolfram|alpha website result"
_OTHER_MEANINGS = re.compile(r"^Other possible assumptions:\s*(?P<listed>.*)$", re.MULTILINE)
_MEANING = re.compile(r"(?P<desc>[^,(][^(]*?)\s*\(assumption=(?P<input>[^)\s]+)\)")
_CHANGE = re.compile(r"\s*To change the assumption, use:.*$", re.DOTALL)
# A link in the data (not Markdown): printable ASCII but quotes, brackets, ^, `, | and \.
# Spelled as ranges: the negated class up to U+10FFFF took ~7 ms to compile at import.
_PAGE_URL_CHARS = re.compile(r"^[!#-&(-;=?-\[\]_a-z~]{1,600}$")


class Pod(Structure):
    """One titled result section."""

    title: Quoted = Field(description="Pass its text as pod to ask for this section alone.")
    text: Quoted
    primary: bool | None = Field(default=None, description="True for the main result.")


class Choice(Structure):
    """One meaning Wolfram|Alpha can give the query."""

    description: Quoted
    assumption: Quoted = Field(description="Pass its text as assumption for this meaning.")


class Answer(Output):
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
    # The answer as Wolfram wrote it for language models: the agent reads it whole.
    _written: str = PrivateAttr(default="")

    @classmethod
    def of(cls, reply: str, query: str) -> Answer:
        """The facts of an LLM API answer: interpretation, main result, sections, meanings, link."""
        data = cls(query=query, sections=[])
        results = []
        for title, text in _sections(reply):
            named = title.lower()
            if named in _QUERY_TITLES:
                continue
            if named in _INPUT_TITLES:
                data.input_interpretation = data.input_interpretation or Quoted(text=text)
            elif named in _ASSUMPTION_TITLES:
                first = text.splitlines()[0] if text else ""
                data.assumption = Quoted(text=_CHANGE.sub("", first).strip()) if first else None
                others = _OTHER_MEANINGS.search(text)
                data.other_assumptions = [
                    Choice(
                        description=Quoted(text=found["desc"].strip()),
                        assumption=Quoted(text=found["input"]),
                    )
                    for found in _MEANING.finditer(others["listed"] if others else "")
                ] or None
            elif named.startswith(_WEBSITE_TITLE):
                link = text.split()[0] if text.split() else ""
                host = _https_host(link)
                wolframs = host == "wolframalpha.com" or host.endswith(".wolframalpha.com")
                data.url = link if wolframs and _PAGE_URL_CHARS.match(link) else None
            else:
                results.append(Pod(title=Quoted(text=title), text=Quoted(text=text)))
        main = next((pod for pod in results if pod.title.text.lower() == "result"), None)
        if main is None and results:
            main = results[0]
        if main is not None:
            main.primary = True
            data.answer = main.text
        data.sections = results
        data._written = reply
        return data

    def reply(self) -> str:
        """The answer as Wolfram wrote it, fenced as Wolfram's."""
        return fence.block(self._written, SOURCE, "answer")


def _sections(reply: str) -> list[tuple[str, str]]:
    # A title line ends in ":" (after a blank line); its text follows.
    sections: list[tuple[str, list[str]]] = []
    blank = True
    for line in reply.splitlines():
        stripped = line.strip()
        if blank and stripped.endswith(":") and len(stripped) > 1:
            sections.append((stripped[:-1].strip(), []))
        elif sections:
            sections[-1][1].append(line)
        blank = not stripped
    return [(title, "\n".join(lines).strip()) for title, lines in sections]


def _https_host(url: str) -> str:
    """The host of an https ``url`` with no user or port; "" for any other."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return ""
    plain = parts.scheme == "https" and not (port or parts.username)
    return (parts.hostname or "") if plain else ""


class Image(Structure):
    """An image section (a plot, a map), as a link on Wolfram|Alpha's own server."""

    pod: Quoted
    url: str
    alt: Quoted | None = None
    width: int | None = None
    height: int | None = None

    @classmethod
    def of(cls, img: Any, pod: str, mirrored: Callable[[str], bool] | None) -> Image | None:
        """One ``<img>`` of ``pod``; ``None`` unless on Wolfram's host, or ``mirrored``.

        The URL is checked, never fetched: https, a host of :data:`_IMAGE_HOST`, no user
        or port, only the characters of :data:`_URL_CHARS`.
        """
        src = img.get("@src") if isinstance(img, dict) else None
        if not isinstance(src, str) or not _URL_CHARS.match(src):
            return None
        if not _IMAGE_HOST.match(_https_host(src)) and not (mirrored and mirrored(src)):
            return None
        width, height = img.get("@width"), img.get("@height")
        sized = isinstance(width, int) and isinstance(height, int)
        alt = fence.field(img.get("@alt"), 120)
        return cls(
            pod=Quoted(text=pod),
            url=src,
            alt=Quoted(text=alt) if alt else None,
            width=width if sized else None,
            height=height if sized else None,
        )

    def line(self) -> str:
        """The image as the text lists it: ``- pod: «alt» URL (W x H px)``."""
        sized = self.width is not None and self.height is not None
        size = f" ({self.width} x {self.height} px)" if sized else ""
        alt = f"{fence.quote(self.alt.text)} " if self.alt and self.alt.text else ""
        return f"- {self.pod.text}: {alt}{self.url}{size}"


class Assumption(Structure):
    """A word Wolfram|Alpha read one way and could read others."""

    word: Quoted
    choices: list[Choice] = Field(description="The first is the one used.")


class Pods(Output):
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

    @classmethod
    def of(
        cls,
        result: Any,
        query: str,
        pod: str | None,
        steps: bool = False,
        mirrored: Callable[[str], bool] | None = None,
    ) -> Pods:
        """The pods with text, the image pods, the assumptions and what to know of steps.

        The client has checked the shape. Images under the client's base URL
        (``mirrored``) are shown besides Wolfram's own.

        Raises:
            FixArguments: When ``pod`` was asked for and no section of that title came.
        """
        pods = []
        images: list[Image] = []
        for found in result.pods:
            title = fence.field(found.get("@title"), 100)
            texts = []
            for subpod in found.subpods:
                plain = subpod.get("plaintext")
                if plain and plain.strip():
                    sub_title = fence.field(subpod.get("@title"), 100)
                    texts.append(f"{sub_title}:\n{plain}" if sub_title else plain)
                else:  # an image pod (a plot, a map): its picture is the content
                    for img in as_list(subpod.get("img")):
                        if (image := Image.of(img, title, mirrored)) is not None:
                            images.append(image)
            if texts:
                primary = str(found.get("@primary", "")).lower() == "true"
                text = Quoted(text="\n".join(texts))
                pods.append(Pod(title=Quoted(text=title), text=text, primary=primary or None))
        if not pods and not images:
            if pod:
                raise FixArguments(
                    f"Wolfram|Alpha has no section titled {shown(pod)} for {shown(query)}.",
                    "Call again without pod to see the section titles.",
                )
            return cls(query=query, pods=[])
        inputs = [p for p in pods if p.title.text.lower() in _INPUT_TITLES]
        main = next((p for p in pods if p.primary), None)
        meanings = []
        for assumption in result.assumptions:
            values = as_list(assumption.get("value"))
            if values:
                word = fence.field(assumption.get("@word") or assumption.get("@type", ""), 80)
                choices = [
                    Choice(
                        description=Quoted(text=fence.field(v.get("@desc"), 80)),
                        assumption=Quoted(text=fence.field(v.get("@input"), 120)),
                    )
                    for v in values
                ]
                meanings.append(Assumption(word=Quoted(text=word), choices=choices))
        offering = _step_states(result)
        note = _steps_note(result, offering, query, steps)
        return cls(
            query=query,
            input_interpretation=inputs[0].text if inputs else None,
            answer=None if main is None else main.text,
            pods=pods,
            images=images[:SHOWN_IMAGES] or None,
            more_images=max(len(images) - SHOWN_IMAGES, 0) or None,
            assumptions=meanings or None,
            steps_offered=bool(offering) or None,
            next_step=note or None,
        )

    def reply(self) -> str:
        """The pods' text in one fence; the image pods as links; then the assumptions."""
        if not self.pods and not self.images:
            return f"Wolfram|Alpha understood {shown(self.query)} but has no text answer for it."
        parts = []
        if self.pods:
            sections = (f"{p.title.text}:\n{p.text.text}" for p in self.pods)
            parts.append(fence.block("\n\n".join(sections), SOURCE, "result"))
        if self.images:
            listed = [image.line() for image in self.images]
            if self.more_images:
                listed.append(f"- ({self.more_images} more)")
            parts.append(
                "Images (links on Wolfram|Alpha's server; alt text quoted; show as Markdown "
                "images):\n" + "\n".join(listed)
            )
        text = "\n".join(parts)
        if self.assumptions:
            text += "\nAssumptions (the first is the one used):\n" + "\n".join(
                f"- {a.word.text}: "
                + "; ".join(
                    f"{c.description.text} (assumption={fence.quote(c.assumption.text, 120)})"
                    for c in a.choices
                )
                for a in self.assumptions
            )
        return f"{text}\n{self.next_step}" if self.next_step else text


def _step_states(result: Any) -> list[str]:
    offering = []
    for found in result.pods:
        states = found.get("states")
        listed = as_list(states.get("state")) if isinstance(states, dict) else []
        if any(
            isinstance(state, dict)
            and (
                state.get("@stepbystep") == "true"
                or "step-by-step" in str(state.get("@name")).lower()
            )
            for state in listed
        ):
            offering.append(fence.quote(found.get("@title"), 80))
    return offering


def _steps_note(result: Any, offering: list[str], query: str, steps: bool) -> str:
    if not steps:
        return "A step-by-step solution is offered: call again with steps=true." if offering else ""
    titles = (str(subpod.get("@title", "")) for found in result.pods for subpod in found.subpods)
    if any("step" in title.lower() for title in titles):
        return ""
    if offering:
        return _NOT_ENTITLED.format(pods=", ".join(offering[:3]))
    return _NO_STEPS.format(query=shown(query))
