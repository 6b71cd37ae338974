"""Docs are tested: the README's "Use it from an MCP client" runs and its commands parse."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from toolspecs.cli import build_parser
from toolspecs.cli.assemble import ServeSettings, build_specs, served_tools

ROOT = Path(__file__).parents[2]


def section(title: str = "Use it from an MCP client") -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    body = text.split(f"\n### {title}\n", 1)[1]
    return re.split(r"\n##+ ", body, maxsplit=1)[0]


def blocks(language: str, title: str = "Use it from an MCP client") -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section(title), re.DOTALL)


def serve_arguments(argv: list[str]) -> list[str]:
    """What follows the ``toolspecs`` program in a command line."""
    at = next(i for i, word in enumerate(argv) if word == "toolspecs" and argv[i + 1] == "serve")
    return argv[at + 1 :]


@pytest.mark.dates
def test_the_python_example_runs(capsys):
    (code,) = blocks("python")
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    assert "load_data was called wrongly" in capsys.readouterr().out


@pytest.mark.dates
def test_the_client_configuration_parses_and_its_command_lines_are_accepted(monkeypatch):
    snippet, _ = blocks("json")
    servers = json.loads(snippet)["mcpServers"]
    assert set(servers) == {"toolspecs-sandbox", "toolspecs"}
    for server in servers.values():
        assert server["command"] in ("uv", "uvx")
        args = build_parser().parse_args(serve_arguments(server["args"]))
        assert args.command == "serve"
        settings = ServeSettings.from_args(args)
        for key, value in server.get("env", {}).items():
            monkeypatch.setenv(key, value)
        # Every spec and option exists and every value is read (no file is opened yet).
        assert served_tools(build_specs(settings), settings.prefixes)
    uvx = servers["toolspecs"]["args"]
    assert uvx[:2] == ["--from", "toolspecs"]
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    # The umbrella brings the server (and with it the toolspecs command) without an extra.
    assert '"toolspecs-server>=' in pyproject.split("[project.optional-dependencies]")[0]


def test_the_http_client_configuration_sends_the_token_to_the_served_url():
    _, snippet = blocks("json")
    (server,) = json.loads(snippet)["mcpServers"].values()
    assert server["type"] == "http"
    shell = blocks("bash")[0]
    http = next(line for line in shell.splitlines() if "--http" in line)
    args = build_parser().parse_args(serve_arguments(shlex.split(http.split("#")[0])))
    assert server["url"] == f"http://{args.host}:{args.port}/mcp"
    assert server["headers"] == {"Authorization": "Bearer PASTE-THE-TOKEN-HERE"}


def test_the_shell_commands_parse():
    (first,) = blocks("bash")
    lines = [line.split("#")[0] for line in first.splitlines() if line.strip()]
    assert len(lines) == 2
    for line in lines:
        args = build_parser().parse_args(serve_arguments(shlex.split(line)))
        assert args.command == "serve"


def test_the_deploy_for_a_team_commands_parse_and_the_client_names_the_audience():
    behind, delegating, signing_in = blocks("bash", "Deploy for a team")
    args = build_parser().parse_args(serve_arguments(shlex.split(behind.replace("\\\n", " "))))
    assert args.command == "serve" and args.http
    assert args.auth_issuer == "https://id.example.com"
    assert args.auth_audience == "https://mcp.example.com/mcp"
    assert args.store.startswith("redis://") and args.log_format == "json"
    command = next(line for line in signing_in.split("\n", 1)[1:])  # after the export line
    google = build_parser().parse_args(serve_arguments(shlex.split(command.replace("\\\n", " "))))
    assert google.google_sign_in and google.stateless and google.store.startswith("redis://")
    line = delegating.replace("\\\n", " ")
    delegate = build_parser().parse_args(serve_arguments(shlex.split(line)))
    assert delegate.auth_issuer == args.auth_issuer and delegate.auth_audience == args.auth_audience
    assert delegate.google_delegate == "/secrets/sa.json"
    assert delegate.google_domain == ["example.com"]
    (config,) = blocks("json", "Deploy for a team")
    (client,) = json.loads(config)["mcpServers"].values()
    assert client == {"type": "http", "url": args.auth_audience}
