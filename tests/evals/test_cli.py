"""``toolspecs eval`` as a person runs it: one line for what stops it, results kept.

The endpoint is a fake on 127.0.0.1 speaking chat completions (FakeOpenAI); the harness
goes through the ``openai`` SDK (the preflight) and llama-index's OpenAILike, over sockets.
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest

from toolspecs.agents.testing import FakeOpenAI
from toolspecs.cli import main
from toolspecs.evals import cli as eval_cli
from toolspecs.evals import run as eval_run


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_help_says_it_uses_sandboxes_only_and_what_it_costs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "sandboxes only" in out
    assert "tokens" in out
    assert "--tools" in out and "llamahub" in out


def test_list_names_each_task_with_its_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--list", "--tasks", "wolfram_alpha"]) == 0
    out = capsys.readouterr().out
    assert "wolfram_alpha.arithmetic" in out
    assert "lookup" in out


def test_a_pattern_matching_no_task_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--list", "--tasks", "nosuch.*"]) == 2
    assert "no task matches 'nosuch.*'" in one_line(capsys)


def test_a_missing_key_is_one_line_and_nothing_is_written(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "out"
    assert main(["eval", "--model", "gpt-4.1-mini", "--out", str(out)]) == 2
    line = one_line(capsys)
    assert "set OPENAI_API_KEY" in line and "--api-key-env" in line
    assert not out.exists()


def test_an_endpoint_that_does_not_answer_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    url = f"http://127.0.0.1:{port}/v1"
    assert main(["eval", "--model", "m", "--base-url", url, "--out", str(tmp_path)]) == 2
    assert f"no answer from {url}" in one_line(capsys)


def test_a_model_that_does_not_call_tools_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    fake = FakeOpenAI(["Pong! (I have no tools.)"])
    with fake.serve() as url:
        assert main(["eval", "--model", "m", "--base-url", url, "--out", str(tmp_path)]) == 2
    assert "did not call a tool when asked to" in one_line(capsys)


class Refusing(FakeOpenAI):
    """An endpoint that refuses every key."""

    def handle(self, request: httpx.Request) -> httpx.Response:
        error = {"message": "Incorrect API key provided", "type": "invalid_request_error"}
        return httpx.Response(401, json={"error": error})


def test_a_refused_key_is_one_line_that_does_not_show_the_key(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MY_KEY", "sk-secret-value")
    with Refusing().serve() as url:
        code = main(
            [
                "eval",
                "--model",
                "m",
                "--base-url",
                url,
                "--api-key-env",
                "MY_KEY",
                "--out",
                str(tmp_path),
            ]
        )
    assert code == 2
    line = one_line(capsys)
    assert "refused the key" in line
    assert "sk-secret-value" not in line


def test_a_run_with_a_real_endpoint_writes_results_summary_and_chart(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The preflight's tool call, then a model that answers without its tools: the task runs
    # to its end and fails its check; nothing about the run stops the report.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    fake = FakeOpenAI(
        [[("ping", {})], "I think it is about 1.35 billion.", "I think it is about 1.35 billion."]
    )
    with fake.serve() as url:
        code = main(
            [
                "eval",
                "--model",
                "m",
                "--base-url",
                url,
                "--tasks",
                "wolfram_alpha.arithmetic",
                "--out",
                str(tmp_path),
                "--no-progress",
            ]
        )
    assert code == 0
    (line,) = (tmp_path / "results.jsonl").read_text().splitlines()
    result = json.loads(line)
    assert result["task"] == "wolfram_alpha.arithmetic"
    assert result["outcome"] == "failed"
    assert result["failed"] == ["the answer gives 1350222895.85"]
    assert result["model"] == "m" and result["tools"] == "ours"
    out = capsys.readouterr().out
    assert "ours / m" in out and "0%" in out
    page = (tmp_path / "chart.html").read_text()
    assert page.startswith("<!doctype html>") and "<svg" in page and "<script" not in page
    # The agent's requests carried the tools and the key, as a real endpoint needs.
    assert fake.tool_names(1) == ["wolfram_alpha_query", "wolfram_alpha_pods"]


def test_ctrl_c_keeps_the_results_of_the_runs_that_finished(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    async def cut_short(*args: Any, done: Any, **kwargs: Any) -> None:
        done(
            eval_run.RunResult(
                "wolfram_alpha.arithmetic",
                "wolfram_alpha",
                ("lookup",),
                "ours",
                "scripted",
                1,
                "passed",
                calls=1,
            )
        )
        raise KeyboardInterrupt

    monkeypatch.setattr(eval_run, "run_suite", cut_short)
    code = main(
        [
            "eval",
            "--model",
            "scripted",
            "--tasks",
            "wolfram_alpha.arithmetic",
            "--runs",
            "3",
            "--out",
            str(tmp_path),
            "--no-progress",
        ]
    )
    assert code == 130
    err = capsys.readouterr().err
    assert "stopped (Ctrl-C) after 1 of 3 runs" in err
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 1
    assert "100%" in (tmp_path / "summary.txt").read_text()


def test_without_the_evals_package_the_command_says_what_to_install(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [])
    assert main(["eval", "--model", "x"]) == 2
    assert "pip install toolspecs-evals" in one_line(capsys)
    assert eval_cli.command is not None


def llamahub_python() -> Path:
    from installed import missing

    from toolspecs.evals import llamahub

    python = llamahub.default_python()
    if not python.exists():
        missing(f"the LlamaHub environment ({python}): `toolspecs eval --setup-llamahub` makes it")
    return python


@pytest.mark.serving  # starts the LlamaHub environment's Python: once, on one Python
def test_tools_llamahub_runs_side_by_side_with_ours_on_the_same_worlds(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    python = llamahub_python()
    code = main(
        [
            "eval",
            "--model",
            "scripted",
            "--tools",
            "ours",
            "llamahub",
            "--llamahub-python",
            str(python),
            "--tasks",
            "wolfram_alpha.arithmetic",
            "--out",
            str(tmp_path),
            "--no-progress",
        ]
    )
    assert code == 0
    results = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert sorted(r["tools"] for r in results) == ["llamahub", "ours"]
    # LlamaHub's wolfram_alpha_query reached the world's fake and answered the same sum.
    assert all(r["outcome"] == "passed" and r["calls"] == 1 for r in results), results
    llamahub, ours = sorted(results, key=lambda r: r["tools"])
    assert llamahub["prompt_tokens"] > 0 and ours["prompt_tokens"] > 0
    out = capsys.readouterr().out
    assert "llamahub / scripted" in out and "ours / scripted" in out
    assert "llamahub / scripted" in (tmp_path / "chart.html").read_text()


def test_tools_llamahub_without_its_environment_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    nowhere = tmp_path / "no-env" / "bin" / "python"
    args = ["eval", "--model", "scripted", "--tools", "llamahub", "--llamahub-python", str(nowhere)]
    assert main([*args, "--out", str(tmp_path / "out")]) == 2
    line = one_line(capsys)
    assert "toolspecs eval --setup-llamahub" in line
    assert not (tmp_path / "out").exists()


def test_a_check_that_raises_fails_its_run_and_says_so() -> None:
    from toolspecs.evals.task import Check, Ending, Task

    def broken(ending: Ending) -> bool:
        return ending.answer.split()[5] == "x"  # an answer shorter than the check foresaw

    task = Task(
        id="wolfram_alpha.probe",
        specs=("wolfram_alpha",),
        request="?",
        checks=(Check("the sixth word is x", broken), Check("it answers", lambda e: True)),
        reason="a probe",
        techniques=("lookup",),
        solution=["short"],
    )
    failed = task.judge(Ending(world=None, answer="short"))  # type: ignore[arg-type]
    assert failed == ["the sixth word is x (the check raised IndexError: list index out of range)"]


def test_a_results_folder_is_never_written_twice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "results.jsonl").write_text("{}\n")
    args = ["eval", "--model", "scripted", "--tasks", "wolfram_alpha.arithmetic"]
    assert main([*args, "--out", str(tmp_path)]) == 2
    assert "has results already" in one_line(capsys)
    assert (tmp_path / "results.jsonl").read_text() == "{}\n"


class Echoing(FakeOpenAI):
    """An endpoint that calls the preflight's tool, then fails saying the key it was sent."""

    def handle(self, request: httpx.Request) -> httpx.Response:
        if not self.requests:
            return super().handle(request)
        self.requests.append({})
        said = f"Bad request for key {request.headers.get('authorization', '')}"
        return httpx.Response(400, json={"error": {"message": said, "type": "invalid"}})


def test_a_key_an_endpoint_echoes_is_not_written_to_the_results(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    fake = Echoing([[("ping", {})]])
    with fake.serve() as url:
        args = ["eval", "--model", "m", "--base-url", url, "--tasks", "wolfram_alpha.arithmetic"]
        assert main([*args, "--out", str(tmp_path), "--no-progress"]) == 0
    written = (tmp_path / "results.jsonl").read_text()
    result = json.loads(written)
    assert result["outcome"] == "model error"
    assert "Bad request for key Bearer ***" in result["error"]
    for name in ("results.jsonl", "summary.txt", "chart.html"):
        assert "sk-secret-value" not in (tmp_path / name).read_text()


def test_a_command_that_fails_to_load_leaves_the_others_working(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.metadata

    broken = importlib.metadata.EntryPoint(
        name="broken", value="toolspecs.nosuchmodule:command", group="toolspecs.commands"
    )
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [broken])
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    err = capsys.readouterr().err
    assert "the command 'broken' (toolspecs.nosuchmodule:command) did not load" in err


@pytest.mark.serving  # starts the LlamaHub environment's Python
def test_a_llamahub_run_at_its_deadline_keeps_its_calls_and_tokens(tmp_path: Path) -> None:
    import threading

    from toolspecs.evals import llamahub, suite
    from toolspecs.evals.run import Endpoint, Limits, run_suite
    from toolspecs.evals.scripted import ScriptedModel

    python = llamahub_python()

    def slow(talk: Any) -> str:
        # Past the child's own deadline (the run's less its margin). Not time.sleep, which
        # tests/conftest.py's no_backoff_sleep makes a no-op.
        threading.Event().wait(35)
        return "too late"

    model = ScriptedModel(lambda task: [[("wolfram_alpha_query", {"query": "2+2"})], slow])
    with model.serve() as url:
        (result,) = asyncio.run(
            run_suite(
                suite.choose(["wolfram_alpha.arithmetic"]),
                ["llamahub"],
                Endpoint(url, "scripted"),
                limits=Limits(deadline=25.0),
                runners={"llamahub": llamahub.runner(python)},
                scripted=model,
            )
        )
    assert result.outcome == "deadline", result
    assert result.calls == 1 and result.prompt_tokens > 0
