"""One run of a task with LlamaHub's specs: a program run by the LlamaHub environment's Python.

It imports LlamaHub's packages and llama-index only, never toolspecs (which that
environment does not have: LlamaHub's arXiv spec needs ``arxiv<3``, ours ``arxiv>=4``).
It reads one job (JSON) on standard input, builds LlamaHub's specs as published, pointed at
the world's fakes on 127.0.0.1 (the Google specs are given a ``service`` built with the
world's credentials and endpoint, which their ``_cache_service`` keeps; arXiv's client URL
and Wolfram's URL template are module settings), runs llama-index's ``FunctionAgent`` with
``OpenAILike``, and prints one JSON object: the final answer, the tool calls and tool
errors, the tokens the endpoint reported, and why it stopped, if it did. The endpoint's
key comes in ``$TOOLSPECS_EVAL_KEY``, never on the command line.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import sys
from typing import Any


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
    names = [tool.metadata.name for tools in built.values() for tool in tools]
    shared = {name for name in names if names.count(name) > 1}
    every: list[Any] = []
    for spec, tools in built.items():
        clash = any(tool.metadata.name in shared for tool in tools)
        every += _prefixed(tools, f"{spec}_") if clash else tools
    return every


async def run(job: dict[str, Any], report: dict[str, Any]) -> None:
    """Run the job's task; fills ``report``."""
    import httpx
    from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
    from llama_index.llms.openai_like import OpenAILike

    budget = int(job["token_budget"])

    async def before(request: httpx.Request) -> None:
        if report["prompt_tokens"] + report["completion_tokens"] > budget:
            report["stopped"] = "token budget"
            raise RuntimeError(f"the run's token budget ({budget:,}) is used up")

    async def after(response: httpx.Response) -> None:
        if response.headers.get("content-type", "").startswith("application/json"):
            await response.aread()
            try:
                usage = response.json().get("usage") or {}
            except ValueError:
                return
            report["prompt_tokens"] += int(usage.get("prompt_tokens") or 0)
            report["completion_tokens"] += int(usage.get("completion_tokens") or 0)

    client = httpx.AsyncClient(
        timeout=float(job["request_timeout"]),
        event_hooks={"request": [before], "response": [after]},
    )
    try:
        llm = OpenAILike(
            model=job["model"],
            api_base=job["base_url"],
            api_key=os.environ.get("TOOLSPECS_EVAL_KEY") or "none",
            is_chat_model=True,
            is_function_calling_model=True,
            context_window=128_000,
            max_retries=1,
            timeout=float(job["request_timeout"]),
            default_headers=job["headers"],
            async_http_client=client,
        )
        agent = FunctionAgent(
            tools=build_tools(job["specs"], job["world"]),
            llm=llm,
            system_prompt=job["system_prompt"],
            streaming=False,
        )
        handler = agent.run(user_msg=job["request"], max_iterations=int(job["steps"]))
        async for event in handler.stream_events():
            if isinstance(event, ToolCallResult):
                report["calls"] += 1
                if event.tool_output.is_error:  # kinds named as the harness names ours
                    exception = getattr(event.tool_output, "exception", None)
                    content = str(event.tool_output.content)
                    kind = (
                        type(exception).__name__
                        if exception is not None
                        else "unknown tool"
                        if content.startswith("Tool ") and "not found" in content
                        else "tool error"
                    )
                    report["tool_errors"][kind] = report["tool_errors"].get(kind, 0) + 1
        report["answer"] = str(await handler)
    finally:
        await client.aclose()


def main() -> int:
    """Read the job, run it, print the report (always one JSON line, last)."""
    job = json.loads(sys.stdin.read())
    report: dict[str, Any] = {
        "answer": "",
        "calls": 0,
        "tool_errors": {},
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "stopped": "",
        "error": "",
    }
    try:
        asyncio.run(asyncio.wait_for(run(job, report), float(job["deadline"])))
    except (asyncio.TimeoutError, TimeoutError):
        report["stopped"] = "deadline"
        report["error"] = f"no answer within {job['deadline']:g} s"
    except Exception as exc:  # the run's end, reported to the harness, not a crash
        text = f"{type(exc).__name__}: {exc}"
        seen = [exc, exc.__cause__, exc.__context__]
        if not report["stopped"]:
            if "Max iterations" in text:
                report["stopped"] = "steps"
            elif any(
                e is not None and type(e).__module__.startswith(("openai", "httpx")) for e in seen
            ):
                report["stopped"] = "model error"
            else:
                report["stopped"] = "error"
        report["error"] = text[:300]
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
