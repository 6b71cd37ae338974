"""One place per foreign internal (STYLE.md 21): the compat modules, their banners and tests.

Every ``compat`` module of the source opens with a "Brittle:" banner naming the test that
checks its internals against the pinned versions, and that test exists; the internals
they hold are touched nowhere else in the source.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [
    ROOT / "base" / "src",
    ROOT / "core" / "src",
    ROOT / "server" / "src",
    *(ROOT / "loaders").glob("*/src"),
    *(ROOT / "specs").glob("*/src"),
]


def compat_modules() -> list[Path]:
    found = []
    for source in SOURCES:
        for path in source.rglob("*.py"):
            if "testing" in path.parts:
                continue
            if path.name.startswith("compat_") or (
                path.parent.name == "compat" and path.name != "__init__.py"
            ):
                found.append(path)
    return sorted(found)


def source_modules() -> list[Path]:
    """Every other source module (the compat package's index, which names them, aside)."""
    compat = set(compat_modules())
    return sorted(
        path
        for source in SOURCES
        for path in source.rglob("*.py")
        if "testing" not in path.parts and path not in compat and path.parent.name != "compat"
    )


def test_there_is_a_compat_module_per_library_we_lean_on():
    names = {path.stem.removeprefix("compat_") for path in compat_modules()}
    assert {
        "bm25s",
        "requests",
        "googleapiclient",
        "httplib2",
        "wolframalpha",
        "arxiv",
        "langchain",
        "smolagents",
        "lagent",
        "llama_index",
        "mcp",
    } <= names


@pytest.mark.parametrize("path", compat_modules(), ids=lambda p: p.stem)
def test_each_compat_module_has_its_banner_and_its_test(path):
    text = path.read_text(encoding="utf-8")
    assert text.startswith('"""Brittle: '), f"{path.name}: no 'Brittle:' banner"
    named = re.search(r"``(tests/[\w/]+\.py)``", text)
    assert named, f"{path.name}: its banner names no test"
    assert (ROOT / named.group(1)).is_file(), f"{path.name}: {named.group(1)} is missing"


# What only a compat module may touch: each internal its banner lists.
INTERNALS = {
    "requests' _content": r"\._content(_consumed)?\b",
    "googleapiclient's postproc": r"\.postproc\b",
    "googleapiclient's _batch_uri": r"_batch_uri\b",
    "wolframalpha's Document.make": r"Document\.make\b",
    "arxiv's private steps": r"\b_session\b|_format_url\b|_parse_feed\b|\b_feed\.",
    "LangChain's _to_args_and_kwargs": r"_to_args_and_kwargs\b",
    "mcp's ServerSession._connection": r"[\"']_connection[\"']|\._connection\b",
    "the routes of mcp's Starlette app": r"\.router\.routes\b",
    "Lagent's _is_toolkit": r"_is_toolkit\b",
    "smolagents' skip_forward_signature_validation": r"skip_forward_signature_validation",
    "llama-index OpenAI's _client": r"(?<!self)\._a?client\b",
    "httplib2's wording": r"Unable to find the server at",
}


@pytest.mark.parametrize("internal", INTERNALS)
def test_no_other_source_module_touches_an_internal(internal):
    pattern = re.compile(INTERNALS[internal])
    touching = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in source_modules()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not touching, f"{internal} outside its compat module: {touching}"
