"""``--tools llamahub``: LlamaHub's specs, as published, on the same worlds.

LlamaHub's packages cannot share an environment with ours: ``llama-index-tools-arxiv``
needs ``arxiv<3`` and our loader ``arxiv>=4``. So they live in an environment of their own
(:data:`PACKAGES`, made by :func:`setup`: ``toolspecs eval --setup-llamahub``), and each
run of a task with them is a process of that environment's Python
(:mod:`toolspecs.evals.llamahub_child`), given the task's request, the world's addresses
and the endpoint on standard input, the key in its environment. The world stays here:
the run is judged by the same checks as ours.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolspecs.evals.run import SYSTEM_PROMPT, Endpoint, Limits, Runner, RunResult, RunStopped
from toolspecs.specs.google_calendar.sandbox import CALENDAR_ZONE

if TYPE_CHECKING:
    from toolspecs.evals.task import Task
    from toolspecs.evals.world import World

__all__ = ["PACKAGES", "Missing", "default_python", "runner", "setup"]

PACKAGES = (
    "llama-index-core>=0.14,<0.15",
    "llama-index-llms-openai-like>=0.5",
    "llama-index-tools-google==0.8.0",
    "llama-index-tools-arxiv==0.6.0",
    "llama-index-tools-wolfram-alpha==0.7.0",
)
"""What the LlamaHub environment holds: the versions compared (those bench/ measures)."""

CHILD = Path(__file__).with_name("llamahub_child.py")
_CHECK = (
    "import llama_index.tools.google, llama_index.tools.arxiv, "
    "llama_index.tools.wolfram_alpha, llama_index.llms.openai_like"
)
_OUTPUT_LIMIT = 1_000_000  # bytes of a child's report read at most
_REPORT_MARGIN = 5.0  # seconds before the run's deadline that the child stops itself


class Missing(Exception):
    """No environment with LlamaHub's packages: what to do, in one line."""


def default_python() -> Path:
    """Where :func:`setup` puts the environment's Python by default (the user's cache)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = cache / "toolspecs" / "llamahub-env"
    return folder / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def setup(python: Path | None = None) -> Path:
    """Make (or bring up to date) the LlamaHub environment; returns its Python.

    It uses uv when it is on the PATH, else ``venv`` and pip; both download from PyPI.

    Raises:
        Missing: When making it failed (the installer's last line says why).
    """
    python = python or default_python()
    folder = python.parent.parent
    uv = shutil.which("uv")
    if uv:
        steps = [
            [uv, "venv", "--quiet", "--allow-existing", "--python", sys.executable, str(folder)],
            [uv, "pip", "install", "--quiet", "--python", str(python), *PACKAGES],
        ]
    else:
        steps = [
            [sys.executable, "-m", "venv", str(folder)],
            [str(python), "-m", "pip", "install", "--quiet", *PACKAGES],
        ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise Missing(f"making the LlamaHub environment failed: {last[0][:200]}")
    return python


def runner(python: str | Path | None) -> Runner:
    """The runner of the ``llamahub`` tool set, with the environment of ``python``.

    Raises:
        Missing: When that Python (by default :func:`default_python`) is not there, or
            lacks LlamaHub's packages.
    """
    chosen = Path(python) if python else default_python()
    if not chosen.exists():
        raise Missing(
            f"--tools llamahub needs LlamaHub's packages in an environment of their own "
            f"(no {chosen}): run `toolspecs eval --setup-llamahub` once, or pass "
            "--llamahub-python"
        )
    check = subprocess.run([str(chosen), "-c", _CHECK], capture_output=True, check=False)
    if check.returncode != 0:
        raise Missing(
            f"{chosen} lacks LlamaHub's packages: run `toolspecs eval --setup-llamahub` "
            f"(or install {' '.join(PACKAGES)} there)"
        )

    async def run_llamahub(
        task: Task, world: World, endpoint: Endpoint, limits: Limits, run: str, result: RunResult
    ) -> str:
        from toolspecs.evals.scripted import RUN_HEADER

        job = {
            "request": task.words(world),
            "specs": list(task.specs),
            "world": world.endpoints(),
            "base_url": endpoint.base_url,
            "model": endpoint.model,
            "headers": {RUN_HEADER: run},
            "system_prompt": SYSTEM_PROMPT,
            "steps": limits.steps,
            "token_budget": limits.token_budget,
            "request_timeout": limits.request_timeout,
            # The child stops itself a little before the harness would kill it, so that a
            # run at its deadline still reports its calls and tokens, as ours do.
            "deadline": max(1.0, limits.deadline - _REPORT_MARGIN),
        }
        environment = {**os.environ, "TOOLSPECS_EVAL_KEY": endpoint.api_key or ""}
        # LlamaHub's get_date and load_data read the machine's zone: the world's, for them.
        environment["TZ"] = CALENDAR_ZONE
        # The fakes are on this machine: no proxy of the environment in between (the
        # user's own exceptions kept, for their endpoint).
        for name in ("NO_PROXY", "no_proxy"):
            kept = environment.get(name, "")
            environment[name] = ",".join(p for p in (kept, "127.0.0.1,localhost") if p)
        child = await asyncio.create_subprocess_exec(
            str(chosen),
            str(CHILD),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
        )
        try:
            out, err = await child.communicate(json.dumps(job).encode())
        except BaseException:  # the run's deadline, or Ctrl-C: the child goes too
            if child.returncode is None:
                child.kill()
                await child.wait()
            raise
        try:
            report = json.loads(out[-_OUTPUT_LIMIT:].decode().strip().splitlines()[-1])
        except (IndexError, ValueError):
            tail = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
            raise RunStopped("error", f"the LlamaHub run failed: {tail[0][:300]}") from None
        result.calls = int(report["calls"])
        result.tool_errors = dict(report["tool_errors"])
        result.prompt_tokens = int(report["prompt_tokens"])
        result.completion_tokens = int(report["completion_tokens"])
        if report["stopped"]:
            raise RunStopped(report["stopped"], report["error"])
        return str(report["answer"])

    return run_llamahub
