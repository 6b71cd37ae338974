"""Child of schema_tokens.py, run with `uv run --frozen python bench/_dump_toolspecs.py`.

Dumps the OpenAI tool JSON of every spec registered with toolspecs.core.
"""

from __future__ import annotations

import traceback
from typing import Any

from _dump_common import dump_tools, emit, versions

# Tried only when a spec cannot be built from the environment alone: dummies, never used
# for a call (building a spec must not touch the network).
DUMMY_KWARGS: dict[str, dict[str, Any]] = {
    "wolfram_alpha": {"app_id": "x"},
}


def _build(name: str, load_spec: Any) -> Any:
    try:
        return load_spec(name)
    except Exception:
        if name not in DUMMY_KWARGS:
            raise
        return load_spec(name, **DUMMY_KWARGS[name])


def main() -> None:
    try:
        from toolspecs.core import list_specs, load_spec
    except ImportError as exc:
        emit({"import_error": f"{type(exc).__name__}: {exc}", "versions": {}, "specs": {}})
        return
    specs: dict[str, dict[str, Any]] = {}
    for name in list_specs():
        entry: dict[str, Any] = {"tools": None, "error": None}
        try:
            entry["tools"] = dump_tools(_build(name, load_spec))
        except Exception as exc:
            entry["error"] = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
        specs[name] = entry
    emit({"versions": versions("toolspecs-core", "llama-index-core"), "specs": specs})


if __name__ == "__main__":
    main()
