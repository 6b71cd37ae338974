"""Importing the specs, and building their tools, loads only what that needs (issue 14).

dateparser (a fallback of time parsing), httpx, wolframalpha and xmltodict (Wolfram's Full
Results API, or any request through a test transport) cost about 180 ms of CPU at import,
more than the rest of the specs together: they are imported by the call that needs them.
The arxiv package and lxml (about 20 ms) load when an arXiv spec is made or an HTML mail
is read, not at import.
The standard library's email.policy (its header registry and address parser) and email.mime
(about 3 ms) load when a mail's addresses are parsed or a draft is written, difflib when an
argument is misspelt, http.server when a person signs in with a browser, expat with
xmltodict, the PDF reader's module with the reader; the
regular expressions that cost most to compile (Unicode classes, about 6 ms together) are
compiled on first use.
A fresh interpreter is the only honest place to look (the test session has loaded them all).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

LAZY = (
    "dateparser",
    "httpx",
    "wolframalpha",
    "xmltodict",
    "googleapiclient.discovery",
    "tiktoken",
    "email.policy",
    "email.headerregistry",
    "email.mime.multipart",
    "email.mime.text",
    "difflib",
    "xml.parsers.expat",
    "http.server",
)
# Not loaded by the import, but by making the spec that uses them.
UNTIL_MADE = (
    "arxiv",
    "lxml.etree",
    "toolspecs.loaders.arxiv.client",
    "toolspecs.loaders.pdf.pdftext",
)
# Regular expressions compiled on first use (module, accessor): none is compiled by the
# import or by building the tools.
PATTERNS = (
    ("toolspecs.core.clock", "_wordy"),
    ("toolspecs.core.clock", "_numeric_time"),
    ("toolspecs.core.fence", "_invisible"),
    ("toolspecs.loaders.arxiv.query", "_url"),
    ("toolspecs.loaders.arxiv.query", "_bare"),
    ("toolspecs.loaders.google.html_text", "_hiding_style"),
    ("toolspecs.loaders.google.mail", "_mailbox"),
    ("toolspecs.specs.gmail.compose", "_line_breaks"),
)

CHILD = textwrap.dedent(
    """
    import json, sys
    # What llama-index-core loads itself (on Python 3.10 its Pillow brings in expat through
    # defusedxml) is not ours to defer: only what toolspecs adds is measured.
    import llama_index.core.tools
    floor = [m for m in {lazy!r} + {until_made!r} if m in sys.modules]
    lazy = tuple(m for m in {lazy!r} if m not in floor)
    seen = {{"loaded by llama-index-core itself": floor}}
    import toolspecs.specs.arxiv, toolspecs.specs.gmail
    import toolspecs.specs.google_calendar, toolspecs.specs.wolfram_alpha
    seen["import"] = [m for m in lazy + {until_made!r} if m in sys.modules and m not in floor]

    def compiled():
        # An accessor that is not there is a pattern compiled at import.
        return [
            f"{{module}}.{{name}}"
            for module, name in {patterns!r}
            if not hasattr(sys.modules[module], name)
            or getattr(sys.modules[module], name).cache_info().currsize
        ]

    seen["compiled at import"] = compiled()
    from toolspecs.specs.arxiv import ArxivToolSpec
    from toolspecs.specs.gmail import GmailToolSpec
    from toolspecs.specs.google_calendar import GoogleCalendarToolSpec
    from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec
    for cls in (ArxivToolSpec, GmailToolSpec, GoogleCalendarToolSpec, WolframAlphaToolSpec):
        tools = cls().to_tool_list()
        assert tools, cls
        seen[cls.__name__] = [m for m in lazy if m in sys.modules]
    seen["compiled by to_tool_list"] = compiled()
    print(json.dumps(seen))
    """
)


def _loaded() -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(lazy=LAZY, until_made=UNTIL_MADE, patterns=PATTERNS)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_specs_import_and_build_their_tools_without_the_call_time_libraries() -> None:
    loaded = _loaded()
    # Nothing toolspecs defers is one of llama-index-core's own imports, but for expat on
    # the Pythons whose Pillow imports defusedxml (3.10 today).
    assert set(loaded.pop("loaded by llama-index-core itself")) <= {"xml.parsers.expat"}
    assert loaded == {
        "import": [],
        "compiled at import": [],
        "ArxivToolSpec": [],
        "GmailToolSpec": [],
        "GoogleCalendarToolSpec": [],
        "WolframAlphaToolSpec": [],
        "compiled by to_tool_list": [],
    }
