"""toolspecs.specs.wolfram_alpha: Wolfram|Alpha tools, a drop-in for LlamaHub's."""

from toolspecs.loaders.wolfram_alpha import APP_ID_ENV
from toolspecs.specs.wolfram_alpha.base import WolframAlphaToolSpec

__all__ = ["APP_ID_ENV", "WolframAlphaToolSpec"]
