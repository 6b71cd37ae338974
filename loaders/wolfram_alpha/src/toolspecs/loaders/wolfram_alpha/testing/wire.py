"""``WolframAlphaServer``: the offline Wolfram|Alpha as a real HTTP server on 127.0.0.1.

Both APIs the client uses, under one base URL, answered by a
:class:`~toolspecs.loaders.wolfram_alpha.testing.FakeWolframAlpha`: the LLM API at
``/api/v1/llm-api`` (text; the AppID from ``Authorization: Bearer`` or ``appid``) and
the Full Results API at ``/v2/query`` (XML; the AppID from ``appid``). The fake checks
the AppID as Wolfram does: one outside its ``app_ids`` gets HTTP 403 ``Error 1: Invalid
appid`` from the LLM API and ``<error><msg>Invalid appid</msg></error>`` from the Full
Results API. A user's client reaches it as it reaches Wolfram (``requests.get`` for the
LLM API, httpx for the Full Results API), pointed at it with the base-URL option::

    from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha, WolframAlphaServer
    from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec

    with WolframAlphaServer(FakeWolframAlpha(app_ids={"MY-APP-ID"})) as wolfram:
        spec = WolframAlphaToolSpec(app_id="MY-APP-ID", base_url=wolfram.url)
        spec.wolfram_alpha_query("(7 * 12 ^ 10) / 321")
        wolfram.fake.requests[-1].app_id  # what arrived
        wolfram.fake.fail.append(503)  # the same failures, on the wire

Its Full Results link images on Wolfram's image hosts, as a mirror passing Wolfram's XML
through would; ``images_here=True`` rewrites them to this server's URL, as a mirror
serving the images itself would.

A failure given as an exception (``fake.fail.append(httpx.ReadTimeout("x"))``) closes
the connection without an answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx

from toolspecs.base.net.testing import LoopbackServer, WireAnswer, WireRequest
from toolspecs.loaders.wolfram_alpha.testing.fake import FakeWolframAlpha

__all__ = ["WolframAlphaServer"]

# Where each path of the server is answered by the fake, as Wolfram's hosts serve them.
_HOSTS = {
    "/api/v1/llm-api": "https://www.wolframalpha.com",
    "/v2/query": "https://api.wolframalpha.com",
}
_HOP_BY_HOP = frozenset({"connection", "transfer-encoding", "content-encoding"})
_IMAGE_HOSTS = re.compile(rb"https://(?:www|public)[0-9a-z]*\.wolframalpha\.com/")


class WolframAlphaServer(LoopbackServer):
    """Wolfram|Alpha's LLM API and Full Results API on a free port of 127.0.0.1.

    Args:
        fake: The ``FakeWolframAlpha`` that answers (its AppIDs, answers and failures);
            default a new one, which takes any non-empty AppID.
        images_here: Rewrite the Full Results' image links (Wolfram's image hosts) to
            this server's URL.
        prefix: A path to serve both APIs under, e.g. ``"/wolfram"``, as a mirror may.
        gzip: Send answers gzip-compressed to clients that accept it, as Wolfram does.

    Attributes:
        fake: The fake answering: ``fake.requests`` holds every request that arrived.
    """

    def __init__(
        self,
        fake: FakeWolframAlpha | None = None,
        *,
        images_here: bool = False,
        prefix: str = "",
        gzip: bool = False,
    ) -> None:
        super().__init__(self._answer, prefix=prefix, gzip=gzip)
        self.fake = fake if fake is not None else FakeWolframAlpha()
        self.images_here = images_here

    def __enter__(self) -> WolframAlphaServer:
        self.start()
        return self

    def _answer(self, request: WireRequest) -> WireAnswer | None:
        origin = _HOSTS.get(request.path, "https://elsewhere.invalid")
        query = f"?{request.query}" if request.query else ""
        headers = {k: v for k, v in request.headers.items() if k.lower() != "host"}
        asked = httpx.Request("GET", f"{origin}{request.path}{query}", headers=headers)
        try:
            response = self.fake.handle(asked)
        except Exception:  # a failure given as an exception: the connection drops
            return None
        sent = {k.lower(): v for k, v in response.headers.items() if k.lower() not in _HOP_BY_HOP}
        body = _chunks(response)
        if self.images_here and "xml" in sent.get("content-type", ""):
            content = _IMAGE_HOSTS.sub(f"{self.url}/".encode(), b"".join(body))
            sent["content-length"] = str(len(content))
            body = iter([content])
        return WireAnswer(response.status_code, sent, body)


def _chunks(response: httpx.Response) -> Iterator[bytes]:
    """The fake's body as it makes it (slowly, or larger than memory would like)."""
    try:
        try:
            yield response.content  # a body given whole (``text=``)
        except httpx.ResponseNotRead:  # a stream: as it comes
            yield from response.iter_raw()
    finally:
        response.close()
