"""Failure templates: a value echoed with ``!r`` is shown cut short, as bounds.shown does."""

from __future__ import annotations

from toolspecs.core import Failure, FailureTable, FixArguments
from toolspecs.core.bounds import SHOWN_CHARS, shown


class Unknown(LookupError):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


TABLE = FailureTable(Failure(Unknown, FixArguments, "Nothing is called {exc.name!r}."))


def test_a_short_echo_is_the_repr():
    guidance = TABLE.guidance(Unknown("quokka"))
    assert guidance.text.startswith("Nothing is called 'quokka'.")


def test_a_long_echo_is_cut_with_an_ellipsis():
    name = "q" * 10_000
    guidance = TABLE.guidance(Unknown(name))
    assert guidance.text.startswith(f"Nothing is called {shown(name)}.")
    assert len(shown(name)) == SHOWN_CHARS
    assert shown(name).endswith("…")


def test_other_conversions_are_untouched():
    table = FailureTable(Failure(Unknown, FixArguments, "{exc.name!s} / {exc.name}"))
    assert table.guidance(Unknown("x" * 100)).text.startswith(f"{'x' * 100} / {'x' * 100}")
