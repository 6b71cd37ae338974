"""The guarded tools: arguments in, text or guidance out, never a traceback."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, ClassVar, Literal

import pytest
import requests
import responses
from llama_index.core.schema import Document
from llama_index.core.tools import FunctionTool
from llama_index.core.tools.tool_spec.load_and_search import LoadAndSearchToolSpec

from toolspecs.core import (
    AskUser,
    FixArguments,
    OutputBudget,
    Range,
    RetryLater,
    Synonyms,
    ToolSpec,
    schema,
    tool,
)

API = "https://api.example.test/items"


class ItemsSpec(ToolSpec):
    """A small spec over a fake HTTP service, for testing the framework."""

    spec_functions: ClassVar = ["find_items", "book", "explode", "get_date"]
    service_name: ClassVar[str] = "Items"
    output_budget: ClassVar[OutputBudget] = OutputBudget(max_tokens=300, preview_tokens=50)
    timezone = "America/New_York"

    @tool(
        aliases={"q": "query", "limit": "count"},
        large_output=True,
        empty="Nothing matches {query!r}.",
    )
    def find_items(
        self,
        query: str,
        count: Annotated[int, Range(1, 10)] = 2,
        order: Annotated[Literal["name", "price"], Synonyms({"cheapest": "price"})] = "name",
        tags: list[str] | None = None,
    ) -> list[Document]:
        """Find items.

        Args:
            query: What to look for.
            count: How many.
            order: Sort order.
            tags: Tags to filter by, e.g. ['red', 'blue'].
        """
        response = requests.get(API, params={"q": query, "n": count, "order": order}, timeout=5)
        response.raise_for_status()
        return [Document(text=item) for item in response.json()["items"]]

    @tool()
    def book(self, when: dt.datetime, notify: bool = False) -> str:
        """Book a slot.

        Args:
            when: The start, e.g. '2026-11-21T16:00' or 'tomorrow 4pm'.
            notify: Whether to notify.
        """
        if when.hour < 8:
            raise FixArguments(f"{when:%H:%M} is before opening time.", "Pick a time after 08:00.")
        return f"Booked {when.isoformat()} notify={notify}"

    def explode(self) -> str:
        """Fail with a bug."""
        return {}["missing"]


@pytest.fixture
def tools() -> dict[str, FunctionTool]:
    return {t.metadata.name: t for t in ItemsSpec().to_tool_list()}


def serve(rsps, items, status=200):
    rsps.add(responses.GET, API, json={"items": items}, status=status)


def test_tool_list_is_plain_function_tools_with_one_reader_last(tools):
    assert list(tools) == ["find_items", "book", "explode", "get_date", "read_stored_result"]
    assert all(isinstance(t, FunctionTool) for t in tools.values())


def test_good_call_returns_the_text(tools, mocked_responses):
    serve(mocked_responses, ["apple", "banana"])
    out = tools["find_items"].call(query="fruit")
    assert out.is_error is False
    assert out.content == "apple\n\nbanana"
    assert [d.text for d in out.raw_output] == ["apple", "banana"]


def test_aliases_camel_case_and_coercion(tools, mocked_responses):
    serve(mocked_responses, ["apple"])
    out = tools["find_items"].call(q="fruit", limit="3", Order="Cheapest")
    assert out.is_error is False
    sent = mocked_responses.calls[0].request.url
    assert "q=fruit" in sent
    assert "n=3" in sent
    assert "order=price" in sent


def test_positional_arguments_bind_in_order(tools, mocked_responses):
    serve(mocked_responses, ["apple"])
    out = tools["find_items"].call("fruit", "1")
    assert out.is_error is False
    assert "n=1" in mocked_responses.calls[0].request.url


def test_input_is_accepted_for_the_single_required_argument(tools, mocked_responses):
    serve(mocked_responses, ["apple"])
    assert tools["find_items"].call(input="fruit").content == "apple"


def test_every_argument_fault_is_reported_at_once_before_the_call(tools, mocked_responses):
    out = tools["find_items"].call(count="lots", colour="red", order="random")
    assert out.is_error is True
    text = out.content
    assert "unknown argument 'colour'" in text
    assert "missing required argument 'query'" in text
    assert "count: 'lots' is not a whole number" in text
    assert "order: 'random' is not one of the choices; use one of 'name', 'price'" in text
    assert "query (required), count, order, tags" in text
    assert text.endswith("Fix the arguments and call the tool again.")
    assert len(mocked_responses.calls) == 0


def test_null_for_an_optional_argument_means_the_default(tools, mocked_responses):
    serve(mocked_responses, ["apple"])
    out = tools["find_items"].call(query="fruit", count=None, tags=None)
    assert out.is_error is False
    assert "n=2" in mocked_responses.calls[0].request.url


def test_same_argument_twice_is_reported(tools):
    out = tools["find_items"].call("fruit", query="veg")
    assert out.is_error is True
    assert "'query' given twice" in out.content


def test_guidance_raised_by_the_function(tools):
    out = tools["book"].call(when="2026-11-21T06:00")
    assert out.is_error is True
    assert out.content == "06:00 is before opening time. Pick a time after 08:00."
    assert isinstance(out.exception, FixArguments)


def test_times_are_read_in_the_spec_timezone(tools):
    out = tools["book"].call(when="2026-11-21 16:00", notify="yes")
    assert out.content == "Booked 2026-11-21T16:00:00-05:00 notify=True"


@pytest.mark.parametrize(
    ("status", "kind", "phrase"),
    [
        (429, RetryLater, "rate-limiting"),
        (503, RetryLater, "server error (HTTP 503)"),
        (403, AskUser, "refused access (HTTP 403)"),
        (404, FixArguments, "HTTP 404"),
        (400, FixArguments, "rejected the request (HTTP 400)"),
    ],
)
def test_http_errors_become_guidance_of_the_right_kind(
    tools, mocked_responses, status, kind, phrase
):
    serve(mocked_responses, [], status=status)
    out = tools["find_items"].call(query="fruit")
    assert out.is_error is True
    assert isinstance(out.exception, kind)
    assert out.content.startswith("Items ")
    assert phrase in out.content


def test_timeouts_and_connection_errors_say_retry(tools, mocked_responses):
    mocked_responses.add(responses.GET, API, body=requests.exceptions.ReadTimeout("slow"))
    out = tools["find_items"].call(query="fruit")
    assert out.is_error is True
    assert "did not answer in time" in out.content
    assert "try the same call again" in out.content

    mocked_responses.replace(responses.GET, API, body=requests.exceptions.ConnectionError("down"))
    out = tools["find_items"].call(query="fruit")
    assert "Could not connect to Items" in out.content


def test_our_bugs_raise_in_strict_mode(tools):
    with pytest.raises(KeyError):
        tools["explode"].call()


def test_our_bugs_become_a_stop_message_outside_strict_mode(tools, monkeypatch, caplog):
    monkeypatch.delenv("TOOLSPECS_STRICT")
    out = tools["explode"].call()
    assert out.is_error is True
    assert "internal error (KeyError)" in out.content
    assert "Do not retry" in out.content
    assert "failed unexpectedly" in caplog.text


def test_empty_result_gets_the_declared_sentence(tools, mocked_responses):
    serve(mocked_responses, [])
    out = tools["find_items"].call(query="unicorns")
    assert out.is_error is False
    assert out.content == "Nothing matches 'unicorns'."
    assert out.raw_output == []


def test_the_empty_sentence_echoes_a_long_query_cut_short(tools, mocked_responses):
    serve(mocked_responses, [])
    out = tools["find_items"].call(query="unicorn " * 5_000)
    assert out.is_error is False
    assert out.content.startswith("Nothing matches 'unicorn unicorn")
    assert out.content.endswith("….") and len(out.content) < 120


def long_items(n=60):
    return [
        f"Item {i}: a {'red' if i == 37 else 'plain'} widget number {i} with a long description "
        "that takes up room in the context window of the agent."
        for i in range(n)
    ]


def test_large_result_is_stored_and_read_back_verbatim(tools, mocked_responses):
    serve(mocked_responses, long_items())
    out = tools["find_items"].call(query="widgets")
    assert out.is_error is False
    assert "stored as result 1" in out.content
    assert "read_stored_result" in out.content
    assert out.content.count("widget") < 20  # a preview, not the whole
    assert len(out.raw_output) == 60  # the full result stays available to Python callers

    read = tools["read_stored_result"].call(query="red widget")
    assert read.is_error is False
    assert "Item 37: a red widget number 37" in read.content


def test_reads_do_not_mix_results_of_different_loads(tools, mocked_responses):
    serve(mocked_responses, long_items())
    tools["find_items"].call(query="widgets")
    mocked_responses.replace(
        responses.GET,
        API,
        json={"items": [f"Gadget {i} is blue and shiny. " * 4 for i in range(60)]},
    )
    second = tools["find_items"].call(query="gadgets")
    assert "stored as result 2" in second.content
    latest = tools["read_stored_result"].call(query="red widget")
    assert latest.is_error is True  # result 2 has no widgets
    assert "No passage of result 2" in latest.content
    first = tools["read_stored_result"].call(query="red widget", result_id="1")
    assert "Item 37: a red widget" in first.content
    assert "Gadget" not in first.content


def test_reading_before_any_load_is_guidance(tools):
    out = tools["read_stored_result"].call(query="anything")
    assert out.is_error is True
    assert "Call find_items first" in out.content


def test_over_budget_without_a_reader_is_cut_with_a_note():
    class Chatty(ToolSpec):
        spec_functions: ClassVar = ["talk"]
        output_budget: ClassVar[OutputBudget] = OutputBudget(max_tokens=50)

        def talk(self) -> str:
            """Talk a lot."""
            return "blah " * 500

    (talk,) = Chatty().to_tool_list()
    out = talk.call()
    assert "output cut" in out.content
    assert len(out.content) < 400


@pytest.mark.dates
def test_get_date_uses_the_spec_timezone(tools):
    text = tools["get_date"].call().content
    assert "America/New_York (UTC-0" in text


async def test_async_calls_are_guarded_too(tools, mocked_responses):
    serve(mocked_responses, ["apple"])
    out = await tools["find_items"].acall(q="fruit")
    assert out.content == "apple"
    bad = await tools["find_items"].acall(count=99)
    assert bad.is_error is True
    assert "99 is above the maximum of 10" in bad.content


def test_load_and_search_wrapping_indexes_the_full_documents(tools, mocked_responses):
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.indices import SummaryIndex

    serve(mocked_responses, long_items())
    wrapped = LoadAndSearchToolSpec.from_defaults(
        tools["find_items"],
        index_cls=SummaryIndex,
        index_kwargs={"embed_model": MockEmbedding(embed_dim=8)},
    )
    load_tool, _read_tool = wrapped.to_tool_list()
    assert load_tool.metadata.name == "find_items"
    out = load_tool.call(query="widgets")
    assert "Content loaded!" in out.content
    # LlamaIndex indexes raw_output: our preview must not have replaced the 60 documents.
    indexed = wrapped._index.docstore.docs.values()
    assert len(indexed) == 60
    assert any("Item 37: a red widget" in node.get_content() for node in indexed)


def test_call_tool_helper(mocked_responses):
    serve(mocked_responses, ["apple"])
    assert ItemsSpec().call_tool("find_items", query="fruit").content == "apple"
    with pytest.raises(KeyError):
        ItemsSpec().call_tool("nope")


@pytest.mark.dates
def test_direct_python_calls_are_coerced_too():
    spec = ItemsSpec()
    assert spec.book("2026-11-21 16:00", notify="yes") == (
        "Booked 2026-11-21T16:00:00-05:00 notify=True"
    )
    with pytest.raises(FixArguments, match="book was called wrongly: when: 'whenever'"):
        spec.book(when="whenever")


class TwoStoresSpec(ToolSpec):
    """Two functions whose long results are stored, and the one reader of both."""

    spec_functions: ClassVar = ["list_planets", "list_moons"]
    output_budget: ClassVar[OutputBudget] = OutputBudget(max_tokens=200)

    @tool(large_output=True, read_only=True, open_world=False)
    def list_planets(self) -> str:
        """List planets."""
        return "\n".join(f"Planet {n}: a gas giant with rings" for n in range(80))

    @tool(large_output=True, read_only=True, open_world=False)
    def list_moons(self) -> str:
        """List moons."""
        return "\n".join(f"Moon {n}: an icy crater world" for n in range(80))


def test_one_reader_reads_the_stored_results_of_every_large_function():
    tools = {t.metadata.name: t for t in TwoStoresSpec().to_tool_list()}
    assert list(tools) == ["list_planets", "list_moons", "read_stored_result"]
    assert "call read_stored_result" in tools["list_planets"].call().content
    assert "call read_stored_result" in tools["list_moons"].call().content
    reader = tools["read_stored_result"]
    latest = reader.call(query="icy crater").content
    assert "Passages of result 2 (list_moons)" in latest and "Moon 7" in latest
    first = reader.call(query="gas giant", result_id=1).content
    assert "Passages of result 1 (list_planets)" in first and "Planet 7" in first
    missing = reader.call(query="rings", result_id=9)
    assert missing.is_error is True
    assert "the latest ones are 1 (list_planets), 2 (list_moons)" in missing.content


def test_the_reader_says_which_functions_store_results_before_any_did():
    out = TwoStoresSpec().call_tool("read_stored_result", query="rings")
    assert out.is_error is True
    assert "Call list_planets or list_moons first" in out.content


def test_the_reader_follows_a_prefix():
    tools = {t.metadata.name: t for t in TwoStoresSpec().to_tool_list(prefix="sky_")}
    assert "call sky_read_stored_result" in tools["sky_list_moons"].call().content
    assert "Moon 3" in tools["sky_read_stored_result"].call(query="icy").content


def _hide_and_retell(**docs):
    def find(query: str, where: str | None = None, limit: int = 3) -> str:
        """Find things.

        Args:
            query: What to find.
            where: Where to look.
            limit: How many.
        """
        return f"{query} {where} {limit}"

    return schema.build_model("find", find, docs=docs)


def test_an_instance_can_hide_an_optional_argument_or_retell_one():
    model = _hide_and_retell(where=None, limit="Up to 10.")
    properties = model.model_json_schema()["properties"]
    assert list(properties) == ["query", "limit"]
    assert properties["limit"]["description"] == "Up to 10."
    assert model.listing() == "query (required), limit"
    # A hidden argument is still read when a call sends it.
    assert model.model_validate({"query": "x", "where": "attic"}).where == "attic"
    with pytest.raises(ValueError, match="required argument 'query' cannot be hidden"):
        _hide_and_retell(query=None)
