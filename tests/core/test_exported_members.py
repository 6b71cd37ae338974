import types

import toolspecs.core
import toolspecs.loaders.arxiv
import toolspecs.loaders.google
import toolspecs.loaders.google.testing
import toolspecs.specs.arxiv
import toolspecs.specs.gmail
import toolspecs.specs.google_calendar
import toolspecs.specs.wolfram_alpha


def public_names(module):
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }


def test_all_lists_exactly_what_is_public():
    for module in (
        toolspecs.core,
        toolspecs.loaders.arxiv,
        toolspecs.specs.arxiv,
        toolspecs.specs.wolfram_alpha,
        toolspecs.loaders.google,
        toolspecs.specs.google_calendar,
        toolspecs.loaders.google.testing,
        toolspecs.specs.gmail,
    ):
        assert set(module.__all__) == public_names(module), module.__name__
