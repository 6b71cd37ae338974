import types

import toolspecs.adapters
import toolspecs.agents
import toolspecs.core
import toolspecs.loaders.arxiv
import toolspecs.loaders.arxiv.testing
import toolspecs.loaders.google
import toolspecs.loaders.google.testing
import toolspecs.loaders.wolfram_alpha
import toolspecs.loaders.wolfram_alpha.testing
import toolspecs.specs.arxiv
import toolspecs.specs.gmail
import toolspecs.specs.google_base
import toolspecs.specs.google_calendar
import toolspecs.specs.wolfram_alpha
import toolspecs.specs.wolfram_alpha.testing


def public_names(module):
    # dir(), not vars(): a package may load some names on first use (PEP 562 __getattr__
    # and __dir__, as toolspecs.loaders.arxiv does).
    return {
        name
        for name in dir(module)
        if not name.startswith("_") and not isinstance(getattr(module, name), types.ModuleType)
    }


def test_all_lists_exactly_what_is_public():
    for module in (
        toolspecs.adapters,
        toolspecs.agents,
        toolspecs.core,
        toolspecs.loaders.arxiv,
        toolspecs.specs.arxiv,
        toolspecs.specs.wolfram_alpha,
        toolspecs.loaders.google,
        toolspecs.specs.google_calendar,
        toolspecs.loaders.google.testing,
        toolspecs.specs.gmail,
        toolspecs.specs.google_base,
        toolspecs.loaders.arxiv.testing,
        toolspecs.specs.wolfram_alpha.testing,
        toolspecs.loaders.wolfram_alpha,
        toolspecs.loaders.wolfram_alpha.testing,
    ):
        assert set(module.__all__) == public_names(module), module.__name__


def test_core_testing_is_imported_by_module_not_re_exported():
    # The scripted LLM is for tests: `toolspecs.core` itself does not load it.
    import toolspecs.core.testing

    assert toolspecs.core.testing.__all__ == [
        "Reply",
        "ScriptExhausted",
        "ScriptedLLM",
        "ToolCall",
        "Turn",
    ]
    assert all(hasattr(toolspecs.core.testing, name) for name in toolspecs.core.testing.__all__)
    assert not set(toolspecs.core.testing.__all__) & set(toolspecs.core.__all__)
