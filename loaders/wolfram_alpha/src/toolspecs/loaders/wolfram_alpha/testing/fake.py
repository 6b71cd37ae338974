"""``FakeWolframAlpha``: both Wolfram|Alpha APIs the client uses, answered offline.

One httpx transport (:meth:`FakeWolframAlpha.transport`) serves the LLM API and the
Full Results API, as ``WolframAlphaClient`` reaches them. Answers come from bundled
recordings (the LlamaHub blog's example, ``pi`` and its movie meaning, the boiling
point of water, the speed of light), exact arithmetic for any other plain expression
(a number too long to write out shown by its approximation and length, as Wolfram does),
and otherwise Wolfram's "could not understand" reply; an AppID outside ``app_ids``
is refused as Wolfram refuses it.

Failures on demand (``fake.fail``) cover what services and the networks in front of them
do: an HTTP status (with ``Retry-After`` for 429 and 503), a transport exception, and the
named kinds of :data:`FAILURE_KINDS` (a 200 with an HTML page, XML without
``<queryresult>``, an empty or cut-short body, an XML bomb, a huge body, a slow body).
"""

from __future__ import annotations

import threading
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from http import HTTPStatus
from importlib.resources import files
from typing import Any
from urllib.parse import quote_plus

import httpx

from toolspecs.loaders.wolfram_alpha.testing import arithmetic


def _wait(seconds: float) -> None:
    threading.Event().wait(seconds)  # a real wait: tests patch time.sleep


_DATA = files("toolspecs.loaders.wolfram_alpha.testing") / "data"
LLM_ANSWERS = {
    ("(7 * 12 ^ 10) / 321", ""): "llm_blog_example.txt",
    ("pi", ""): "llm_pi.txt",
    ("pi", "*C.pi-_*NamedConstant-"): "llm_pi.txt",
    ("pi", "*C.pi-_*Movie-"): "llm_pi_movie.txt",
    ("boiling point of water in k", ""): "llm_boiling_point_of_water_in_k.txt",
    ("speed of light", ""): "llm_speed_of_light.txt",
}
"""Bundled LLM API answers by (query in lower case, assumption)."""
FULL_RESULTS = {
    "pi": "full_pi.xml",
    "francee populaton": "full_francee_populaton.xml",
    "integrate x^2 sin x": "full_integrate_x2_sin_x.xml",
}
"""Bundled Full Results API answers by query in lower case."""
STEPS = {
    ("integrate x^2 sin x", "IndefiniteIntegral"): (
        "Take the integral:\nintegral x^2 sin(x) dx\n"
        "For the integrand x^2 sin(x), integrate by parts, integral f dg = f g - integral g df, "
        "where f = x^2, dg = sin(x) dx, df = 2 x dx, g = -cos(x):\n"
        " = -x^2 cos(x) + integral 2 x cos(x) dx\n"
        "Factor out constants:\n = -x^2 cos(x) + 2 integral x cos(x) dx\n"
        "For the integrand x cos(x), integrate by parts, where f = x, dg = cos(x) dx, "
        "df = dx, g = sin(x):\n"
        " = -x^2 cos(x) + 2 x sin(x) - 2 integral sin(x) dx\n"
        "The integral of sin(x) is -cos(x):\n"
        "Answer: | = -x^2 cos(x) + 2 x sin(x) + 2 cos(x) + constant"
    ),
}
"""Step-by-step solutions by (query in lower case, pod id), sent for the podstate
``Step-by-step solution`` (or ``<pod id>__Step-by-step solution``) as a subpod titled
"Possible intermediate steps", as Wolfram sends them."""
STEP_STATE = "Step-by-step solution"
_IMAGE_HOST = "https://www6b3.wolframalpha.com/Calculate/MSP/"
_XML = "text/xml; charset=utf-8"
_TEXT = "text/plain; charset=utf-8"
FAILURE_KINDS = {
    "html": "HTTP 200 with an HTML page (a captive portal or a CDN's page), for both APIs",
    "no-root": "HTTP 200, text/xml, whose XML has no <queryresult> (another root element)",
    "empty": "HTTP 200 with an empty body (of the API's content type)",
    "truncated": "HTTP 200 with the real answer cut off halfway (XML that does not end)",
    "xml-bomb": "HTTP 200, text/xml, a billion-laughs entity expansion",
    "huge": "HTTP 200 whose body streams `huge_bytes` bytes, with no Content-Length",
    "slow": "the real answer, `slow_chunk_bytes` at a time, one chunk every `slow_seconds`",
}
"""The named failures ``FakeWolframAlpha.fail`` takes besides statuses and exceptions."""
_HTML = (
    "<!DOCTYPE html>\n<html><head><title>Wolfram|Alpha</title></head>"
    "<body><h1>We'll be right back</h1><p>Scheduled maintenance.</p></body></html>"
)
_NO_ROOT = (
    "<?xml version='1.0' encoding='UTF-8'?>\n<html><body>Service temporarily unavailable"
    "</body></html>"
)
_XML_BOMB = (
    '<?xml version="1.0"?>\n<!DOCTYPE queryresult [\n <!ENTITY a "aaaaaaaaaa">\n'
    + "".join(f' <!ENTITY {chr(98 + n)} "{("&" + chr(97 + n) + ";") * 10}">\n' for n in range(9))
    + "]>\n<queryresult success='true' error='false' numpods='1'><pod title='Result'>"
    "<subpod title=''><plaintext>&j;</plaintext></subpod></pod></queryresult>"
)
_INVALID_APPID = (
    "<?xml version='1.0' encoding='UTF-8'?>\n<queryresult success='false' error='true' "
    "numpods='0' version='2.6'>\n <error>\n  <code>1</code>\n  <msg>Invalid appid</msg>\n"
    " </error>\n</queryresult>"
)


@dataclass
class Request:
    """One request the fake received: which API, its parameters, its AppID."""

    api: str  # "llm" or "full"
    params: dict[str, str]
    app_id: str
    pairs: list[tuple[str, str]] = field(default_factory=list)
    """Every parameter in order, repeated ones (``podstate``) included."""


class FakeWolframAlpha:
    """Wolfram|Alpha offline, for ``WolframAlphaToolSpec(transport=fake.transport())``.

    Args:
        answers: More LLM API answers (text as Wolfram writes it) by query.
        app_ids: The AppIDs it accepts; ``None`` accepts any non-empty one.
        step_by_step: Whether those AppIDs are entitled to step-by-step solutions. When
            not, the podstate asking for steps changes nothing: the reply is the usual
            one, the pod still offering its ``Step-by-step solution`` state, with no steps.
        latency: Seconds each request waits before it is answered (its round trip, as
            the real service's), with ``sleep``.

    Attributes:
        requests: Every request received, in order.
        fail: What to answer the next requests (of either API) with instead, one item
            per request: an HTTP status, e.g. ``[503]``; an exception for the transport
            to raise, e.g. ``[httpx.ReadTimeout("slow")]``; or a named kind of
            :data:`FAILURE_KINDS`, e.g. ``["html", "no-root", "slow"]``.
        retry_after: The ``Retry-After`` seconds sent with a failure of status 429 or
            503 (``None``: no header).
        slow_seconds: For ``"slow"``: the wait before each chunk of the body (a real
            wait, with ``threading.Event().wait``, so a patched ``time.sleep`` does not
            skip it).
        slow_chunk_bytes: For ``"slow"``: the bytes in each chunk.
        huge_bytes: For ``"huge"``: the size of the body.
        sleep: How ``latency`` is waited: a real wait (``threading.Event().wait``); a
            test may replace it to record the waits.
    """

    def __init__(
        self,
        answers: Mapping[str, str] | None = None,
        app_ids: Collection[str] | None = None,
        *,
        step_by_step: bool = True,
        latency: float = 0.0,
    ) -> None:
        self.latency = latency
        self.sleep: Callable[[float], Any] = _wait
        self.answers = {_key(q): text for q, text in (answers or {}).items()}
        self.app_ids = app_ids
        self.step_by_step = step_by_step
        self.requests: list[Request] = []
        self.fail: list[int | Exception | str] = []
        self.retry_after: int | None = 30
        self.slow_seconds = 1.0
        self.slow_chunk_bytes = 16
        self.huge_bytes = 8 * 1024 * 1024

    def transport(self) -> httpx.MockTransport:
        """An httpx transport this fake answers: both APIs, as the client reaches them."""
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        """Answer one request (the transport's handler), after ``latency``; record it first."""
        if self.latency > 0:
            self.sleep(self.latency)
        url = request.url
        params = dict(url.params)
        pairs = list(url.params.multi_items())
        if url.host == "www.wolframalpha.com" and url.path == "/api/v1/llm-api":
            app_id = _bearer(request.headers.get("Authorization", "")) or params.get("appid", "")
            self.requests.append(Request("llm", params, app_id, pairs))
        elif url.host == "api.wolframalpha.com" and url.path == "/v2/query":
            self.requests.append(Request("full", params, params.get("appid", ""), pairs))
        else:
            return httpx.Response(404, text="Not Found")
        failure = self.fail.pop(0) if self.fail else None
        if failure is not None and failure not in ("slow", "truncated"):
            return self._failure(failure)
        if self.requests[-1].api == "llm":
            status, text = self.llm_api(params, f"Bearer {self.requests[-1].app_id}")
            headers = {"Content-Type": _TEXT}
        else:
            status, text = 200, self.full_results(params, url.params.get_list("podstate"))
            headers = {"Content-Type": _XML}
        if failure == "truncated":
            return httpx.Response(status, text=text[: len(text) // 2], headers=headers)
        if failure == "slow":
            return httpx.Response(status, stream=_Slowly(self, text.encode()), headers=headers)
        return httpx.Response(status, text=text, headers=headers)

    def _failure(self, failure: int | Exception | str) -> httpx.Response:
        if isinstance(failure, Exception):
            raise failure
        if isinstance(failure, str):
            return self._named_failure(failure)
        headers = {"Content-Type": _TEXT}
        if failure in (429, 503) and self.retry_after is not None:
            headers["Retry-After"] = str(self.retry_after)
        return httpx.Response(failure, text=HTTPStatus(failure).phrase, headers=headers)

    def _named_failure(self, kind: str) -> httpx.Response:
        if kind == "html":
            return httpx.Response(200, text=_HTML, headers={"Content-Type": "text/html"})
        if kind == "no-root":
            return httpx.Response(200, text=_NO_ROOT, headers={"Content-Type": _XML})
        if kind == "empty":
            api = self.requests[-1].api
            return httpx.Response(
                200, content=b"", headers={"Content-Type": _TEXT if api == "llm" else _XML}
            )
        if kind == "xml-bomb":
            return httpx.Response(200, text=_XML_BOMB, headers={"Content-Type": _XML})
        if kind == "huge":
            return httpx.Response(
                200, stream=_Huge(self.huge_bytes), headers={"Content-Type": _XML}
            )
        raise ValueError(f"unknown failure kind {kind!r}; the kinds are {sorted(FAILURE_KINDS)}")

    # -- the LLM API ---------------------------------------------------------------

    def llm_api(self, params: Mapping[str, str], authorization: str) -> tuple[int, str]:
        """Answer one LLM API request: ``(status, text)``."""
        app_id = _bearer(authorization) or params.get("appid", "")
        if not self._accepts(app_id):
            return 403, "Error 1: Invalid appid"
        query = " ".join(params.get("input", params.get("i", "")).split())
        if not query:
            return 400, "Error: No input.  Please specify the input using the 'input' parameter."
        assumption = params.get("assumption", "")
        name = LLM_ANSWERS.get((query.lower(), assumption)) or LLM_ANSWERS.get((query.lower(), ""))
        if name is not None:
            return 200, (_DATA / name).read_text(encoding="utf-8")
        if _key(query) in self.answers:
            return 200, self.answers[_key(query)]
        value = arithmetic.evaluate(query)
        if value is None:
            tips = "\n".join(word for word in query.split() if len(word) > 3)
            return (
                501,
                f"Wolfram|Alpha could not understand: {query}.\nThings to try instead:\n{tips}",
            )
        sections = [("Input", query), *arithmetic.describe(value, "." in query)]
        body = "\n\n".join(f"{title}:\n{text}" for title, text in sections)
        link = f"https://www.wolframalpha.com/input?i={quote_plus(query)}"
        return (
            200,
            f'Query:\n"{query}"\n\n{body}\n\nWolfram|Alpha website result for "{query}":\n{link}',
        )

    # -- the Full Results API ---------------------------------------------------------

    def full_results(self, params: Mapping[str, str], podstates: Sequence[str] = ()) -> str:
        """Answer one Full Results API request with its XML.

        ``format`` keeps only the formats asked (``plaintext``, ``image``); each of
        ``podstates`` is applied as Wolfram applies it (see :data:`STEPS`).
        """
        if not self._accepts(params.get("appid", "")):
            return _INVALID_APPID
        query = " ".join(params.get("input", "").split())
        name = FULL_RESULTS.get(query.lower())
        if name is not None:
            root = ET.fromstring((_DATA / name).read_bytes())
        else:
            value = arithmetic.evaluate(query)
            sections = (
                []
                if value is None
                else [("Input", query), *arithmetic.describe(value, "." in query)]
            )
            root = _queryresult(query, sections)
        for state in podstates:
            self._apply_state(root, query, state)
        formats = {f.strip() for f in params.get("format", "plaintext,image").split(",")}
        for subpod in root.iter("subpod"):
            for kind in ("plaintext", "img"):
                if {"img": "image"}.get(kind, kind) not in formats:
                    for found in subpod.findall(kind):
                        subpod.remove(found)
        title = params.get("podtitle")
        if title:
            for pod in root.findall("pod"):
                if not fnmatchcase(pod.get("title", ""), title):
                    root.remove(pod)
            root.set("numpods", str(len(root.findall("pod"))))
        return ET.tostring(root, encoding="unicode", xml_declaration=True)

    def _apply_state(self, root: ET.Element, query: str, state: str) -> None:
        """Show the steps of the first pod offering ``state`` (a step-by-step one).

        ``state`` is a state's name (``Step-by-step solution``) or its input
        (``IndefiniteIntegral__Step-by-step solution``). Shown, the steps are a subpod
        "Possible intermediate steps" and the state becomes ``Hide steps``; without
        ``step_by_step`` (an AppID not entitled) nothing changes.
        """
        pod_id, _, name = state.rpartition("__")
        for pod in root.findall("pod"):
            if pod_id and pod.get("id") != pod_id:
                continue
            offered = pod.find(f"states/state[@name='{name}']") if "'" not in name else None
            if offered is None:
                continue
            steps = STEPS.get((query.lower(), pod.get("id", "")))
            if offered.get("stepbystep") != "true" or steps is None or not self.step_by_step:
                return
            subpod = ET.SubElement(pod, "subpod", {"title": "Possible intermediate steps"})
            _image(subpod, steps)
            ET.SubElement(subpod, "plaintext").text = steps
            pod.set("numsubpods", str(len(pod.findall("subpod"))))
            offered.set("name", "Hide steps")
            offered.set("input", f"{pod.get('id')}__Hide steps")
            return

    def _accepts(self, app_id: str) -> bool:
        return bool(app_id) and (self.app_ids is None or app_id in self.app_ids)


class _Slowly(httpx.SyncByteStream):
    """A body that arrives a few bytes at a time, each after ``fake.slow_seconds``."""

    def __init__(self, fake: FakeWolframAlpha, body: bytes) -> None:
        self.fake = fake
        self.body = body

    def __iter__(self) -> Iterator[bytes]:
        size = max(1, self.fake.slow_chunk_bytes)
        for start in range(0, len(self.body), size):
            threading.Event().wait(self.fake.slow_seconds)
            yield self.body[start : start + size]


class _Huge(httpx.SyncByteStream):
    """A body of ``size`` bytes, made as it is read (no Content-Length)."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __iter__(self) -> Iterator[bytes]:
        chunk = b"9" * 65536
        for start in range(0, self.size, len(chunk)):
            yield chunk[: self.size - start]


def _bearer(authorization: str) -> str:
    """The AppID of an ``Authorization: Bearer <AppID>`` header, as the LLM API reads it."""
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme == "Bearer" else ""


def _key(query: str) -> str:
    return " ".join(query.split()).lower()


def _queryresult(query: str, sections: list[tuple[str, str]]) -> ET.Element:
    success = "true" if sections else "false"
    root = ET.Element(
        "queryresult",
        {"success": success, "error": "false", "numpods": str(len(sections)), "version": "2.6"},
    )
    root.set("inputstring", query)
    for position, (title, text) in enumerate(sections, start=1):
        pod = ET.SubElement(
            root,
            "pod",
            {"title": title, "id": title.replace(" ", ""), "position": str(100 * position)},
        )
        pod.set("numsubpods", "1")
        subpod = ET.SubElement(pod, "subpod", {"title": ""})
        _image(subpod, text)
        ET.SubElement(subpod, "plaintext").text = text
    return root


def _image(subpod: ET.Element, text: str) -> None:
    """The ``<img>`` Wolfram sends for a subpod's content (a GIF on its own host)."""
    name = f"MSP{zlib.crc32(text.encode()):08x}{len(text):04d}"
    ET.SubElement(
        subpod,
        "img",
        {
            "src": f"{_IMAGE_HOST}{name}?MSPStoreType=image/gif&s=6",
            "alt": text,
            "title": text,
            "width": str(min(500, 7 * len(text))),
            "height": str(19 * (text.count("\n") + 1)),
            "type": "Default",
            "contenttype": "image/gif",
        },
    )
