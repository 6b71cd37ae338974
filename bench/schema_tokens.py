"""Token cost of each spec's OpenAI tool JSON, toolspecs vs the same-named LlamaHub package.

Run from anywhere (it needs the workspace env for the tokenizer):

    uv run --frozen python bench/schema_tokens.py [--json]

The LlamaHub packages pin old dependencies (llama-index-tools-arxiv wants arxiv<3), so they
live in a venv of their own, bench/.venv-llamahub, created on first run with `uv venv` and
`uv pip install`; the workspace lock is never touched. Each side is dumped by a child process
in its own env; tokens are counted here, with llama-index's bundled cl100k_base tokenizer,
over `json.dumps(tool_json)` per tool. Ratios are toolspecs / LlamaHub: below 1 means we are
cheaper in the prompt.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
VENV = BENCH / ".venv-llamahub"
LLAMAHUB_PINS = (
    "llama-index-tools-arxiv==0.6.0",
    "llama-index-tools-wolfram-alpha==0.7.0",
    "llama-index-tools-google==0.8.0",
)
DASH = "—"


def fail(message: str) -> NoReturn:
    print(f"schema_tokens: error: {message}", file=sys.stderr)
    sys.exit(1)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def _run(cmd: Sequence[str | Path], what: str) -> str:
    try:
        done = subprocess.run(
            [str(c) for c in cmd], cwd=ROOT, capture_output=True, text=True, check=False
        )
    except OSError as exc:
        fail(f"{what}: cannot run {cmd[0]}: {exc}")
    if done.returncode != 0:
        fail(f"{what} failed (exit {done.returncode}): {_last_line(done.stderr or done.stdout)}")
    return done.stdout


def _venv_python() -> Path:
    if sys.platform == "win32":
        return VENV / "Scripts" / "python.exe"
    return VENV / "bin" / "python"


def ensure_llamahub_venv(uv: str) -> Path:
    python = _venv_python()
    if not python.exists():
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        _run([uv, "venv", "--quiet", "--python", version, VENV], "creating bench/.venv-llamahub")
    # A no-op (no network) once the pins are satisfied; upgrades the venv when they change.
    _run(
        [uv, "pip", "install", "--quiet", "--python", python, *LLAMAHUB_PINS],
        "installing the LlamaHub packages into bench/.venv-llamahub",
    )
    return python


def _parse_child(stdout: str, what: str) -> dict[str, Any]:
    try:
        document = json.loads(stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        fail(f"{what} printed no JSON document: {_last_line(stdout)}")
    if not isinstance(document, dict):
        fail(f"{what} printed JSON that is not an object")
    return document


def dump_llamahub(python: Path) -> dict[str, Any]:
    what = "dumping the LlamaHub tools"
    return _parse_child(_run([python, BENCH / "_dump_llamahub.py"], what), what)


def dump_toolspecs(uv: str) -> dict[str, Any]:
    what = "dumping the toolspecs tools"
    cmd = [uv, "run", "--frozen", "--quiet", "python", BENCH / "_dump_toolspecs.py"]
    return _parse_child(_run(cmd, what), what)


def load_tokenizer() -> Callable[[str], list[int]]:
    try:
        from llama_index.core.utils import get_tokenizer
    except ImportError:
        fail(
            "llama-index-core is not importable here; "
            "run `uv run --frozen python bench/schema_tokens.py` from the repository"
        )
    tokenizer = get_tokenizer()
    encoding = getattr(getattr(tokenizer, "func", None), "__self__", None)
    name = getattr(encoding, "name", None)
    if name != "cl100k_base":
        fail(f"llama-index's global tokenizer is {name or tokenizer!r}, expected cl100k_base")
    return tokenizer


def measure(tools: list[dict[str, Any]], count: Callable[[str], list[int]]) -> dict[str, Any]:
    per_tool = {t["name"]: len(count(json.dumps(t["openai_tool"]))) for t in tools}
    # What the output schemas add where a client sends them to the model (MCP's
    # outputSchema; most clients do not): not part of the OpenAI tool JSON above.
    outputs = {
        t["name"]: len(count(json.dumps(t["output_schema"])))
        for t in tools
        if t.get("output_schema") is not None
    }
    return {
        "tools": len(tools),
        "tokens": sum(per_tool.values()),
        "output_tokens": sum(outputs.values()),
        "per_tool": per_tool,
        "per_tool_output": outputs,
        "length_check_failures": [t["name"] for t in tools if t["length_check_error"]],
    }


def _ratio(ours: int, theirs: int) -> float | None:
    return round(ours / theirs, 3) if theirs else None


def compare(
    llamahub: dict[str, Any], ours: dict[str, Any], count: Callable[[str], list[int]]
) -> list[dict[str, Any]]:
    theirs_specs: dict[str, Any] = llamahub["specs"]
    ours_specs: dict[str, Any] = ours.get("specs", {})
    rows = []
    for name in [*theirs_specs, *sorted(set(ours_specs) - set(theirs_specs))]:
        their_entry = theirs_specs.get(name) or {}
        our_entry = ours_specs.get(name) or {}
        row: dict[str, Any] = {
            "spec": name,
            "llamahub_class": their_entry.get("class"),
            "llamahub": None,
            "toolspecs": None,
            "ratio_all": None,
            "ratio_same_named": None,
            "same_named": [],
            "errors": {},
        }
        for side, entry in (("llamahub", their_entry), ("toolspecs", our_entry)):
            if entry.get("error"):
                row["errors"][side] = entry["error"]
            elif entry.get("tools") is not None:
                row[side] = measure(entry["tools"], count)
        theirs_m, ours_m = row["llamahub"], row["toolspecs"]
        if theirs_m and ours_m:
            row["ratio_all"] = _ratio(ours_m["tokens"], theirs_m["tokens"])
            shared = sorted(set(theirs_m["per_tool"]) & set(ours_m["per_tool"]))
            row["same_named"] = shared
            if shared:
                row["ratio_same_named"] = _ratio(
                    sum(ours_m["per_tool"][n] for n in shared),
                    sum(theirs_m["per_tool"][n] for n in shared),
                )
        rows.append(row)
    return rows


def _side_cells(measured: dict[str, Any] | None, error: str | None) -> list[str]:
    if measured is None:
        return ["error" if error else DASH, DASH]
    flag = "!" if measured["length_check_failures"] else ""
    return [f"{measured['tools']}{flag}", str(measured["tokens"])]


def _ratio_cell(value: float | None, suffix: str = "") -> str:
    return DASH if value is None else f"{value:.2f}{suffix}"


def render_table(rows: list[dict[str, Any]]) -> str:
    header = [
        "spec",
        "LlamaHub tools",
        "LlamaHub tokens",
        "toolspecs tools",
        "toolspecs tokens",
        "ratio (all)",
        "ratio (drop-in)",
        "+ output schemas",
    ]
    body = []
    for row in rows:
        shared = row["same_named"]
        body.append(
            [
                row["spec"],
                *_side_cells(row["llamahub"], row["errors"].get("llamahub")),
                *_side_cells(row["toolspecs"], row["errors"].get("toolspecs")),
                _ratio_cell(row["ratio_all"]),
                _ratio_cell(row["ratio_same_named"], f" ({len(shared)} fn)"),
                str(row["toolspecs"]["output_tokens"]) if row["toolspecs"] else DASH,
            ]
        )
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        first, *rest = cells
        padded = [c.rjust(w) for c, w in zip(rest, widths[1:], strict=True)]
        return " | ".join([first.ljust(widths[0]), *padded])

    out = [line(header), "-+-".join("-" * w for w in widths)]
    out += [line(cells) for cells in body]
    notes = [
        "tokens: cl100k_base over json.dumps(tool.metadata.to_openai_tool()), summed per spec; "
        "ratio = toolspecs / LlamaHub; drop-in = only function names present on both sides.",
        "+ output schemas: toolspecs' outputSchema tokens (cl100k_base over json.dumps), which "
        "a client adds only if it sends output schemas to the model; LlamaHub has none.",
    ]
    for row in rows:
        for side in ("llamahub", "toolspecs"):
            measured = row[side]
            if measured and measured["length_check_failures"]:
                names = ", ".join(measured["length_check_failures"])
                notes.append(
                    f"! {row['spec']} ({side}): to_openai_tool() raises without "
                    f"skip_length_check (description > 1024 chars): {names}"
                )
            if side in row["errors"]:
                notes.append(f"error {row['spec']} ({side}): {row['errors'][side]}")
    return "\n".join([*out, "", *notes])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    args = parser.parse_args(argv)

    uv = shutil.which("uv")
    if uv is None:
        fail("`uv` is not on PATH; install it (https://docs.astral.sh/uv/) and retry")
    count = load_tokenizer()
    llamahub = dump_llamahub(ensure_llamahub_venv(uv))
    ours = dump_toolspecs(uv)
    if ours.get("import_error"):
        print(
            f"schema_tokens: toolspecs side unavailable ({ours['import_error']}); "
            f"showing {DASH} for it",
            file=sys.stderr,
        )
    rows = compare(llamahub, ours, count)
    if args.json:
        document = {
            "tokenizer": "cl100k_base",
            "llamahub_versions": llamahub.get("versions", {}),
            "toolspecs_versions": ours.get("versions", {}),
            "toolspecs_import_error": ours.get("import_error"),
            "specs": rows,
        }
        print(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        print(render_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
