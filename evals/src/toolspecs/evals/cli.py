"""``toolspecs eval``: the task suite, run with your model, on sandboxes only.

Added to the ``toolspecs`` command through the entry point group ``toolspecs.commands``.
This module imports the standard library only at the top, so that ``toolspecs --help``
answers at once; the harness is imported when the command runs.

What goes wrong before any task runs is said in one line with what to do, and the exit
code is 2: a missing key, an endpoint that does not answer or refuses the key, a model
it does not have, a model that cannot call tools, no LlamaHub environment. Ctrl-C stops
the runs under way; those that finished are kept (their results file, summary and
chart are written), and the exit code is 130.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["command"]

DESCRIPTION = """\
Run the task suite with a model, on sandboxes only (a fake Google, arXiv and Wolfram|Alpha
on 127.0.0.1: no real account is ever touched), and report how many tasks it finished,
in how many calls and tokens.

The model is any OpenAI-compatible chat-completions endpoint, through llama-index's
FunctionAgent. Each run costs tokens at your endpoint (the tools' schemas go with every
request): done in the fewest calls, a task takes about 6,000 tokens with our tools (12,000
across specs), the suite about 270,000; a real model takes more steps, so count on two or
three times that. Start with --tasks and --runs 1 to see what it costs you.
`--model scripted` runs the harness on a scripted model instead: no key, no cost, every
task done right with our tools (the scripts the tests use), to see the report and the
chart. The scripts call our tools: with --tools llamahub they show the wiring, not which
tool set is better (only a real model tells)."""

EPILOG = """\
examples:
  OPENAI_API_KEY=... toolspecs eval --model gpt-4.1-mini --tasks 'gmail.*' --runs 3
  toolspecs eval --base-url http://localhost:11434/v1 --api-key-env '' --model qwen3:8b
  toolspecs eval --model gpt-4.1-mini --tools ours llamahub     # side by side
  toolspecs eval --model scripted                               # no key: the harness itself
  toolspecs eval --report eval-results/*/results.jsonl          # compare earlier runs
  toolspecs eval --list"""


class _Command:
    """The ``eval`` command: its parser and its run."""

    def add(self, sub: Any) -> argparse.ArgumentParser:
        """Add ``eval`` to the ``toolspecs`` subcommands."""
        parser: argparse.ArgumentParser = sub.add_parser(
            "eval",
            help="run the task suite with a model (sandboxes only) and report what it finished",
            description=DESCRIPTION,
            epilog=EPILOG,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        parser.add_argument(
            "--base-url",
            default=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"),
            help="the chat-completions endpoint (default: $OPENAI_BASE_URL, else OpenAI's)",
        )
        parser.add_argument(
            "--model", help="the model's name at the endpoint; 'scripted': the scripted model"
        )
        parser.add_argument(
            "--api-key-env",
            default="OPENAI_API_KEY",
            metavar="VAR",
            help="the environment variable holding the endpoint's key (default: "
            "OPENAI_API_KEY; '' for an endpoint that takes none)",
        )
        parser.add_argument(
            "--tools",
            nargs="+",
            choices=["ours", "llamahub"],
            default=["ours"],
            help="tool sets to run, side by side: ours (every tool of our specs), llamahub "
            "(LlamaHub's specs, in an environment of their own: see --llamahub-python)",
        )
        parser.add_argument(
            "--tasks",
            nargs="+",
            default=[],
            metavar="PATTERN",
            help="task ids or groups (google_calendar, gmail, arxiv, wolfram_alpha, across), "
            "shell-style: 'gmail.*' (default: all)",
        )
        parser.add_argument("--runs", type=_positive, default=1, help="runs of each task")
        parser.add_argument("--concurrency", type=_positive, default=4, help="runs at once")
        parser.add_argument(
            "--deadline", type=_seconds, default=300.0, metavar="SECONDS", help="per run"
        )
        parser.add_argument(
            "--token-budget", type=_positive, default=300_000, metavar="TOKENS", help="per run"
        )
        parser.add_argument("--steps", type=_positive, default=20, help="agent steps per run")
        parser.add_argument(
            "--out",
            type=Path,
            help="folder for results.jsonl, summary.txt and chart.html "
            "(default: eval-results/<time>)",
        )
        parser.add_argument(
            "--llamahub-python",
            metavar="PATH",
            default=os.environ.get("TOOLSPECS_EVAL_LLAMAHUB_PYTHON"),
            help="the Python of an environment with LlamaHub's packages, for --tools llamahub "
            "(default: $TOOLSPECS_EVAL_LLAMAHUB_PYTHON, else the one --setup-llamahub makes)",
        )
        parser.add_argument(
            "--report",
            nargs="+",
            type=Path,
            metavar="RESULTS",
            help="only summarize results files of earlier runs (and chart them together)",
        )
        parser.add_argument(
            "--setup-llamahub",
            action="store_true",
            help="make the LlamaHub environment (downloads LlamaHub's packages from PyPI) and stop",
        )
        parser.add_argument("--list", action="store_true", help="list the tasks and stop")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        parser.set_defaults(run=run)
        return parser


command = _Command()


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not 1 or more")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} is not more than 0 seconds")
    return value


class Stop(Exception):
    """What stops the command before any run, said in one line."""


def run(args: argparse.Namespace) -> int:
    """The command; returns its exit code."""
    try:
        return _run(args)
    except Stop as stop:
        print(f"toolspecs eval: {stop}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # before or after the runs (those during them are kept)
        print("toolspecs eval: stopped (Ctrl-C)", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace) -> int:
    from toolspecs.evals import report, suite

    if args.setup_llamahub:
        from toolspecs.evals import llamahub

        try:
            python = llamahub.setup(Path(args.llamahub_python) if args.llamahub_python else None)
        except llamahub.Missing as exc:
            raise Stop(str(exc)) from None
        print(f"LlamaHub's packages are in {python.parent.parent}: --tools llamahub uses them")
        return 0
    if args.report:
        missing = [str(path) for path in args.report if not path.is_file()]
        if missing:
            raise Stop(f"no results file {', '.join(missing)}")
        results = report.read(args.report)
        if args.out is None:
            print(report.summary(results))
        else:
            print(_write_report(args.out, results))
        return 0
    try:
        tasks = suite.choose(args.tasks)
    except ValueError as exc:
        raise Stop(str(exc)) from None
    if args.list:
        for task in tasks:
            print(f"{task.id:<42} {', '.join(task.techniques):<32} {task.reason}")
        print(f"{len(tasks)} tasks")
        return 0
    if not args.model:
        raise Stop("name the model: --model NAME (or --model scripted, without a key)")
    return _evaluate(args, tasks)


def _evaluate(args: argparse.Namespace, tasks: list[Any]) -> int:
    import asyncio
    import json

    from toolspecs.evals import run as harness
    from toolspecs.evals.run import Endpoint, Limits, RunResult

    endpoint = None
    if args.model != "scripted":  # what would stop every run is said before any starts
        endpoint = Endpoint(args.base_url, args.model, _key(args.api_key_env))
        _preflight(endpoint)
    runners = {}
    if "llamahub" in args.tools:
        from toolspecs.evals import llamahub

        try:
            runners["llamahub"] = llamahub.runner(args.llamahub_python)
        except llamahub.Missing as exc:
            raise Stop(str(exc)) from None
    out: Path = args.out or Path("eval-results") / time.strftime("%Y%m%d-%H%M%S")
    if (out / "results.jsonl").exists():
        raise Stop(f"{out} has results already: name another --out (or --report them)")
    out.mkdir(parents=True, exist_ok=True)
    limits = Limits(deadline=args.deadline, token_budget=args.token_budget, steps=args.steps)
    total = len(tasks) * len(args.tools) * args.runs
    print(
        f"toolspecs eval: {len(tasks)} tasks x {len(args.tools)} tool sets x {args.runs} runs "
        f"with {args.model}, on sandboxes only (no real account is used); results in {out}",
        file=sys.stderr,
    )
    results: list[RunResult] = []
    progress = _progress(total, args.no_progress)
    with (out / "results.jsonl").open("x", encoding="utf-8") as file:

        def done(result: RunResult) -> None:
            results.append(result)
            file.write(json.dumps(result.to_json()) + "\n")
            file.flush()
            progress(result)

        try:
            with contextlib.ExitStack() as serving:
                model = None
                if endpoint is None:  # --model scripted: served here, for these runs
                    from toolspecs.evals.scripted import ScriptedModel

                    model = ScriptedModel()
                    endpoint = Endpoint(serving.enter_context(model.serve()), "scripted")
                asyncio.run(
                    harness.run_suite(
                        tasks,
                        args.tools,
                        endpoint,
                        runs=args.runs,
                        concurrency=args.concurrency,
                        limits=limits,
                        runners=runners,
                        scripted=model,
                        done=done,
                    )
                )
        except KeyboardInterrupt:
            progress(None)
            _write_report(out, results)
            print(
                f"toolspecs eval: stopped (Ctrl-C) after {len(results)} of {total} runs; "
                f"their results are in {out / 'results.jsonl'}",
                file=sys.stderr,
            )
            return 130
    progress(None)
    print(_write_report(out, results))
    print(f"\nresults: {out / 'results.jsonl'}; chart: {out / 'chart.html'}")
    return 0


def _key(variable: str) -> str | None:
    if not variable:
        return None
    key = os.environ.get(variable, "").strip()
    if not key:
        raise Stop(
            f"set {variable} to the endpoint's key (or name another variable with "
            "--api-key-env; --api-key-env '' for an endpoint that takes none)"
        )
    return key


def _preflight(endpoint: Any) -> None:
    """One small request: does the endpoint answer, take the key, and call a tool."""
    import openai

    client = openai.OpenAI(
        base_url=endpoint.base_url, api_key=endpoint.api_key or "none", max_retries=0, timeout=60
    )
    ping = {
        "type": "function",
        "function": {
            "name": "ping",
            "description": "Answers pong.",
            "parameters": {"type": "object", "properties": {}},
        },
    }
    where = f"{endpoint.model} at {endpoint.base_url}"
    try:
        reply = client.chat.completions.create(
            model=endpoint.model,
            messages=[{"role": "user", "content": "Call the ping tool."}],
            tools=[ping],  # type: ignore[list-item]
        )
    except openai.AuthenticationError:
        raise Stop(f"{endpoint.base_url} refused the key (401): check it") from None
    except openai.NotFoundError:
        raise Stop(
            f"{endpoint.base_url} has no model {endpoint.model!r} (404): check --model"
        ) from None
    except openai.APIConnectionError:
        raise Stop(
            f"no answer from {endpoint.base_url}: is it running, and is --base-url right?"
        ) from None
    except openai.BadRequestError as exc:
        raise Stop(
            f"{where} refused a request with a tool ({exc.message[:200]}): "
            "the suite needs a model that calls tools"
        ) from None
    except openai.APIError as exc:
        raise Stop(f"{where} failed: {str(exc)[:200]}") from None
    finally:
        client.close()
    calls = reply.choices[0].message.tool_calls if reply.choices else None
    if not calls:
        raise Stop(
            f"{where} did not call a tool when asked to: the suite needs a model that calls tools"
        )


def _progress(total: int, off: bool) -> Any:
    """A function told of each result (``None``: the end) that draws the progress bar."""
    from tqdm import tqdm

    bar = tqdm(total=total, unit="run", disable=off or not sys.stderr.isatty(), file=sys.stderr)
    passed = 0

    def tell(result: Any) -> None:
        nonlocal passed
        if result is None:
            bar.close()
            return
        passed += result.passed
        bar.set_postfix_str(f"passed {passed}")
        bar.update(1)

    return tell


def _write_report(out: Path, results: list[Any]) -> str:
    """Write the summary and the chart of ``results`` into ``out``; the summary."""
    from toolspecs.evals import report

    out.mkdir(parents=True, exist_ok=True)
    table = report.summary(results)
    (out / "summary.txt").write_text(table + "\n", encoding="utf-8")
    (out / "chart.html").write_text(report.chart(results, table=table), encoding="utf-8")
    return table
