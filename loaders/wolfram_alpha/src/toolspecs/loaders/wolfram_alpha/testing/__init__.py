"""An offline Wolfram|Alpha for tests and demos: both APIs the client uses, no AppID needed.

:class:`FakeWolframAlpha` answers the LLM API and the Full Results API through one
httpx transport, from bundled recordings and exact arithmetic, and records every
request::

    from toolspecs.loaders.wolfram_alpha import WolframAlphaReader
    from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha
    from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec

    wolfram = FakeWolframAlpha()
    spec = WolframAlphaToolSpec(app_id="offline", transport=wolfram.transport())
    spec.wolfram_alpha_query("(7 * 12 ^ 10) / 321")  # the LlamaHub blog's example
    wolfram.requests[-1].params  # what the spec sent
    wolfram.fail.append(503)  # the next request fails: test your retries and guidance
    wolfram.fail += ["html", "slow"]  # a 200 with a web page, then a body that trickles
    WolframAlphaReader(app_id="offline", transport=wolfram.transport()).load_data("pi")
    FakeWolframAlpha(step_by_step=False)  # an AppID not entitled to step-by-step results

:class:`WolframAlphaServer` runs the same fake as a real HTTP server on 127.0.0.1 (both
APIs), for clients built as users build them, pointed at it with ``base_url=``::

    with WolframAlphaServer(FakeWolframAlpha(app_ids={"MY-APP-ID"})) as server:
        spec = WolframAlphaToolSpec(app_id="MY-APP-ID", base_url=server.url)
        spec.wolfram_alpha_query("pi")
"""

from toolspecs.loaders.wolfram_alpha.testing.fake import (
    FAILURE_KINDS,
    FULL_RESULTS,
    LLM_ANSWERS,
    STEPS,
    FakeWolframAlpha,
    Request,
)
from toolspecs.loaders.wolfram_alpha.testing.wire import WolframAlphaServer

__all__ = [
    "FAILURE_KINDS",
    "FULL_RESULTS",
    "LLM_ANSWERS",
    "STEPS",
    "FakeWolframAlpha",
    "Request",
    "WolframAlphaServer",
]
