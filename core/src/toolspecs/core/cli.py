"""The ``toolspecs`` command: list specs, show their schemas, call a tool as an agent would.

    toolspecs list
    toolspecs schema arxiv [--format openai]
    toolspecs describe arxiv
    toolspecs call arxiv.arxiv_query query="attention is all you need" max_results=2
    toolspecs call arxiv.arxiv_query --json '{"query": "1706.03762"}'
    toolspecs serve gmail google_calendar [--http] [--sandbox]

A wrong name, option or argument prints one line saying what to do, and exits 2;
a tool call that ends in guidance prints it (as the agent would read it) and exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from llama_index.core.tools import FunctionTool

from toolspecs.core.bounds import count_tokens
from toolspecs.core.errors import ConfigurationError
from toolspecs.core.policy import Marks
from toolspecs.core.registry import list_specs, load_spec


class UsageError(Exception):
    """A mistake on the command line: one line for the person."""


class _Parser(argparse.ArgumentParser):
    """argparse, with its mistakes said in one line that points to ``--help``."""

    def error(self, message: str) -> NoReturn:
        """Print one line and exit 2 (argparse prints the whole usage first)."""
        self.exit(2, f"{self.prog}: {message}; see {self.prog} --help\n")


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


def _json_type(prop: dict[str, Any]) -> str:
    """A parameter's JSON type in words: ``string``, ``array of string``, ``integer or null``."""
    if "anyOf" in prop:
        kinds = [_json_type(p) for p in prop["anyOf"] if p.get("type") != "null"]
        return " or ".join(kinds) or "any"
    kind = prop.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind if k != "null") or "any"
    if kind == "array":
        items = prop.get("items")
        return f"array of {_json_type(items)}" if isinstance(items, dict) and items else "array"
    return str(kind) if kind else "any"


def describe_parameter(name: str, prop: dict[str, Any], required: bool) -> str:
    """One line for a parameter: name, type, range or choices, required or default, text."""
    facts = [_json_type(prop)]
    if "enum" in prop:
        facts.append("one of " + ", ".join(json.dumps(c) for c in prop["enum"]))
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None and high is not None:
        facts.append(f"{low} to {high}")
    elif low is not None or high is not None:
        facts.append(f">= {low}" if low is not None else f"<= {high}")
    if required:
        facts.append("required")
    elif "default" in prop:
        facts.append(f"default {json.dumps(prop['default'])}")
    else:
        facts.append("optional")
    line = f"{name} ({', '.join(facts)})"
    return f"{line}: {prop['description']}" if prop.get("description") else line


def cmd_describe(args: argparse.Namespace) -> str:
    """What the agent reads about each tool of a spec, its marks, and what it costs per request."""
    tools = _tools(args.name)
    blocks: list[str] = []
    total = 0
    for t in tools:
        cost = tool_cost(t)
        total += cost
        lines = [f"{t.metadata.name}  ({cost} tokens)"]
        lines += [f"  {line}" for line in t.metadata.description.splitlines()]
        marks = getattr(t, "marks", None)
        if isinstance(marks, Marks):
            lines.append(f"  Marks: {marks.describe()}")
        schema = t.metadata.get_parameters_dict()
        properties: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", []))
        lines.append("  Parameters:" if properties else "  Parameters: none")
        for name, prop in properties.items():
            lines.append(f"    {describe_parameter(name, prop, name in required)}")
        blocks.append("\n".join(lines))
    blocks.append(
        f"Total: {len(tools)} tools, {total} tokens of tool schemas sent with every request "
        "(cl100k_base over each tool's OpenAI JSON)."
    )
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


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the tools of the named specs to MCP clients until the client or a signal stops it."""
    from toolspecs.adapters import require
    from toolspecs.mcp import build_server, serve_http, serve_stdio
    from toolspecs.mcp.serve import ServeSettings, build_specs, served_tools

    settings = ServeSettings.from_args(args)
    specs = build_specs(settings)
    tools = served_tools(specs, settings.prefixes)
    server = build_server(tools, name="toolspecs")  # an ImportError names the mcp extra
    anyio = require("anyio", "mcp")
    what = f"{len(tools)} tools of {', '.join(specs)}" + (" (sandbox)" if args.sandbox else "")

    def ready(url: str) -> None:
        print(f"toolspecs: serving {what} at {url}", file=sys.stderr, flush=True)

    if args.http:
        if args.host not in ("127.0.0.1", "localhost", "::1"):
            print(
                f"toolspecs: warning: --host {args.host} takes connections from other machines, "
                "with no authentication and no DNS-rebinding protection",
                file=sys.stderr,
                flush=True,
            )
        try:
            anyio.run(serve_http, server, args.host, args.port, ready)
        except OSError as exc:  # port in use, unknown host: for the person, in one line
            raise UsageError(
                f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc}); "
                "choose another --port or --host"
            ) from None
        return 0
    print(f"toolspecs: serving {what} over stdio", file=sys.stderr, flush=True)
    anyio.run(serve_stdio, server)
    # The client is gone. A call still running in a worker thread (a slow service) must
    # not keep this process alive: Python would wait for the thread at exit.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _port(text: str) -> int:
    """A TCP port for ``--port``: 0 (any free one) to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port; use 0 to 65535")
    return port


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``toolspecs`` command."""
    parser = _Parser(prog="toolspecs", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="each spec, its tools and their schema token cost")
    schema = sub.add_parser("schema", help="the tools of a spec as the agent sees them")
    schema.add_argument("name")
    schema.add_argument("--format", choices=["text", "openai"], default="text")
    describe = sub.add_parser(
        "describe",
        help="each tool's description, parameters and token cost, as the agent sees them",
    )
    describe.add_argument("name")
    call = sub.add_parser("call", help="call a tool and print exactly what the agent would read")
    call.add_argument("target", metavar="SPEC.FUNCTION")
    call.add_argument("pairs", nargs="*", metavar="key=value")
    call.add_argument("--json", help="the arguments as one JSON object")
    _add_serve(sub)
    for command in sub.choices.values():
        command.set_defaults(command_parser=command)
    return parser


def _add_serve(sub: Any) -> None:
    serve = sub.add_parser(
        "serve",
        help="serve the tools of specs to MCP clients (stdio; streamable HTTP with --http)",
        description=(
            "Serve the tools of the named specs as one MCP server (needs "
            'pip install "toolspecs-core[mcp]"). When two specs offer a tool of the same '
            "name, every tool of each such spec is named with the spec's name as prefix "
            "(gmail_load_data, google_calendar_load_data); --prefix sets one instead."
        ),
    )
    serve.add_argument("names", nargs="+", metavar="NAME", help="specs, e.g. gmail arxiv")
    serve.add_argument(
        "--sandbox",
        action="store_true",
        help="serve each spec over its shipped fake with sample data: no keys, no network",
    )
    serve.add_argument("--http", action="store_true", help="streamable HTTP at /mcp, not stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="HTTP port (default 8000; 0: any)")
    serve.add_argument(
        "--allow-send",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="offer tools that reach other people, such as send_draft (default: each spec's)",
    )
    serve.add_argument(
        "--allow-destructive",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="offer destructive tools, such as delete_event (default: each spec's)",
    )
    serve.add_argument("--timezone", help="IANA timezone of the specs that deal with time")
    serve.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME.key=value",
        help="a constructor argument of one spec, e.g. arxiv.max_results=5 (repeatable)",
    )
    serve.add_argument(
        "--prefix",
        action="append",
        default=[],
        metavar="NAME=PREFIX",
        help="put PREFIX before the tool names of spec NAME, e.g. gmail=mail_ (repeatable)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the command's own parser, so that its --help is the one named
        args.command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        if args.command == "list":
            print(cmd_list(args))
            return 0
        if args.command == "schema":
            print(cmd_schema(args))
            return 0
        if args.command == "describe":
            print(cmd_describe(args))
            return 0
        if args.command == "serve":
            return cmd_serve(args)
        text, code = cmd_call(args)
        print(text)
        return code
    except (UsageError, ConfigurationError) as exc:
        print(f"toolspecs: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:  # a host library that is not installed names its extra
        print(f"toolspecs: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C stops a server: nothing is wrong
        return 0
    except BrokenPipeError:  # `toolspecs list | head`: the reader left, nothing is wrong
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (silence the flush at exit)
        return 0


if __name__ == "__main__":
    sys.exit(main())
