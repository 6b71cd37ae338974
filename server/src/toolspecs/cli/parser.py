"""toolspecs: list specs, show their schemas, and call a tool as an agent would.

Examples:
  toolspecs call --sandbox gmail.search_messages query="lunch with Ada" max_results=2
  toolspecs call --sandbox google_calendar.create_event title=Tea start_datetime="tomorrow 4pm"
  toolspecs call arxiv.arxiv_query query="attention is all you need" max_results=2
  toolspecs call arxiv.arxiv_query --json '{"query": "1706.03762"}'
  toolspecs call google_calendar.delete_event --allow-destructive event_id=abc123
  toolspecs describe arxiv
  toolspecs schema arxiv --format openai
  toolspecs list
  toolspecs serve gmail google_calendar --sandbox [--sandbox-latency 150ms] [--http]
  toolspecs authorize gmail --tools search_messages,get_message

--sandbox runs a built-in spec over its shipped fake with sample data: no keys, no network.
A wrong name, option or argument prints one line saying what to do, and exits 2;
a tool call that ends in guidance prints it (as the agent would read it) and exits 1.
"""

# The standard library only (the module docstring is the --help text): --help, --version
# and mistakes answer at once; toolspecs.cli.commands imports llama-index.

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from toolspecs.cli.hosting import hostings
from toolspecs.cli.oauth import add_auth_arguments

__all__ = ["UsageError", "build_parser", "version_text"]


class UsageError(Exception):
    """A mistake on the command line: one line for the person."""


class _Parser(argparse.ArgumentParser):
    """argparse, with its mistakes said in one line that points to ``--help``."""

    def error(self, message: str) -> NoReturn:
        """Print one line and exit 2 (argparse prints the whole usage first)."""
        self.exit(2, f"{self.prog}: {message}; see {self.prog} --help\n")


def version_text() -> str:
    """The version of toolspecs-core and of each installed spec's distribution."""
    from importlib.metadata import PackageNotFoundError, entry_points, version

    try:
        core = version("toolspecs-core")
    except PackageNotFoundError:  # run from a source tree that is not installed
        core = "unknown (not installed)"
    lines = [f"toolspecs-core {core}"]
    for found in sorted(entry_points(group="toolspecs.specs"), key=lambda ep: ep.name):
        dist = found.dist
        package = f"{dist.name} {dist.version}" if dist is not None else found.value
        lines.append(f"  {found.name:<16} {package}")
    return "\n".join(lines)


class _Version(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "show the versions of toolspecs-core and the installed specs")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        print(version_text())
        parser.exit(0)


def whole_number(text: str) -> int:
    """A whole number from 1 to 1,000,000 (argparse says the error in one line)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1 to 1000000")
    return value


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port; use 0 to 65535")
    return port


_CALL_DESCRIPTION = """\
Call one tool and print exactly what the agent would read (exit 1 when it is guidance).

Arguments are key=value pairs. Each value is text, read the way the tool reads an
LLM's arguments: "5" is 5, "yes"/"false" are booleans, "a, b" or '["a", "b"]' is a
list, and "tomorrow 4pm" is a time in the spec's timezone. --json gives the arguments
as one JSON object (for nested values; key=value pairs given too are added to it).

The spec is built with its defaults, then --allow-send, --allow-destructive,
--timezone and each --option key=value (a constructor argument such as
credentials_path, auth_flow or max_results). Keys are best left to the environment
(WOLFRAM_ALPHA_APP_ID): an --option value stays in the shell's history and is shown to
other users by ps. --sandbox puts a built-in spec on its shipped fake with sample data:
no keys, no network."""

_CALL_EPILOG = """\
examples:
  toolspecs call --sandbox gmail.search_messages query="lunch with Ada" max_results=2
  toolspecs call --sandbox google_calendar.find_free_time start_datetime="tomorrow 9am" \\
      end_datetime="tomorrow 5pm" attendees="ada@example.com, alan@example.com"
  toolspecs call --sandbox google_calendar.delete_event --allow-destructive event_id=x
  toolspecs call gmail.search_messages --option credentials_path=client.json query=is:unread
  WOLFRAM_ALPHA_APP_ID=... toolspecs call wolfram_alpha.wolfram_alpha_query query="2^100"
"""


_DURATION = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s)?\s*", re.IGNORECASE)


def duration(text: str) -> float:
    """Seconds from ``150ms``, ``0.15s`` or ``0.15`` (seconds): a ``--sandbox-latency``."""
    found = _DURATION.fullmatch(text)
    if found is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a time: give it as 150ms, 0.15s or 0.15 (seconds)"
        )
    value = float(found.group(1))
    return value / 1000 if (found.group(2) or "s").lower() == "ms" else value


def _add_spec_options(parser: argparse.ArgumentParser, *, several: bool) -> None:
    parser.add_argument(
        "--sandbox",
        action="store_true",
        help="each spec over its shipped fake with sample data: no keys, no network",
    )
    parser.add_argument(
        "--sandbox-latency",
        type=duration,
        default=0.0,
        metavar="TIME",
        help=(
            "with --sandbox: each fake waits this long before answering each request, "
            "as a real service's round trip (e.g. 150ms, 0.2s; default 0)"
        ),
    )
    parser.add_argument(
        "--allow-send",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="offer tools that reach other people, such as send_draft (default: each spec's)",
    )
    parser.add_argument(
        "--allow-destructive",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="offer destructive tools, such as delete_event (default: each spec's)",
    )
    parser.add_argument("--timezone", help="IANA timezone of the specs that deal with time")
    parser.add_argument(
        "--tools",
        action="append",
        default=[],
        metavar="[NAME.]TOOL,...",
        help=(
            "the tools to offer instead of each spec's lean default set: tool names, "
            "'all' or 'default', comma-separated, e.g. --tools default,get_thread "
            "(repeatable)"
        ),
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME.key=value" if several else "key=value",
        help=(
            "a constructor argument of one spec, e.g. arxiv.max_results=5 (repeatable)"
            if several
            else "a constructor argument of the spec, e.g. max_results=5 or "
            "credentials_path=client.json (repeatable)"
        ),
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``toolspecs`` command."""
    summary, _, examples = (__doc__ or "").partition("\n\n")
    parser = _Parser(
        prog="toolspecs",
        description=summary,
        epilog=examples,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="each spec, its tools and their schema token cost")
    schema = sub.add_parser("schema", help="the tools of a spec as the agent sees them")
    schema.add_argument("name")
    schema.add_argument("--format", choices=["text", "openai"], default="text")
    _add_spec_options(schema, several=False)
    describe = sub.add_parser(
        "describe",
        help="each tool's description, parameters and token cost, as the agent sees them",
    )
    describe.add_argument("name")
    _add_spec_options(describe, several=False)
    call = sub.add_parser(
        "call",
        help="call a tool and print exactly what the agent would read",
        description=_CALL_DESCRIPTION,
        epilog=_CALL_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    call.add_argument("target", metavar="SPEC.FUNCTION")
    call.add_argument("pairs", nargs="*", metavar="key=value")
    call.add_argument("--json", help="the arguments as one JSON object")
    _add_spec_options(call, several=False)
    authorize = sub.add_parser(
        "authorize",
        help="sign in once, for the tools that will be offered (their scopes, no more)",
        description=(
            "Run a spec's sign-in now (the Google specs: a browser, or --option "
            "auth_flow=console on a machine without one) and save the token, asking only "
            "for what the tools offered need: the default set, or those --tools names. "
            "Authorize again after offering more tools; a saved token keeps what it holds."
        ),
    )
    authorize.add_argument("name", metavar="NAME", help="e.g. gmail, gmail@work, google_calendar")
    _add_spec_options(authorize, several=False)
    _add_serve(sub)
    _add_plugged(sub)
    for command in sub.choices.values():
        command.set_defaults(command_parser=command)
    return parser


# Commands other packages add (entry points ``toolspecs.commands``): each names an object
# with ``add(sub)``, which adds its subparser and sets ``run`` (the command, given the parsed
# arguments, returning the exit code) as its default. Importing it imports the standard
# library only, so that --help answers at once. Those this repository publishes, with what
# installs them, so that a missing one is said in one line:
PLUGGED = {"eval": "toolspecs eval needs the toolspecs-evals package: pip install toolspecs-evals"}


def _add_plugged(sub: Any) -> None:
    from importlib.metadata import entry_points

    for found in sorted(entry_points(group="toolspecs.commands"), key=lambda ep: ep.name):
        if found.name in sub.choices:
            continue  # a name taken (by a built-in command, or another package's) stays so
        try:
            found.load().add(sub)
        except Exception as exc:  # a broken plug-in must not take the other commands down
            print(
                f"toolspecs: the command {found.name!r} ({found.value}) did not load: "
                f"{type(exc).__name__}: {exc}",
                file=sys.stderr,
            )
    for name, missing in PLUGGED.items():
        if name not in sub.choices:
            stub = sub.add_parser(name, help=f"({missing})", add_help=False)
            stub.set_defaults(missing=missing)


def _add_serve(sub: Any) -> None:
    serve = sub.add_parser(
        "serve",
        help="serve the tools of specs to MCP clients (stdio; streamable HTTP with --http)",
        description=(
            "Serve the tools of the named specs as one MCP server. When two specs offer "
            "a tool of the same "
            "name, every tool of each such spec is named with the spec's name as prefix "
            "(gmail_load_data, google_calendar_load_data); --prefix sets one instead."
        ),
    )
    serve.add_argument("names", nargs="+", metavar="NAME", help="specs, e.g. gmail arxiv")
    serve.add_argument("--http", action="store_true", help="streamable HTTP at /mcp, not stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="HTTP port (default 8000; 0: any)")
    serve.add_argument(
        "--token-file",
        metavar="PATH",
        help="HTTP: a 0600 file holding the bearer token clients send (default: "
        "$TOOLSPECS_SERVE_TOKEN, else ~/.local/state/toolspecs/serve-token, made once)",
    )
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="HTTP: listen on an address other machines can reach (they need the token)",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="HTTP: a host name clients may use besides the address, with this port unless "
        "written NAME:PORT (a load balancer's address) (repeatable)",
    )
    serve.add_argument(
        "--max-sessions",
        type=whole_number,
        default=64,
        metavar="N",
        help="HTTP: at most N sessions at once (default 64)",
    )
    serve.add_argument(
        "--max-sessions-per-user",
        type=whole_number,
        default=8,
        metavar="N",
        help="HTTP: at most N of them for one signed-in user (--google-sign-in, "
        "--auth-issuer), so one account cannot take them all; their next is refused "
        "with 429 (default 8; counted on each replica)",
    )
    serve.add_argument(
        "--log-format",
        choices=["off", "text", "json"],
        default="off",
        help="HTTP: write an access record per request and one per tool call to stderr, "
        "with its request id and user (never a token or arguments); json: one object a line",
    )
    serve.add_argument(
        "--stateless",
        action="store_true",
        help="HTTP: no sessions (whichever way clients sign in), every request stands "
        "alone, so any replica behind a load balancer answers any request; long results "
        "and the cap on running calls are the user's (or the token holder's), whatever "
        "Mcp-Session-Id a client sends: give every replica one --store redis://..., else "
        "each keeps its own",
    )
    serve.add_argument(
        "--no-confirm",
        dest="confirm",
        action="store_false",
        help="do not ask the person (through clients that can show a form) before a tool "
        "sends, deletes or makes a destructive update: for fully automated agents. With "
        "replicas, give each the same TOOLSPECS_REQUEST_STATE_KEY so any of them takes "
        "the answer",
    )
    serve.add_argument(
        "--no-output-schemas",
        dest="output_schemas",
        action="store_false",
        help="list the tools without their outputSchema (results still carry "
        "structuredContent): for clients that send whole tool definitions to the model, "
        "where the schemas would cost about 12,000 tokens for the four specs' default tools",
    )
    serve.add_argument(
        "--session-idle",
        type=whole_number,
        default=600,
        metavar="SECONDS",
        help="HTTP: close a session unused this long (default 600)",
    )
    add_auth_arguments(serve)
    # Many users, each acting as themselves: the installed hostings' flags (Google's).
    found = hostings()
    for hosting in found.values():
        hosting.add_arguments(serve)
    serve.set_defaults(hostings=found)
    serve.add_argument(
        "--store",
        metavar="URL",
        help="where long results, arXiv papers, Wolfram|Alpha answers and each user's "
        "count of running calls are kept: memory (default: each process its own) or "
        "redis://host:6379/0, shared by every server on it (needs "
        'pip install "toolspecs-core[redis]")',
    )
    _add_spec_options(serve, several=True)
    serve.add_argument(
        "--prefix",
        action="append",
        default=[],
        metavar="NAME=PREFIX",
        help="put PREFIX before the tool names of spec NAME, e.g. gmail=mail_ (repeatable)",
    )
