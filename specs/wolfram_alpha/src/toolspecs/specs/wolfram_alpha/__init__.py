"""toolspecs.specs.wolfram_alpha: Wolfram|Alpha tools, a drop-in for LlamaHub's."""

from toolspecs.specs.wolfram_alpha.base import APP_ID_ENV, WolframAlphaToolSpec

__all__ = ["APP_ID_ENV", "WolframAlphaToolSpec"]
