"""One run of a task with LlamaHub's specs: a program run by the LlamaHub environment's Python.

It imports LlamaHub's packages, llama-index and the harness's agent run (``agent.py``,
the file beside it, which imports no toolspecs), never toolspecs itself, which that
environment does not have (LlamaHub's arXiv spec needs ``arxiv<3``, ours ``arxiv>=4``).
It reads one job (JSON) on standard input, builds LlamaHub's specs as published, pointed at
the world's fakes on 127.0.0.1 (the Google specs are given a ``service`` built with the
world's credentials and endpoint, which their ``_cache_service`` keeps; arXiv's client URL
and Wolfram's URL template are module settings), runs them as the harness runs ours
(:mod:`toolspecs.evals.agent`), and prints one JSON object: the final answer, the tool
calls and tool errors, the tokens the endpoint reported, and why it stopped, if it did.
The endpoint's key comes in ``$TOOLSPECS_EVAL_KEY``, never on the command line.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import sys
from typing import Any

if __package__:  # imported as part of toolspecs.evals (type checkers, tests)
    from toolspecs.evals import agent
else:  # run as a script by the LlamaHub environment, which has no toolspecs: the file beside
    import agent  # type: ignore[no-redef]


def _prefixed(tools: list[Any], prefix: str) -> list[Any]:
    """The same tools, each name prefixed (two specs of a task share ``load_data``)."""
    from llama_index.core.tools import FunctionTool

    renamed = []
    for tool in tools:
        metadata = copy.copy(tool.metadata)  # a dataclass in llama-index
        metadata.name = prefix + tool.metadata.name
        renamed.append(FunctionTool(fn=tool.fn, async_fn=tool.async_fn, metadata=metadata))
    return renamed


def build_tools(specs: list[str], world: dict[str, Any]) -> list[Any]:
    """LlamaHub's tools of ``specs``, on the world's fakes."""
    built: dict[str, list[Any]] = {}
    if "gmail" in specs or "google_calendar" in specs:
        from google.oauth2.credentials import Credentials
        from googleapiclient.discovery import build
    if "gmail" in specs:
        from llama_index.tools.google import GmailToolSpec

        gmail = GmailToolSpec()
        gmail.service = build(
            "gmail",
            "v1",
            credentials=Credentials(world["gmail_token"]),  # type: ignore[no-untyped-call]
            client_options={"api_endpoint": world["google"]},
            cache_discovery=False,
        )
        built["gmail"] = gmail.to_tool_list()
    if "google_calendar" in specs:
        from llama_index.tools.google import GoogleCalendarToolSpec

        calendar = GoogleCalendarToolSpec()
        calendar.service = build(
            "calendar",
            "v3",
            credentials=Credentials(world["calendar_token"]),  # type: ignore[no-untyped-call]
            client_options={"api_endpoint": world["google"] + "calendar/v3/"},
            cache_discovery=False,
        )
        built["google_calendar"] = calendar.to_tool_list()
    if "arxiv" in specs:
        import arxiv
        from llama_index.tools.arxiv import ArxivToolSpec

        arxiv.Client.query_url_format = world["arxiv"].rstrip("/") + "/api/query?{}"
        built["arxiv"] = ArxivToolSpec().to_tool_list()
    if "wolfram_alpha" in specs:
        import llama_index.tools.wolfram_alpha.base as wolfram_base
        from llama_index.tools.wolfram_alpha import WolframAlphaToolSpec

        wolfram_base.QUERY_URL_TMPL = world["wolfram"].rstrip("/") + "/api/v1/llm-api"
        built["wolfram_alpha"] = WolframAlphaToolSpec(app_id=world["wolfram_app_id"]).to_tool_list()
    prefixed = agent.clashing(
        {spec: [tool.metadata.name for tool in tools] for spec, tools in built.items()}
    )
    every: list[Any] = []
    for spec, tools in built.items():
        every += _prefixed(tools, f"{spec}_") if spec in prefixed else tools
    return every


async def run(job: dict[str, Any], usage: agent.Usage, tally: agent.Tally) -> str:
    """Run the job's task with LlamaHub's tools, as the harness runs ours; the final answer."""
    client = usage.client(float(job["request_timeout"]))
    try:
        llm = agent.model(
            job["model"],
            job["base_url"],
            os.environ.get("TOOLSPECS_EVAL_KEY"),
            job["headers"],
            client,
            float(job["request_timeout"]),
        )
        tools = build_tools(job["specs"], job["world"])
        return await agent.play(
            tools, llm, job["system_prompt"], job["request"], int(job["steps"]), tally
        )
    finally:
        await client.aclose()


def main() -> int:
    """Read the job, run it, print the report (always one JSON line, last)."""
    job = json.loads(sys.stdin.read())
    usage, tally = agent.Usage(int(job["token_budget"])), agent.Tally()
    answer, stopped, error = "", "", ""
    try:
        answer = asyncio.run(asyncio.wait_for(run(job, usage, tally), float(job["deadline"])))
    except (asyncio.TimeoutError, TimeoutError):
        stopped, error = "deadline", f"no answer within {job['deadline']:g} s"
    except Exception as exc:  # the run's end, reported to the harness, not a crash
        stopped, error = agent.stopped(exc, usage)
    report = {
        "answer": answer,
        "calls": tally.calls,
        "tool_errors": dict(tally.errors),
        "prompt_tokens": usage.prompt,
        "completion_tokens": usage.completion,
        "stopped": stopped,
        "error": error,
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
