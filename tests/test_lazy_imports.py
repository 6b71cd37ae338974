"""Importing the specs, and building their tools, loads only what that needs (issue 14).

dateparser (a fallback of time parsing), httpx, wolframalpha and xmltodict (Wolfram's Full
Results API, or any request through a test transport) cost about 180 ms of CPU at import,
more than the rest of the specs together: they are imported by the call that needs them.
The arxiv package and lxml (about 20 ms) load when an arXiv spec is made or an HTML mail
is read, not at import.
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
)
# Not loaded by the import, but by making the spec that uses them.
UNTIL_MADE = ("arxiv", "lxml.etree", "toolspecs.loaders.arxiv.client")

CHILD = textwrap.dedent(
    """
    import json, sys
    lazy = {lazy!r}
    seen = {{}}
    import toolspecs.specs.arxiv, toolspecs.specs.gmail
    import toolspecs.specs.google_calendar, toolspecs.specs.wolfram_alpha
    seen["import"] = [m for m in lazy + {until_made!r} if m in sys.modules]
    from toolspecs.specs.arxiv import ArxivToolSpec
    from toolspecs.specs.gmail import GmailToolSpec
    from toolspecs.specs.google_calendar import GoogleCalendarToolSpec
    from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec
    for cls in (ArxivToolSpec, GmailToolSpec, GoogleCalendarToolSpec, WolframAlphaToolSpec):
        tools = cls().to_tool_list()
        assert tools, cls
        seen[cls.__name__] = [m for m in lazy if m in sys.modules]
    print(json.dumps(seen))
    """
)


def _loaded() -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(lazy=LAZY, until_made=UNTIL_MADE)],
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
    assert loaded == {
        "import": [],
        "ArxivToolSpec": [],
        "GmailToolSpec": [],
        "GoogleCalendarToolSpec": [],
        "WolframAlphaToolSpec": [],
    }
