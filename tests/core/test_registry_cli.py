import json
from pathlib import Path

import pytest
import responses

from toolspecs.core import ConfigurationError, list_specs, load_spec
from toolspecs.core.cli import main
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
