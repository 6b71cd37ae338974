"""An offline Wolfram|Alpha for tests and demos: both APIs the spec uses, no AppID needed.

:class:`FakeWolframAlpha` answers the LLM API (through a ``requests`` session) and the
Full Results API (through an httpx transport) from bundled recordings and exact
arithmetic, and records every request::

    from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec
    from toolspecs.specs.wolfram_alpha.testing import FakeWolframAlpha

    wolfram = FakeWolframAlpha()
    spec = WolframAlphaToolSpec(
        app_id="offline", session=wolfram.session(), transport=wolfram.transport()
    )
    spec.wolfram_alpha_query("(7 * 12 ^ 10) / 321")  # the LlamaHub blog's example
    wolfram.requests[-1].params  # what the spec sent
"""

from toolspecs.specs.wolfram_alpha.testing.fake import (
    FULL_RESULTS,
    LLM_ANSWERS,
    FakeWolframAlpha,
    Request,
)

__all__ = ["FULL_RESULTS", "LLM_ANSWERS", "FakeWolframAlpha", "Request"]
