"""toolspecs-core is the framework alone: no module of its wheel needs the server's libraries.

A user who installs one spec gets core with it; the MCP server, its OAuth and Google sign-in
(``toolspecs-server``) and their libraries must not come along, at import or later. Checked
two ways: every module of core's tree imported in a fresh interpreter leaves none of them in
``sys.modules``, and no module of the tree names one in an import, even inside a function
(where a fresh import would not reach it). ``.ci/wheels`` checks the same on the built wheel
installed alone, where these libraries are not even installed.

The server, in turn, names no Google library: serving many Google users (sign in with
Google, delegation, each user's Google credentials) is the Google packages' own
(``toolspecs.hosting.google``, reached through an entry point, issue 39).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).parents[2] / "core" / "src"
SERVER = Path(__file__).parents[2] / "server" / "src"

# What the server needs and a spec's user must not pay for (issue 39's list).
SERVER_SIDE = (
    "mcp",
    "jwt",
    "google.auth",
    "google_auth_oauthlib",
    "uvicorn",
    "starlette",
    "cryptography",
    "toolspecs.server",
    "toolspecs.cli",
)


def core_modules() -> list[str]:
    names = []
    for path in sorted((CORE / "toolspecs").rglob("*.py")):
        parts = path.relative_to(CORE).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


# What only the Google packages' hosting imports (google-auth, its OAuth flow).
GOOGLE_SIDE = ("google.auth", "google.oauth2", "google_auth_oauthlib")


def among(name: str, tops: tuple[str, ...]) -> bool:
    return any(name == top or name.startswith(f"{top}.") for top in tops)


def server_side(name: str) -> bool:
    return among(name, SERVER_SIDE)


def test_core_is_a_package_of_its_own():
    modules = core_modules()
    assert "toolspecs.core.spec" in modules and "toolspecs.adapters.openai" in modules
    assert not [m for m in modules if m.startswith(("toolspecs.server", "toolspecs.cli"))]


def test_importing_every_module_of_core_loads_none_of_the_servers_libraries():
    script = (
        "import importlib, json, sys\n"
        f"for name in {core_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = json.loads(done.stdout)
    assert "toolspecs.adapters.lagent" in loaded  # every module, the hosts' included
    assert [m for m in loaded if server_side(m)] == []


def named_imports(tree: Path, tops: tuple[str, ...]) -> dict[str, list[str]]:
    """The modules of ``tree`` that name one of ``tops`` in an import, anywhere in them."""
    named: dict[str, list[str]] = {}
    for path in sorted((tree / "toolspecs").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found = [node.module]
            elif (  # import_module("mcp...") and the adapters' require("mcp...", extra)
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", getattr(node.func, "id", ""))
                in ("import_module", "require")
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found = [str(node.args[0].value)]
            else:
                continue
            bad = [name for name in found if among(name, tops)]
            if bad:
                named.setdefault(str(path.relative_to(tree)), []).extend(bad)
    return named


def test_no_module_of_core_names_a_server_library_even_inside_a_function():
    assert named_imports(CORE, SERVER_SIDE) == {}


def test_no_module_of_the_server_names_google_auth_even_inside_a_function():
    modules = sorted(str(p.relative_to(SERVER)) for p in SERVER.rglob("*.py"))
    assert "toolspecs/server/signin_app.py" in modules and "toolspecs/cli/hosting.py" in modules
    assert named_imports(SERVER, GOOGLE_SIDE) == {}
