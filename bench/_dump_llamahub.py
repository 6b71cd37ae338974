"""Child of schema_tokens.py, run with bench/.venv-llamahub's python: dump LlamaHub tool JSON.

The constructors below only store their arguments (checked in the pinned sources): no network,
no OAuth flow, no file reads. Credentials are only touched when a tool is called.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from _dump_common import dump_tools, emit, versions


def _arxiv() -> Any:
    from llama_index.tools.arxiv import ArxivToolSpec

    return ArxivToolSpec()


def _wolfram_alpha() -> Any:
    from llama_index.tools.wolfram_alpha import WolframAlphaToolSpec

    return WolframAlphaToolSpec(app_id="x")


def _google_calendar() -> Any:
    from llama_index.tools.google import GoogleCalendarToolSpec

    return GoogleCalendarToolSpec()


def _gmail() -> Any:
    from llama_index.tools.google import GmailToolSpec

    return GmailToolSpec()


# Our spec name -> (LlamaHub class name, factory).
SPECS: dict[str, tuple[str, Callable[[], Any]]] = {
    "arxiv": ("ArxivToolSpec", _arxiv),
    "wolfram_alpha": ("WolframAlphaToolSpec", _wolfram_alpha),
    "google_calendar": ("GoogleCalendarToolSpec", _google_calendar),
    "gmail": ("GmailToolSpec", _gmail),
}


def main() -> None:
    specs: dict[str, dict[str, Any]] = {}
    for name, (class_name, factory) in SPECS.items():
        entry: dict[str, Any] = {"class": class_name, "tools": None, "error": None}
        try:
            entry["tools"] = dump_tools(factory())
        except Exception as exc:
            entry["error"] = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
        specs[name] = entry
    emit(
        {
            "versions": versions(
                "llama-index-core",
                "llama-index-tools-arxiv",
                "llama-index-tools-wolfram-alpha",
                "llama-index-tools-google",
            ),
            "specs": specs,
        }
    )


if __name__ == "__main__":
    main()
