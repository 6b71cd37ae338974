"""The ``toolspecs`` command: list specs, show their schemas, call a tool as an agent would.

    toolspecs list
    toolspecs schema arxiv [--format openai]
    toolspecs call arxiv.arxiv_query query="attention is all you need" max_results=2
    toolspecs call arxiv.arxiv_query --json '{"query": "1706.03762"}'

A wrong name or argument prints one line saying what to do, and exits 2;
a tool call that ends in guidance prints it (as the agent would read it) and exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from llama_index.core.tools import FunctionTool

from toolspecs.core.errors import ConfigurationError
from toolspecs.core.large_output import count_tokens
from toolspecs.core.registry import list_specs, load_spec


class UsageError(Exception):
    """A mistake on the command line: one line for the person."""


def tool_cost(tool: FunctionTool) -> int:
    """Tokens the tool's OpenAI schema costs on every call to the model."""
    return count_tokens(json.dumps(tool.metadata.to_openai_tool(skip_length_check=True)))


def _tools(name: str) -> list[FunctionTool]:
    return load_spec(name).to_tool_list()


def cmd_list(_: argparse.Namespace) -> str:
    """Each spec, its tools, and what their schemas cost in tokens."""
    lines: list[str] = []
    for name in list_specs():
        try:
            tools = _tools(name)
        except ConfigurationError as exc:
            lines.append(f"{name}: cannot load ({exc})")
            continue
        total = sum(tool_cost(t) for t in tools)
        lines.append(f"{name}  ({len(tools)} tools, {total} schema tokens)")
        for t in tools:
            lines.append(f"  {t.metadata.name:<28} {tool_cost(t):>5} tokens")
    return "\n".join(lines) if lines else "No specs installed."


def cmd_schema(args: argparse.Namespace) -> str:
    """The tools of one spec, as text or as OpenAI tool JSON."""
    tools = _tools(args.name)
    if args.format == "openai":
        return json.dumps([t.metadata.to_openai_tool() for t in tools], indent=2)
    blocks = []
    for t in tools:
        params = json.dumps(t.metadata.get_parameters_dict(), indent=2)
        blocks.append(f"## {t.metadata.name}\n{t.metadata.description}\nparameters: {params}")
    return "\n\n".join(blocks)


def parse_pairs(pairs: Sequence[str], raw_json: str | None) -> dict[str, Any]:
    """Arguments from ``key=value`` pairs and/or a JSON object."""
    arguments: dict[str, Any] = {}
    if raw_json is not None:
        try:
            loaded = json.loads(raw_json)
        except json.JSONDecodeError as exc:
            raise UsageError(
                f'--json is not valid JSON ({exc.msg}); quote it like \'{{"query": "x"}}\''
            ) from None
        if not isinstance(loaded, dict):
            raise UsageError('--json must be a JSON object such as \'{"query": "x"}\'')
        arguments.update(loaded)
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f'argument {pair!r} is not key=value; write e.g. query="black holes"')
        arguments[key.strip()] = value
    return arguments


def cmd_call(args: argparse.Namespace) -> tuple[str, int]:
    """Call one tool; returns what the agent would read and the exit code."""
    spec_name, dot, function = args.target.partition(".")
    if not dot or not function:
        raise UsageError(f"{args.target!r} is not SPEC.FUNCTION; e.g. arxiv.arxiv_query")
    arguments = parse_pairs(args.pairs, args.json)
    tools = {t.metadata.get_name(): t for t in _tools(spec_name)}
    chosen = tools.get(function)
    if chosen is None:
        raise UsageError(
            f"spec {spec_name!r} has no tool {function!r}; its tools: {', '.join(tools)}"
        )
    output = chosen.call(**arguments)
    return output.content, 1 if output.is_error else 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``toolspecs`` command."""
    parser = argparse.ArgumentParser(prog="toolspecs", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="each spec, its tools and their schema token cost")
    schema = sub.add_parser("schema", help="the tools of a spec as the agent sees them")
    schema.add_argument("name")
    schema.add_argument("--format", choices=["text", "openai"], default="text")
    call = sub.add_parser("call", help="call a tool and print exactly what the agent would read")
    call.add_argument("target", metavar="SPEC.FUNCTION")
    call.add_argument("pairs", nargs="*", metavar="key=value")
    call.add_argument("--json", help="the arguments as one JSON object")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            print(cmd_list(args))
            return 0
        if args.command == "schema":
            print(cmd_schema(args))
            return 0
        text, code = cmd_call(args)
        print(text)
        return code
    except (UsageError, ConfigurationError) as exc:
        print(f"toolspecs: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `toolspecs list | head`: the reader left, nothing is wrong
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (silence the flush at exit)
        return 0


if __name__ == "__main__":
    sys.exit(main())
