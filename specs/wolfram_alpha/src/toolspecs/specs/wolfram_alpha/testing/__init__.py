"""Moved to :mod:`toolspecs.loaders.wolfram_alpha.testing`, beside the client it fakes."""

from toolspecs.loaders.wolfram_alpha.testing import *  # noqa: F403
from toolspecs.loaders.wolfram_alpha.testing import __all__ as __all__
