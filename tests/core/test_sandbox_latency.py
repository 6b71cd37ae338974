"""The sandbox fakes wait a given latency before each answer, as a real service would.

``toolspecs serve --sandbox --sandbox-latency 150ms`` (and ``sandbox_spec(name,
latency=0.15)``) hands the latency to each sandbox, whose fake waits that long before
answering each request, so that a benchmark shows what a deployment sees. Checked by the
waits each fake asks for (``fake.sleep`` replaced by a recorder), not by timing, on a
server the test starts with the sandbox's public ``start`` and reaches with its
``connect`` (the arguments its ``arguments`` returns).
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

import pytest

from toolspecs.cli import main
from toolspecs.cli.assemble import ServeSettings, build_specs
from toolspecs.cli.parser import duration
from toolspecs.core import ConfigurationError, load_spec
from toolspecs.core.registry import list_sandboxes, sandbox_arguments

SANDBOXES = ("arxiv", "gmail", "google_calendar", "wolfram_alpha")


def sandbox(name: str) -> Any:
    """The sandbox module of spec ``name``."""
    return importlib.import_module(f"toolspecs.specs.{name}.sandbox")


def fake_of(name: str, server: Any) -> Any:
    """The fake a sandbox's server answers with (Google's serves a calendar and a mailbox)."""
    return getattr(server, {"gmail": "gmail", "google_calendar": "calendar"}.get(name, "fake"))


def started(monkeypatch: pytest.MonkeyPatch, name: str) -> list[Any]:
    """The servers sandbox ``name`` starts from now on (its ``start``, recorded)."""
    module, servers = sandbox(name), []
    start = module.start

    def recorded(*args: Any, **kwargs: Any) -> Any:
        servers.append(start(*args, **kwargs))
        return servers[-1]

    monkeypatch.setattr(module, "start", recorded)
    return servers


@pytest.mark.dates
@pytest.mark.parametrize("name", SANDBOXES)
def test_every_shipped_sandbox_takes_a_latency(name):
    assert name in list_sandboxes()
    with sandbox(name).start() as server:
        assert fake_of(name, server).latency == 0
    with sandbox(name).start(latency=0.15) as server:
        assert fake_of(name, server).latency == 0.15


@pytest.mark.dates
@pytest.mark.parametrize("name", ["gmail", "google_calendar"])
def test_each_google_sandbox_has_a_server_of_its_own_at_its_latency(monkeypatch, name):
    servers = started(monkeypatch, name)
    built = sandbox_arguments(name, latency=0.15)
    again = sandbox_arguments(name, latency=0.15)
    assert [fake_of(name, server).latency for server in servers] == [0.15, 0.15]
    assert built["client_options"].api_endpoint == servers[0].url != servers[1].url
    assert again["client_options"].api_endpoint == servers[1].url


@pytest.mark.parametrize("name", ["arxiv", "wolfram_alpha"])
def test_each_read_only_sandbox_shares_one_server_per_latency(name):
    module = sandbox(name)
    assert sandbox_arguments(name)["base_url"] == module.shared_server(0).url
    slow = sandbox_arguments(name, latency=0.15)["base_url"]
    assert slow == module.shared_server(0.15).url != module.shared_server(0).url
    assert fake_of(name, module.shared_server(0.15)).latency == 0.15


@pytest.mark.parametrize(
    ("name", "tool", "arguments"),
    [
        ("gmail", "search_messages", {"query": "lunch", "max_results": 2}),
        ("google_calendar", "load_data", {}),
        ("arxiv", "arxiv_query", {"query": "attention", "max_results": 1}),
        ("wolfram_alpha", "wolfram_alpha_query", {"query": "2+2"}),
    ],
)
@pytest.mark.dates
def test_each_request_waits_the_latency_before_its_answer(name, tool, arguments):
    with sandbox(name).start(latency=0.15) as server:
        fake = fake_of(name, server)
        spec = load_spec(name, **sandbox(name).connect(server))
        waits: list[float] = []
        fake.sleep = waits.append  # recorded, not slept
        out = spec.call_tool(tool, **arguments)
        assert not out.is_error, out.content
        assert waits and waits == [0.15] * len(fake.requests)  # one wait per request


def test_without_a_latency_nothing_waits():
    with sandbox("gmail").start() as server:
        spec = load_spec("gmail", **sandbox("gmail").connect(server))
        waits: list[float] = []
        server.gmail.sleep = waits.append
        assert not spec.call_tool("search_messages", query="lunch").is_error
        assert server.gmail.requests and waits == []


def test_a_sandbox_that_takes_no_latency_says_so(monkeypatch):
    import toolspecs.specs.arxiv.sandbox as arxiv_sandbox
    from toolspecs.core import registry

    monkeypatch.setattr(arxiv_sandbox, "fixed", lambda: {"max_results": 3}, raising=False)
    installed = registry.entry_points

    def found(group):
        listed = list(installed(group=group))
        if group == registry.SANDBOX_GROUP:
            from importlib.metadata import EntryPoint

            listed.append(EntryPoint("fixed", "toolspecs.specs.arxiv.sandbox:fixed", group))
        return listed

    monkeypatch.setattr(registry, "entry_points", found)
    assert sandbox_arguments("fixed") == {"max_results": 3}  # no latency asked: as before
    with pytest.raises(ConfigurationError, match=r"the fixed sandbox .* takes no latency"):
        sandbox_arguments("fixed", latency=0.15)
    with pytest.raises(ConfigurationError, match="0 seconds or more"):
        sandbox_arguments("gmail", latency=-1)


@pytest.mark.parametrize(
    ("text", "seconds"), [("150ms", 0.15), ("0.2s", 0.2), ("0.2", 0.2), ("0", 0.0), ("1S", 1.0)]
)
def test_the_command_line_reads_a_latency(text, seconds):
    assert duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["fast", "-5ms", "150 us", ""])
def test_a_latency_that_is_not_a_time_is_refused(text):
    with pytest.raises(argparse.ArgumentTypeError, match=r"150ms, 0\.15s or 0\.15"):
        duration(text)


@pytest.mark.dates
def test_serve_hands_the_latency_to_each_sandbox(monkeypatch):
    servers = {name: started(monkeypatch, name) for name in ("gmail", "google_calendar")}
    specs = build_specs(
        ServeSettings(names=["gmail", "google_calendar"], sandbox=True, sandbox_latency=0.15)
    )
    for name, spec in specs.items():
        (server,) = servers[name]
        assert spec.reader.client_options.api_endpoint == server.url
        assert fake_of(name, server).latency == 0.15


def test_a_latency_without_the_sandbox_is_a_one_line_mistake(capsys):
    assert main(["call", "--sandbox-latency", "150ms", "gmail.search_messages", "query=x"]) == 2
    err = capsys.readouterr().err
    assert "--sandbox-latency" in err and "--sandbox" in err and err.count("\n") == 1
    with pytest.raises(SystemExit) as exited:  # argparse's own exit, with its one line
        main(["call", "--sandbox", "--sandbox-latency", "soon", "gmail.get_date"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "'soon' is not a time: give it as 150ms, 0.15s or 0.15" in err
    assert err.count("\n") == 1
