"""The ``toolspecs`` command: a host of the tools, like the MCP server and the adapters.

The command line is read with the standard library only (:mod:`toolspecs.cli.parser`), so
``--help`` and mistakes answer before llama-index is imported.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from toolspecs.cli.hosting import missing_hosting
from toolspecs.cli.parser import UsageError, build_parser, version_text

__all__ = ["UsageError", "build_parser", "main", "version_text"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    try:
        return _run(argv)
    except KeyboardInterrupt:  # Ctrl-C stops a server: nothing is wrong
        return 0
    except BrokenPipeError:  # `toolspecs list | head`: the reader left, nothing is wrong
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (silence the flush at exit)
        return 0


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    missing = getattr(args, "missing", None)
    if missing is not None:  # a published command whose package is not installed
        print(f"toolspecs: {missing}", file=sys.stderr)
        return 2
    run = getattr(args, "run", None)
    if run is not None:  # a command another package adds (toolspecs.commands)
        if extra:
            args.command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
        return int(run(args))
    if args.command == "call":
        # argparse fills a nargs="*" positional once: pairs after an option (call --sandbox
        # SPEC.FUNCTION --allow-send key=value) come back unrecognized. They are pairs.
        args.pairs += [item for item in extra if not item.startswith("-")]
        extra = [item for item in extra if item.startswith("-")]
    if extra:  # said by the command's own parser, so that its --help is the one named
        # A hosting's flag without its package (serve --google-sign-in): what to install.
        missing = missing_hosting(extra, args.hostings) if args.command == "serve" else None
        args.command_parser.error(missing or f"unrecognized arguments: {' '.join(extra)}")
    # The command line is read: now the commands, and llama-index with them.
    from toolspecs.cli import commands as cli
    from toolspecs.core.errors import ConfigurationError

    try:
        if args.command == "serve":
            return cli.cmd_serve(args)
        if args.command == "call":
            text, code = cli.cmd_call(args)
            print(text)
            return code
        shown = {"list": cli.cmd_list, "schema": cli.cmd_schema, "describe": cli.cmd_describe}
        print(shown.get(args.command, cli.cmd_authorize)(args))
        return 0
    # ImportError: a host library that is not installed names its extra.
    except (UsageError, ConfigurationError, ImportError) as exc:
        print(f"toolspecs: {exc}", file=sys.stderr)
        return 2
