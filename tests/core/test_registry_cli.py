import json
from pathlib import Path

import pytest
import responses

from toolspecs.cli import main
from toolspecs.core import ConfigurationError, list_specs, load_spec
from toolspecs.loaders.arxiv import ArxivClient
from toolspecs.specs.arxiv import ArxivToolSpec

FEED = (Path(__file__).parents[1] / "fixtures" / "arxiv" / "hep_ex_electron.xml").read_text()


def test_registry_finds_and_builds_specs():
    assert "arxiv" in list_specs()
    spec = load_spec("arxiv", max_results=5)
    assert isinstance(spec, ArxivToolSpec)
    assert spec.max_results == 5


def test_registry_errors_say_what_exists():
    with pytest.raises(ConfigurationError, match=r"installed specs: .*arxiv"):
        load_spec("nope")
    with pytest.raises(ConfigurationError, match="cannot build spec 'arxiv'"):
        load_spec("arxiv", colour="red")


def test_cli_list_shows_tools_and_token_costs(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "arxiv" in out
    assert "arxiv_query" in out
    assert "tokens" in out


def test_cli_schema_openai_is_json(capsys):
    assert main(["schema", "arxiv", "--format", "openai"]) == 0
    tools = json.loads(capsys.readouterr().out)
    assert tools[0]["function"]["name"] == "arxiv_query"


def test_cli_schema_text(capsys):
    assert main(["schema", "arxiv"]) == 0
    assert "## arxiv_query" in capsys.readouterr().out


@pytest.fixture
def fast_client(monkeypatch):
    client = ArxivClient(delay_seconds=0, num_retries=1, timeout=5)
    monkeypatch.setattr("toolspecs.loaders.arxiv.reader.shared_client", lambda: client)
    return client


def test_cli_call_prints_what_the_agent_sees(capsys, mocked_responses, fast_client):
    mocked_responses.add(responses.GET, "https://export.arxiv.org/api/query", body=FEED)
    assert main(["call", "arxiv.arxiv_query", "query=electron", "max_results=1"]) == 0
    out = capsys.readouterr().out
    assert (
        "Title: Multi-Electron Production at High Transverse Momenta in ep Collisions at HERA"
        in out
    )
    assert "arXiv id: hep-ex/0307015v1" in out


def test_cli_call_with_json(capsys, mocked_responses, fast_client):
    mocked_responses.add(responses.GET, "https://export.arxiv.org/api/query", body=FEED)
    assert (
        main(["call", "arxiv.arxiv_query", "--json", '{"query": "electron", "sort_by": "newest"}'])
        == 0
    )
    assert "sortBy=submittedDate" in mocked_responses.calls[0].request.url


def test_cli_call_guidance_exits_1(capsys):
    assert main(["call", "arxiv.arxiv_paper_text", "pages=500"]) == 1
    assert "missing required argument 'paper_id'" in capsys.readouterr().out
    assert main(["call", "arxiv.arxiv_query", "max_results=500"]) == 1
    out = capsys.readouterr().out
    assert "500 is above the maximum of 50" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["call", "nope.fn"], "no spec named 'nope'; installed specs:"),
        (["call", "arxiv"], "is not SPEC.FUNCTION"),
        (["call", "arxiv.nope"], "has no tool 'nope'; its tools: arxiv_query"),
        (["call", "arxiv.arxiv_query", "query"], "is not key=value"),
        (["call", "arxiv.arxiv_query", "--json", "{bad"], "--json is not valid JSON"),
        (["call", "arxiv.arxiv_query", "--json", "[1]"], "--json must be a JSON object"),
        (["schema", "nope"], "no spec named 'nope'"),
    ],
)
def test_cli_mistakes_get_one_line_and_exit_2(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def _with_sandboxes(monkeypatch, *extra):
    """The installed sandboxes and ``extra`` ones, as a third-party package would add them."""
    from toolspecs.core import registry

    installed = registry.entry_points

    def found(group):
        listed = list(installed(group=group))
        return listed + list(extra) if group == registry.SANDBOX_GROUP else listed

    monkeypatch.setattr(registry, "entry_points", found)


def _sandbox(name, value):
    from importlib.metadata import EntryPoint

    return EntryPoint(name, value, "toolspecs.sandboxes")


def test_sandboxes_come_from_the_specs_entry_points_not_from_core():
    from importlib.metadata import entry_points

    from toolspecs.core.registry import list_sandboxes

    registered = {ep.name: ep.value for ep in entry_points(group="toolspecs.sandboxes")}
    assert registered == {
        "arxiv": "toolspecs.specs.arxiv.sandbox:arguments",
        "gmail": "toolspecs.specs.gmail.sandbox:arguments",
        "google_calendar": "toolspecs.specs.google_calendar.sandbox:arguments",
        "wolfram_alpha": "toolspecs.specs.wolfram_alpha.sandbox:arguments",
    }
    assert list_sandboxes() == ("arxiv", "gmail", "google_calendar", "wolfram_alpha")
    # Nothing in toolspecs-core or toolspecs-server (the framework, the hosts, the CLI)
    # imports a spec, a loader or a fake: what is installed is what the entry points say.
    root = Path(__file__).parents[2]
    for member in ("core", "server"):
        for module in (root / member / "src" / "toolspecs").rglob("*.py"):
            assert not _imported(module) & {"toolspecs.specs", "toolspecs.loaders"}, module


def _imported(module: Path) -> set[str]:
    """The top two levels of every module ``module`` imports, import_module calls included."""
    import ast

    names: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names.add(str(node.args[0].value))
    return {".".join(name.split(".")[:2]) for name in names}


def test_a_third_party_sandbox_is_found_like_the_built_ins(monkeypatch):
    import toolspecs.specs.arxiv.sandbox as arxiv_sandbox
    from toolspecs.core.registry import list_sandboxes, sandbox_arguments, sandbox_spec

    monkeypatch.setattr(arxiv_sandbox, "mine", lambda: {"max_results": 3}, raising=False)
    _with_sandboxes(
        monkeypatch,
        _sandbox("mine", "toolspecs.specs.arxiv.sandbox:mine"),
        # A later registration under a spec's name replaces its sandbox.
        _sandbox("arxiv", "toolspecs.specs.arxiv.sandbox:mine"),
    )
    assert "mine" in list_sandboxes()
    assert sandbox_arguments("Mine") == {"max_results": 3}
    # The sandbox's arguments win over the options given with it.
    assert sandbox_spec("arxiv", max_results=9).max_results == 3


def test_sandbox_mistakes_say_what_to_do(monkeypatch):
    from toolspecs.core.registry import sandbox_arguments

    _with_sandboxes(
        monkeypatch,
        _sandbox("broken", "toolspecs_not_installed.sandbox:arguments"),
        _sandbox("text", "toolspecs.specs.arxiv.sandbox:__doc__"),
        _sandbox("listed", "toolspecs.specs.arxiv.sandbox:__all__.copy"),
    )
    with pytest.raises(ConfigurationError, match="spec 'nope' has no sandbox; sandboxes: arxiv"):
        sandbox_arguments("nope")
    with pytest.raises(
        ConfigurationError, match="the broken sandbox needs its package: pip install"
    ):
        sandbox_arguments("broken")
    with pytest.raises(ConfigurationError, match=r"sandbox 'text' \(.*\) is not a function"):
        sandbox_arguments("text")
    with pytest.raises(ConfigurationError, match="returned list, not a dict of constructor"):
        sandbox_arguments("listed")
