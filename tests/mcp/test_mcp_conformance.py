"""A client nobody here wrote: the official MCP conformance suite against `toolspecs serve --http`.

tests/conformance pins ``@modelcontextprotocol/conformance`` and Node 22 (npm's ``node``
package: the suite needs 22, a fresh CI machine has 20) in its package-lock.json; .ci/run
installs them with ``npm ci --prefix tests/conformance``. The suite's ``server`` command
takes only a URL, and our server answers only requests carrying its token: a loopback proxy
(bearer_proxy.py) adds the header, and the server is told that the proxy's address is one
its clients use (``--allowed-host``), so the suite's DNS-rebinding scenario reaches our
check with the ``Host`` and ``Origin`` it chose.

The scenarios that apply to a server without the reference server's test tools run, each in
a node process of its own, all at once, against ``toolspecs serve`` stateful and
``--stateless``; each must pass: no check failed or warned, at least one succeeded. The
others are in LEFT_OUT with the reason, and every scenario the pinned suite lists is in one
of the two, so a new version's scenarios get looked at.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
from pathlib import Path

import httpx
import pytest
from bearer_proxy import bearer_proxy
from installed import missing
from serving import toolspecs_serve

pytestmark = pytest.mark.serving

PACKAGES = Path(__file__).parents[1] / "conformance"
NODE = PACKAGES / "node_modules" / "node" / "bin" / "node"  # Node 22, npm's node package
SUITE = PACKAGES / "node_modules" / "@modelcontextprotocol" / "conformance"
TOKEN = "test-token-" + "c" * 32
SPECS = ["gmail", "google_calendar", "arxiv", "wolfram_alpha"]

APPLIES = [
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",  # the suite's session has stored nothing: an empty list, its shape
    "prompts-list",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
]
STATEFUL_ONLY = {
    "server-sse-multiple-streams": "it needs a session id: with --stateless (none) the "
    "scenario stops at once with a warning and checks nothing",
}
_TEST_TOOL = "calls the reference server's test tool {}"
LEFT_OUT = {
    "logging-set-level": "logging/setLevel: we declare no logging capability (a call "
    "reports through progress notifications and its result)",
    "tools-call-with-logging": "sets a log level (no logging capability) and calls the "
    "reference server's test_tool_with_logging",
    "completion-complete": "completion/complete: we declare no completions capability, and "
    "it completes the reference server's test_prompt_with_arguments",
    "tools-call-simple-text": _TEST_TOOL.format("test_simple_text"),
    "tools-call-image": _TEST_TOOL.format("test_image_content"),
    "tools-call-audio": _TEST_TOOL.format("test_audio_content"),
    "tools-call-embedded-resource": _TEST_TOOL.format("test_embedded_resource"),
    "tools-call-mixed-content": _TEST_TOOL.format("test_multiple_content_types"),
    "tools-call-error": _TEST_TOOL.format("test_error_handling"),
    "tools-call-with-progress": _TEST_TOOL.format("test_tool_with_progress"),
    "tools-call-sampling": _TEST_TOOL.format("test_sampling"),
    "tools-call-elicitation": _TEST_TOOL.format("test_elicitation"),
    "elicitation-sep1034-defaults": _TEST_TOOL.format("test_elicitation_sep1034_defaults"),
    "elicitation-sep1330-enums": _TEST_TOOL.format("test_elicitation_sep1330_enums"),
    "json-schema-2020-12": "pending in the suite; " + _TEST_TOOL.format("json_schema_2020_12_tool"),
    "server-sse-polling": "pending in the suite; "
    + _TEST_TOOL.format("test_reconnection")
    + " (which closes the stream mid-call), and its call says MCP-Protocol-Version "
    "2025-03-26: mcp sends the priming event and retry field it looks for to clients of "
    "2025-11-25 on only (stateful sessions resume: tests/mcp/test_mcp_resume.py)",
    "resources-read-text": "reads the reference server's test://static-text (ours are the "
    "results a session's own calls stored)",
    "resources-read-binary": "reads the reference server's test://static-binary",
    "resources-templates-read": "reads the reference server's test://template/123/data",
    "resources-subscribe": "resources/subscribe: we declare subscribe false",
    "resources-unsubscribe": "resources/unsubscribe: we declare subscribe false",
    "prompts-get-simple": "gets the reference server's test_simple_prompt",
    "prompts-get-with-args": "gets the reference server's test_prompt_with_arguments",
    "prompts-get-embedded-resource": "gets the reference server's "
    "test_prompt_with_embedded_resource",
    "prompts-get-with-image": "gets the reference server's test_prompt_with_image",
}


def suite_command() -> list[str]:
    """``node22 conformance``; skipped (failed under CI) where they are not installed."""
    if not (NODE.is_file() and (SUITE / "package.json").is_file()):
        missing(
            "the MCP conformance suite and Node 22 are not installed: "
            "run `npm ci --prefix tests/conformance`"
        )
    bin_path = json.loads((SUITE / "package.json").read_text())["bin"]["conformance"]
    return [str(NODE), str(SUITE / bin_path)]


def node_env() -> dict[str, str]:
    """This environment with Node 22 first on ``PATH``."""
    return {**os.environ, "PATH": f"{NODE.parent}{os.pathsep}{os.environ.get('PATH', '')}"}


def capabilities(url: str) -> dict:
    """What the server behind the proxy at ``url`` declares to an initialize (no token sent)."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "toolspecs-tests", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    answer = httpx.post(url, json=initialize, headers=accept, timeout=30)
    assert answer.status_code == 200, answer.text
    # On an SSE stream the answer follows a priming event (an id, empty data).
    lines = answer.text.splitlines()
    data = [line[5:] for line in lines if line.startswith("data:") and line[5:].strip()]
    return json.loads(data[0] if data else answer.text)["result"]["capabilities"]


def run_scenarios(url: str, scenarios: list[str], results: Path) -> dict[str, list[dict]]:
    """Each scenario's checks (the suite's checks.json), each run in a node process, at once."""
    command = suite_command()
    running = {
        name: subprocess.Popen(
            [*command, "server", "--url", url, "--scenario", name, "-o", str(results / name)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=node_env(),
        )
        for name in scenarios
    }
    checks = {}
    for name, process in running.items():
        try:
            output, _ = process.communicate(timeout=120)
        finally:
            process.kill()
        saved = sorted((results / name).glob("*/checks.json"))
        assert saved, f"{name}: the suite saved no checks (exit {process.returncode}):\n{output}"
        checks[name] = json.loads(saved[-1].read_text())
    return checks


def failures(checks: dict[str, list[dict]]) -> dict[str, list[str]]:
    """The scenarios that did not pass: each failed or warning check, with its message."""
    failed = {}
    for name, found in checks.items():
        wrong = [
            f"{c['id']} {c['status']}: {c.get('errorMessage', '')}"
            for c in found
            if c["status"] in ("FAILURE", "WARNING")
        ]
        if wrong or not any(c["status"] == "SUCCESS" for c in found):
            failed[name] = wrong or ["no check succeeded"]
    return failed


@pytest.mark.parametrize("mode", [[], ["--stateless"]], ids=["stateful", "stateless"])
def test_the_official_conformance_suite_passes_the_scenarios_that_apply(mode, tmp_path):
    suite_command()  # before starting anything
    scenarios = [s for s in APPLIES if not (mode and s in STATEFUL_ONLY)]
    listening = socket.create_server(("127.0.0.1", 0))
    proxy = f"127.0.0.1:{listening.getsockname()[1]}"
    env = {**os.environ, "TOOLSPECS_SERVE_TOKEN": TOKEN}
    try:
        serving = toolspecs_serve(*SPECS, "--allowed-host", proxy, *mode, env=env)
        with serving as (url, _), bearer_proxy(listening, _address(url), TOKEN):
            front = f"http://{proxy}/mcp"
            declared = capabilities(front)  # the proxy adds the token; none sent here
            # What LEFT_OUT says we do not declare.
            assert "logging" not in declared and "completions" not in declared
            assert declared["resources"].get("subscribe") is False
            checks = run_scenarios(front, scenarios, tmp_path)
    finally:
        listening.close()
    failed = failures(checks)
    assert not failed, "scenarios failed:\n" + "\n".join(
        f"- {name}: " + "; ".join(wrong) for name, wrong in failed.items()
    )
    assert set(checks) == set(scenarios)


def test_every_scenario_of_the_pinned_suite_is_run_or_left_out_with_a_reason():
    listed = subprocess.run(
        [*suite_command(), "list", "--server"],
        capture_output=True,
        text=True,
        timeout=120,
        env=node_env(),
        check=True,
    ).stdout
    scenarios = set(re.findall(r"^\s*- (\S+) \[", listed, flags=re.MULTILINE))
    assert "server-initialize" in scenarios
    assert scenarios == set(APPLIES) | set(LEFT_OUT), "classify the suite's new scenarios"
    assert not set(APPLIES) & set(LEFT_OUT)
    assert set(STATEFUL_ONLY) <= set(APPLIES)


def _address(url: str) -> tuple[str, int]:
    """``(host, port)`` of an ``http://HOST:PORT/...`` URL (IPv4)."""
    host, port = url.split("/")[2].rsplit(":", 1)
    return host, int(port)
