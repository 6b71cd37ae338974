"""The sandbox fakes wait a given latency before each answer, as a real service would.

``toolspecs serve --sandbox --sandbox-latency 150ms`` (and ``sandbox_spec(name,
latency=0.15)``) hands the latency to each sandbox, whose fake waits that long before
answering each request, so that a benchmark shows what a deployment sees. Checked by the
waits each fake asks for (``fake.sleep`` replaced by a recorder), not by timing.
"""

from __future__ import annotations

import argparse

import pytest

from toolspecs.cli import main
from toolspecs.cli.assemble import ServeSettings, build_specs
from toolspecs.cli.parser import duration
from toolspecs.core import ConfigurationError, load_spec
from toolspecs.core.registry import list_sandboxes, sandbox_arguments, sandbox_spec


def fake_of(arguments: dict):
    """The fake behind a sandbox's arguments (arXiv's is the adapter; Wolfram's, the handler)."""
    transport = arguments["transport"]
    handler = getattr(transport, "handler", None)  # httpx.MockTransport
    return getattr(handler, "__self__", transport)


@pytest.mark.dates
@pytest.mark.parametrize("name", ["arxiv", "gmail", "google_calendar", "wolfram_alpha"])
def test_every_shipped_sandbox_takes_a_latency(name):
    assert name in list_sandboxes()
    assert fake_of(sandbox_arguments(name)).latency == 0
    assert fake_of(sandbox_arguments(name, latency=0.15)).latency == 0.15


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
    built = sandbox_arguments(name, latency=0.15)
    fake = fake_of(built)
    spec = load_spec(name, **built)
    waits: list[float] = []
    fake.sleep = waits.append  # recorded, not slept
    out = spec.call_tool(tool, **arguments)
    assert not out.is_error, out.content
    assert waits and waits == [0.15] * len(fake.requests)  # one wait per request


def test_without_a_latency_nothing_waits():
    spec = sandbox_spec("gmail")
    fake = _transport(spec)
    waits: list[float] = []
    fake.sleep = waits.append
    assert not spec.call_tool("search_messages", query="lunch").is_error
    assert fake.requests and waits == []


def _transport(spec):
    """A Google spec's fake (the transport its reader sends with)."""
    return spec.reader.transport


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
def test_serve_hands_the_latency_to_each_sandbox():
    specs = build_specs(
        ServeSettings(names=["gmail", "google_calendar"], sandbox=True, sandbox_latency=0.15)
    )
    assert {name: _transport(spec).latency for name, spec in specs.items()} == {
        "gmail": 0.15,
        "google_calendar": 0.15,
    }


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
