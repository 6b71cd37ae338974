"""``FakeWolframAlpha``: both Wolfram|Alpha APIs the client uses, answered offline.

One httpx transport (:meth:`FakeWolframAlpha.transport`) serves the LLM API and the
Full Results API, as ``WolframAlphaClient`` reaches them. Answers come from bundled
recordings (the LlamaHub blog's example, ``pi`` and its movie meaning, the boiling
point of water, the speed of light), exact arithmetic for any other plain expression,
and otherwise Wolfram's "could not understand" reply; an AppID outside ``app_ids``
is refused as Wolfram refuses it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from http import HTTPStatus
from importlib.resources import files
from urllib.parse import quote_plus

import httpx

from toolspecs.loaders.wolfram_alpha.testing import arithmetic

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
FULL_RESULTS = {"pi": "full_pi.xml", "francee populaton": "full_francee_populaton.xml"}
"""Bundled Full Results API answers by query in lower case."""
_XML = "text/xml; charset=utf-8"
_TEXT = "text/plain; charset=utf-8"
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


class FakeWolframAlpha:
    """Wolfram|Alpha offline, for ``WolframAlphaToolSpec(transport=fake.transport())``.

    Args:
        answers: More LLM API answers (text as Wolfram writes it) by query.
        app_ids: The AppIDs it accepts; ``None`` accepts any non-empty one.

    Attributes:
        requests: Every request received, in order.
        fail: What to answer the next requests (of either API) with instead: an HTTP
            status, e.g. ``[503]``, or an exception for the transport to raise, e.g.
            ``[httpx.ReadTimeout("slow")]``.
        retry_after: The ``Retry-After`` seconds sent with a failure of status 429 or
            503 (``None``: no header).
    """

    def __init__(
        self, answers: Mapping[str, str] | None = None, app_ids: Collection[str] | None = None
    ) -> None:
        self.answers = {_key(q): text for q, text in (answers or {}).items()}
        self.app_ids = app_ids
        self.requests: list[Request] = []
        self.fail: list[int | Exception] = []
        self.retry_after: int | None = 30

    def transport(self) -> httpx.MockTransport:
        """An httpx transport this fake answers: both APIs, as the client reaches them."""
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        """Answer one request (the transport's handler); record it first."""
        url = request.url
        params = dict(url.params)
        if url.host == "www.wolframalpha.com" and url.path == "/api/v1/llm-api":
            app_id = _bearer(request.headers.get("Authorization", "")) or params.get("appid", "")
            self.requests.append(Request("llm", params, app_id))
        elif url.host == "api.wolframalpha.com" and url.path == "/v2/query":
            self.requests.append(Request("full", params, params.get("appid", "")))
        else:
            return httpx.Response(404, text="Not Found")
        if self.fail:
            return self._failure(self.fail.pop(0))
        if self.requests[-1].api == "llm":
            status, text = self.llm_api(params, f"Bearer {self.requests[-1].app_id}")
            return httpx.Response(status, text=text, headers={"Content-Type": _TEXT})
        return httpx.Response(200, text=self.full_results(params), headers={"Content-Type": _XML})

    def _failure(self, failure: int | Exception) -> httpx.Response:
        if isinstance(failure, Exception):
            raise failure
        headers = {"Content-Type": _TEXT}
        if failure in (429, 503) and self.retry_after is not None:
            headers["Retry-After"] = str(self.retry_after)
        return httpx.Response(failure, text=HTTPStatus(failure).phrase, headers=headers)

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

    def full_results(self, params: Mapping[str, str]) -> str:
        """Answer one Full Results API request with its XML."""
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
        title = params.get("podtitle")
        if title:
            for pod in root.findall("pod"):
                if not fnmatchcase(pod.get("title", ""), title):
                    root.remove(pod)
            root.set("numpods", str(len(root.findall("pod"))))
        return ET.tostring(root, encoding="unicode", xml_declaration=True)

    def _accepts(self, app_id: str) -> bool:
        return bool(app_id) and (self.app_ids is None or app_id in self.app_ids)


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
        ET.SubElement(ET.SubElement(pod, "subpod", {"title": ""}), "plaintext").text = text
    return root
