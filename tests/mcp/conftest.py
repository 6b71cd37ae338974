"""Fixtures of the MCP tests: the official TypeScript client (tests/mcp_client).

tests/mcp_client holds scripts of ``@modelcontextprotocol/sdk`` (pinned in its
package-lock.json, installed by ``npm ci --prefix tests/mcp_client``, which .ci/run does):
client.mjs lists and calls tools of a server command or URL, confirm.mjs answers its
questions. Where node or the SDK is missing the tests that use them are skipped with a
message saying how to install it, except under CI, where that is a failure
(tests/installed.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from installed import missing

CLIENT = Path(__file__).parents[1] / "mcp_client"
TOOLSPECS = Path(sys.executable).with_name("toolspecs")  # the installed console script


@dataclass(frozen=True)
class TypeScriptClient:
    """Runs a script of tests/mcp_client with node, in its folder."""

    node: str

    def run(
        self, script: str, *args: str, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``node script *args`` (bounded at five minutes), whatever it exits with."""
        return subprocess.run(
            [self.node, script, *args],
            cwd=CLIENT,
            capture_output=True,
            text=True,
            timeout=300,
            env=None if env is None else dict(env),
            check=False,
        )

    def answers(self, script: str, *args: str, env: Mapping[str, str] | None = None) -> Any:
        """The JSON the script printed; it must exit with 0."""
        done = self.run(script, *args, env=env)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def calls(self, calls: list[dict], *server: str, env: Mapping[str, str] | None = None) -> Any:
        """What client.mjs received making ``calls`` of ``server`` (a command or a URL)."""
        return self.answers("client.mjs", json.dumps(calls), *server, env=env)

    def serve(self, calls: list[dict], *serve_args: str) -> Any:
        """What client.mjs received from ``toolspecs serve *serve_args`` making ``calls``."""
        return self.calls(calls, str(TOOLSPECS), "serve", *serve_args)


@pytest.fixture
def typescript_client() -> TypeScriptClient:
    """The official TypeScript client; skipped (failed under CI) where it is not installed."""
    node = shutil.which("node")
    if node is None:
        missing("node is not installed")
    if not (CLIENT / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        missing("the TypeScript client is not installed: run `npm ci --prefix tests/mcp_client`")
    return TypeScriptClient(node)
