"""Reading the Full Results API's XML: ``wolframalpha``'s objects, their shape checked.

Nothing raised shows the AppID: every text from the reply goes through the client's
``scrub``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, NoReturn

from toolspecs.loaders.wolfram_alpha import compat_wolframalpha as compat
from toolspecs.loaders.wolfram_alpha.errors import (
    AppIdRejected,
    MalformedReply,
    WolframAlphaBadRequest,
    WolframAlphaLoaderError,
    WolframAlphaUnavailable,
    cut,
)

REASON_CHARS = 200
"""The most characters of what Wolfram said that an error's ``reason`` keeps."""


def parse(body: bytes, scrub: Callable[[str], str]) -> Any:
    """The Full Results XML as ``wolframalpha`` objects (``Result``, ``Pod``, ...).

    Whatever those objects raise on a reply of another shape (``TypeError``,
    ``AttributeError``, ``KeyError``, a ``ValueError`` of a bad number) means the reply
    is not Wolfram's XML: :class:`MalformedReply`. Wolfram's own ``<error>`` raises the
    error it means.
    """
    from xml.parsers.expat import ExpatError  # with xmltodict, which loads it anyway

    try:
        doc = compat.parse(body)
    except ExpatError as exc:  # a reply cut short, or not XML at all
        raise_as(_malformed(f"the reply is not complete XML ({exc})"), exc, scrub)
    except ValueError as exc:
        if compat.ERROR_ELEMENT.match(str(exc)):
            raise_as(_error_element(str(exc), scrub), exc, scrub)
        if "entities" in str(exc):
            raise_as(_malformed("the reply declares XML entities, which are not read"), exc, scrub)
        raise_as(_malformed(f"the reply has an unexpected value ({exc})"), exc, scrub)
    except (TypeError, AttributeError, KeyError) as exc:
        raise_as(_malformed(f"the reply has an unexpected shape ({exc!r})"), exc, scrub)
    if isinstance(doc, dict) and "error" in doc:  # a bare <error>, as wolframalpha checks
        error = doc["error"]
        if not isinstance(error, dict):
            raise _malformed("the reply is an <error> without status or message")
        raise _error_element(compat.bare_error(error), scrub)
    result = doc.get("queryresult") if isinstance(doc, dict) else None
    if not compat.is_result(result):
        raise _malformed("the reply has no <queryresult>")
    try:
        problem = _shape_problem(result)
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        problem = f"it cannot be read ({exc!r})"
    if problem:
        raise _malformed(f"the reply's <queryresult> is not as documented: {problem}")
    return result


def _error_element(message: str, scrub: Callable[[str], str]) -> WolframAlphaLoaderError:
    said = first_line(message, scrub)
    if "appid" in said.lower():
        return AppIdRejected(f"Wolfram|Alpha refused the AppID ({said})", reason=said)
    if "input" in said.lower():
        return WolframAlphaBadRequest(f"Wolfram|Alpha rejected the request ({said})", reason=said)
    return WolframAlphaUnavailable(f"Wolfram|Alpha reported an error ({said})", reason=said)


def first_line(text: str, scrub: Callable[[str], str]) -> str:
    """The first non-blank line of ``text``, cut short, passed through ``scrub``."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return scrub(cut(line, REASON_CHARS))


def raise_as(
    error: WolframAlphaLoaderError, cause: BaseException | None, scrub: Callable[[str], str]
) -> NoReturn:
    """Raise ``error`` from ``cause``, unless ``cause``'s text would show the AppID."""
    text = str(cause)
    raise error from (cause if scrub(text) == text else None)


def _malformed(reason: str) -> MalformedReply:
    return MalformedReply("Wolfram|Alpha sent a reply that is not its XML", reason=reason)


def _shape_problem(result: Any) -> str:
    """What in a parsed ``<queryresult>`` is not as the spec reads it; "" when all is."""
    for pod in result.pods:
        if not compat.is_pod(pod) or not isinstance(pod.get("@title"), str):
            return "a <pod> without a title"
        for subpod in pod.subpods:
            if not isinstance(subpod, dict):
                return f"a <subpod> of {cut(pod['@title'], 40)!r} is not an element"
            if not isinstance(subpod.get("plaintext"), (str, type(None))):
                return f"a <plaintext> of {cut(pod['@title'], 40)!r} holds elements"
    for assumption in result.assumptions:
        if not isinstance(assumption, dict):
            return "an <assumption> is not an element"
        for value in as_list(assumption.get("value")):
            if not isinstance(value, dict) or not all(
                isinstance(value.get(key), str) for key in ("@desc", "@input")
            ):
                return "an assumption's <value> has no desc or input"
    if not isinstance(result.get("didyoumeans"), (dict, type(None))):
        return "<didyoumeans> is not an element"
    return ""


def as_list(value: Any) -> list[Any]:
    """An element xmltodict gives as one item or a list of them, as a list (``None``: [])."""
    if value is None:
        return []
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping)):
        return list(value)
    return [value]


def did_you_mean(result: Mapping[str, Any]) -> list[str]:
    """The ``<didyoumean>`` inputs of a Full Results reply, best first."""
    items = as_list((result.get("didyoumeans") or {}).get("didyoumean"))
    texts = (item.get("#text", "") if isinstance(item, dict) else item for item in items)
    return [text.strip() for text in texts if isinstance(text, str) and text.strip()]
