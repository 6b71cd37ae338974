"""What the Wolfram|Alpha tools tell the agent: every reply and every guidance.

Wolfram's text is third-party text: answers and result sections reach the agent inside
a :func:`toolspecs.core.fence.block`, one-line values (assumptions, suggestions, what
Wolfram said in an error) as :func:`~toolspecs.core.fence.field` or
:func:`~toolspecs.core.fence.quote`. The guidance functions return the exception for
the tool to raise.

Each answer carries its structured result (:mod:`~toolspecs.specs.wolfram_alpha.outputs`),
built here beside the text: the same facts, Wolfram's words as ``Quoted``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from toolspecs.core import (
    AskUser,
    Failure,
    FailureTable,
    FixArguments,
    RetryLater,
    ToolGuidance,
    fence,
)
from toolspecs.core.bounds import clip, shown
from toolspecs.core.failures import reason_of, unreachable_rows
from toolspecs.core.structured import Quoted, Reply
from toolspecs.loaders.wolfram_alpha import (
    APP_ID_ENV,
    AppIdMalformed,
    AppIdMissing,
    AppIdRejected,
    MalformedReply,
    QueryNotUnderstood,
    WolframAlphaBadRequest,
    WolframAlphaTimeout,
    WolframAlphaUnavailable,
    WolframAlphaUnreachable,
)
from toolspecs.loaders.wolfram_alpha.fullresults import as_list
from toolspecs.specs.wolfram_alpha import outputs

SOURCE = "Wolfram|Alpha"
GET_APP_ID = (
    "Tell the user: Wolfram|Alpha needs an AppID. Get one free at "
    "https://developer.wolframalpha.com (choose the LLM API), then set the environment "
    f"variable {APP_ID_ENV} or pass app_id=... to WolframAlphaToolSpec."
)
# How many of Wolfram's suggestions guidance repeats, and how long each may be.
SHOWN_SUGGESTIONS = 5
SUGGESTION_TOKENS = 20
_REPHRASE = "Rephrase as short English keywords (e.g. 'France population', 'x^2 = 4')"
# Images are listed only from Wolfram's own hosts (www6b3.wolframalpha.com,
# public5.wolframalpha.com...), over https, and written with the few URL characters
# Wolfram's image links use: none that Markdown reads (``( ) [ ] ! ' *``), so a link
# cannot close itself and open an image from another host.
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


# -- failures ----------------------------------------------------------------------------


class _Failures(FailureTable):
    """Failure rows whose templates may also name ``query``, ``suggestions``, ``did_you_mean``.

    These are the loader error's data, cut short for guidance.

    The core fills templates from the exception's attributes as they are; Wolfram's
    errors carry the query the agent sent, which can be any length, so this table adds
    bounded echoes of it (``shown``) and of Wolfram's proposals (``clip``). What Wolfram
    said is third-party text: rows show it as ``{wolfram_said}`` (`` It said: «…».``) or
    ``{why}`` (one fenced line), never as the core's raw ``{said}`` or ``{reason}`` (but
    in :func:`~toolspecs.core.failures.unreachable_rows`, where no reply came: there the
    reason is the client's own words on the connection, AppID scrubbed).
    """

    def guidance(
        self,
        exc: BaseException,
        service: str = "The service",
        context: Mapping[str, Any] | None = None,
    ) -> ToolGuidance | None:
        reason = reason_of(exc)
        echoes = {
            "wolfram_said": f" It said: {fence.quote(reason, 200)}." if reason else "",
            "why": fence.field(reason, 200),
            "query": shown(getattr(exc, "query", "")),
            "at": f" at {host}" if (host := getattr(exc, "host", "")) else "",
            "suggestions": _listed(getattr(exc, "suggestions", ())),
            "did_you_mean": _listed(getattr(exc, "did_you_mean", ())),
        }
        return super().guidance(exc, service, {**(context or {}), **echoes})


def _listed(items: Iterable[str]) -> str:
    """Wolfram's proposals as one line of quoted fields, each cut short."""
    kept = []
    for item in items:
        text = fence.field(item, 200) if isinstance(item, str) else ""
        if text:
            kept.append(fence.quote(clip(text, SUGGESTION_TOKENS)))
        if len(kept) == SHOWN_SUGGESTIONS:
            break
    return "; ".join(kept)


FAILURES: FailureTable = _Failures(
    Failure(
        QueryNotUnderstood,
        FixArguments,
        "{service} did not understand {query}. It suggests: {suggestions}.",
        f"{_REPHRASE}, or send one of its suggestions.",
        when=lambda exc: bool(_listed(getattr(exc, "suggestions", ()))),
    ),
    Failure(
        QueryNotUnderstood,
        FixArguments,
        "{service} did not understand {query}. Did you mean: {did_you_mean}?",
        f"{_REPHRASE}, or send the input it proposes.",
        when=lambda exc: bool(_listed(getattr(exc, "did_you_mean", ()))),
    ),
    Failure(
        QueryNotUnderstood,
        FixArguments,
        "{service} did not understand {query}.",
        _REPHRASE + ".",
    ),
    Failure(AppIdMissing, AskUser, "{service} cannot be asked: no AppID is set.", GET_APP_ID),
    Failure(
        AppIdMalformed,
        AskUser,
        "{service} cannot be asked: the AppID as set holds spaces or control characters "
        "inside, so it was not sent.",
        "Do not retry. Tell the user to check the Wolfram|Alpha AppID in "
        f"{APP_ID_ENV} (or app_id=...): it should be one word of letters, digits and "
        "dashes, as shown at https://developer.wolframalpha.com.",
    ),
    Failure(
        AppIdRejected,
        AskUser,
        "{service} refused the AppID.{wolfram_said}",
        "Do not retry. Tell the user their Wolfram|Alpha AppID is invalid or not enabled "
        f"for this API, and to check {APP_ID_ENV}.",
    ),
    Failure(
        WolframAlphaBadRequest,
        FixArguments,
        "{service} rejected the request.{wolfram_said}",
        "Send a non-empty one-line query.",
    ),
    Failure(
        WolframAlphaTimeout,
        RetryLater,
        "{service}{at} did not answer within {exc.seconds:g} seconds.",
        "Try again, or simplify the query.",
    ),
    *unreachable_rows(WolframAlphaUnreachable),
    Failure(MalformedReply, RetryLater, "{service} sent a reply that is not its answer ({why})."),
    Failure(
        WolframAlphaUnavailable,
        RetryLater,
        "{service} is rate-limiting this AppID (HTTP 429).",
        status=429,
    ),
    Failure(
        WolframAlphaUnavailable,
        RetryLater,
        "{service} had a server error (HTTP {status}).{wolfram_said}",
        status=range(500, 600),
    ),
    Failure(WolframAlphaUnavailable, RetryLater, "{service} gave no answer ({why})."),
)
"""How the loader's errors reach the agent (the spec's ``failures``)."""


# -- guidance on arguments ---------------------------------------------------------------


def empty_query() -> FixArguments:
    """A query with no text (or only our quotes)."""
    return FixArguments(
        "The query is empty.",
        "Send keywords such as 'integrate x^2' or 'France population'.",
    )


def long_query(text: str, most: int) -> FixArguments:
    """A query over ``most`` characters: a text, not Wolfram's keywords."""
    return FixArguments(
        f"The query is {len(text)} characters long: {shown(text)}. Wolfram|Alpha "
        f"reads short keyword queries (at most {most} characters).",
        "Send a few keywords or one expression, e.g. 'France population'.",
    )


def bad_units(exc: ValueError) -> FixArguments:
    """A call's ``units`` that is neither system (``exc`` says which forms are read)."""
    return FixArguments(f"{exc}.", "Send 'metric', 'nonmetric', or no units.")


def bad_location(location: str, exc: ValueError) -> FixArguments:
    """A call's ``location`` that is none of the forms Wolfram takes."""
    return FixArguments(
        f"The location {shown(location)} cannot be used: {exc}.",
        "Send a city and region ('Boston, MA'), a latitude,longitude "
        "('42.36,-71.06'), or no location.",
    )


# -- answers -----------------------------------------------------------------------------


def answer(reply: str, query: str) -> Reply:
    """The LLM API's answer, fenced as Wolfram's; as data, its sections read apart."""
    return Reply(fence.block(reply, SOURCE, "answer"), answer_data(reply, query))


# The LLM API's answer is sections: a title line ending in ":" (after a blank line), then
# its text. These titles are no result: the query echoed, the meaning used, the link.
_QUERY_TITLES = {"query"}
_INPUT_TITLES = {"input", "input interpretation"}
_ASSUMPTION_TITLES = {"assumption", "assumptions"}
_WEBSITE_TITLE = "wolfram|alpha website result"
_OTHER_MEANINGS = re.compile(r"^Other possible assumptions:\s*(?P<listed>.*)$", re.MULTILINE)
_MEANING = re.compile(r"(?P<desc>[^,(][^(]*?)\s*\(assumption=(?P<input>[^)\s]+)\)")
_CHANGE = re.compile(r"\s*To change the assumption, use:.*$", re.DOTALL)
# A link in the data (not Markdown): any printable ASCII but quotes, brackets and spaces.
_PAGE_URL_CHARS = re.compile(r"^[^\s\"'<>\\`{}|^\x00-\x1f\x7f-\U0010ffff]{1,600}$")


def _sections(reply: str) -> list[tuple[str, str]]:
    """The LLM API's answer as (title, text) pairs, in order."""
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


def answer_data(reply: str, query: str) -> outputs.Answer:
    """The facts of an LLM API answer: interpretation, main result, sections, meanings, link.

    Every string but ``query`` (the agent's, as sent) is Wolfram's, ``Quoted``; the link
    only when it is Wolfram|Alpha's own (https, on wolframalpha.com).
    """
    data = outputs.Answer(query=query, sections=[])
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
                outputs.Choice(
                    description=Quoted(text=found["desc"].strip()),
                    assumption=Quoted(text=found["input"]),
                )
                for found in _MEANING.finditer(others["listed"] if others else "")
            ] or None
        elif named.startswith(_WEBSITE_TITLE):
            link = text.split()[0] if text.split() else ""
            data.url = link if _website_link(link) else None
        else:
            results.append(outputs.Pod(title=Quoted(text=title), text=Quoted(text=text)))
    main = next((pod for pod in results if pod.title.text.lower() == "result"), None)
    if main is None and results:
        main = results[0]
    if main is not None:
        main.primary = True
        data.answer = main.text
    data.sections = results
    return data


def _website_link(link: str) -> bool:
    """Whether ``link`` is a page of Wolfram|Alpha's website (https, its own host)."""
    try:
        parts = urlsplit(link)
        port = parts.port
    except ValueError:
        return False
    host = parts.hostname or ""
    return (
        parts.scheme == "https"
        and not port
        and not parts.username
        and (host == "wolframalpha.com" or host.endswith(".wolframalpha.com"))
        and bool(_PAGE_URL_CHARS.match(link))
    )


def pods(
    result: Any,
    query: str,
    pod: str | None,
    steps: bool = False,
    mirrored: Callable[[str], bool] | None = None,
) -> Reply:
    """The pods' text in one fence; the image pods as links; then the assumptions.

    The client has checked the shape: pods with a text title, subpods whose
    ``plaintext`` is text or missing, assumption values with text ``desc`` and ``input``.
    A subpod with a title (e.g. "Possible intermediate steps") is shown under it. With
    ``steps``, a reply without steps ends with why and what to do (:func:`_steps_note`).
    Images under the client's base URL (``mirrored``) are shown besides Wolfram's own.
    Its data (:class:`~toolspecs.specs.wolfram_alpha.outputs.Pods`) holds the same.

    Raises:
        FixArguments: When ``pod`` was asked for and no section of that title came.
    """
    sections = []
    images: list[str] = []
    data = outputs.Pods(query=query, pods=[])
    pictures: list[outputs.Image] = []
    for found in result.pods:
        pod_title = fence.field(found.get("@title"), 100)
        texts = []
        for subpod in found.subpods:
            plain = subpod.get("plaintext")
            if plain and plain.strip():
                sub_title = fence.field(subpod.get("@title"), 100)
                texts.append(f"{sub_title}:\n{plain}" if sub_title else plain)
            else:  # an image pod (a plot, a map): its picture is the content
                for image in (_image(i, mirrored) for i in as_list(subpod.get("img"))):
                    if image is not None:
                        images.append(f"- {pod_title}: {_image_line(image)}")
                        pictures.append(image.model_copy(update={"pod": Quoted(text=pod_title)}))
        if texts:
            sections.append(f"{pod_title}:\n" + "\n".join(texts))
            data.pods.append(_pod_data(found, pod_title, "\n".join(texts)))
    if not sections and not images:
        if pod:
            raise FixArguments(
                f"Wolfram|Alpha has no section titled {shown(pod)} for {shown(query)}.",
                "Call again without pod to see the section titles.",
            )
        return Reply(
            f"Wolfram|Alpha understood {shown(query)} but has no text answer for it.", data
        )
    inputs = [p for p in data.pods if p.title.text.lower() in _INPUT_TITLES]
    data.input_interpretation = inputs[0].text if inputs else None
    main = next((p for p in data.pods if p.primary), None)
    data.answer = None if main is None else main.text
    data.images = pictures[:SHOWN_IMAGES] or None
    data.more_images = max(len(pictures) - SHOWN_IMAGES, 0) or None
    parts = []
    if sections:
        parts.append(fence.block("\n\n".join(sections), SOURCE, "result"))
    if images:
        more = len(images) - SHOWN_IMAGES
        listed = images[:SHOWN_IMAGES] + ([f"- ({more} more)"] if more > 0 else [])
        parts.append(
            "Images (links on Wolfram|Alpha's server; alt text quoted; show as Markdown "
            "images):\n" + "\n".join(listed)
        )
    text = "\n".join(parts)
    assumptions = []
    meanings = []
    for assumption in result.assumptions:
        values = as_list(assumption.get("value"))
        choices = [
            f"{fence.field(v.get('@desc'), 80)} (assumption={fence.quote(v.get('@input'), 120)})"
            for v in values
        ]
        word = fence.field(assumption.get("@word") or assumption.get("@type", ""), 80)
        if choices:
            assumptions.append(f"- {word}: " + "; ".join(choices))
            meanings.append(
                outputs.Assumption(
                    word=Quoted(text=word),
                    choices=[
                        outputs.Choice(
                            description=Quoted(text=fence.field(v.get("@desc"), 80)),
                            assumption=Quoted(text=fence.field(v.get("@input"), 120)),
                        )
                        for v in values
                    ],
                )
            )
    if assumptions:
        text += "\nAssumptions (the first is the one used):\n" + "\n".join(assumptions)
    data.assumptions = meanings or None
    data.steps_offered = bool(_step_states(result)) or None
    note = _steps_note(result, query, steps)
    data.next_step = note or None
    return Reply(f"{text}\n{note}" if note else text, data)


def _pod_data(found: Any, title: str, text: str) -> outputs.Pod:
    """One pod with text as data: its title and text as shown, and whether it is primary."""
    primary = str(found.get("@primary", "")).lower() == "true"
    return outputs.Pod(title=Quoted(text=title), text=Quoted(text=text), primary=primary or None)


def _image_line(image: outputs.Image) -> str:
    """One image as the text lists it: ``«alt» URL (W x H px)``."""
    width, height = image.width, image.height
    size = f" ({width} x {height} px)" if width is not None and height is not None else ""
    alt = image.alt.text if image.alt else ""
    return f"{fence.quote(alt) + ' ' if alt else ''}{image.url}{size}"


def _image(img: Any, mirrored: Callable[[str], bool] | None = None) -> outputs.Image | None:
    """One ``<img>``, its pod left empty; ``None`` unless on Wolfram's host, or ``mirrored``.

    The URL is Wolfram's as sent, checked, never fetched: https, a host of
    :data:`_IMAGE_HOST`, no user or port, only the characters of :data:`_URL_CHARS` (so
    it cannot hold our markers, a line break, or Markdown that opens another link).
    The alt text is third-party text, quoted.
    """
    src = img.get("@src") if isinstance(img, dict) else None
    if not isinstance(src, str) or not _URL_CHARS.match(src):
        return None
    try:
        parts = urlsplit(src)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname or ""
    wolframs = parts.scheme == "https" and not port and not parts.username
    if not (wolframs and _IMAGE_HOST.match(host)) and not (mirrored and mirrored(src)):
        return None
    width, height = img.get("@width"), img.get("@height")
    sized = isinstance(width, int) and isinstance(height, int)
    alt = fence.field(img.get("@alt"), 120)
    return outputs.Image(
        pod=Quoted(text=""),
        url=src,
        alt=Quoted(text=alt) if alt else None,
        width=width if sized else None,
        height=height if sized else None,
    )


def _step_states(result: Any) -> list[str]:
    """The titles of the pods that offer a step-by-step solution (a state Wolfram marks)."""
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


def _has_steps(result: Any) -> bool:
    return any(
        "step" in str(subpod.get("@title", "")).lower()
        for found in result.pods
        for subpod in found.subpods
    )


def _steps_note(result: Any, query: str, steps: bool) -> str:
    """What the agent should know about steps: none came, or some may be asked for."""
    offering = _step_states(result)
    if not steps:
        return "A step-by-step solution is offered: call again with steps=true." if offering else ""
    if _has_steps(result):
        return ""
    if offering:
        return _NOT_ENTITLED.format(pods=", ".join(offering[:3]))
    return _NO_STEPS.format(query=shown(query))
