"""The contract every host relies on: one honest tool (Core v2).

``tool.fn`` returns the agent's text or raises ``ToolGuidance``; ``tool.call`` never
raises; ``fn_schema`` is the typed model that reads every call; declarations are
checked when a spec is defined; guidance is bounded; marks filter the tools.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Annotated, ClassVar, Literal

import pytest
import requests
import responses
from langchain_core.messages import ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from llama_index.core.schema import Document
from pydantic import ValidationError

from toolspecs.core import (
    ConfigurationError,
    FixArguments,
    GuardedTool,
    OutputBudget,
    Range,
    RetryLater,
    Synonyms,
    Timezone,
    ToolGuidance,
    ToolSpec,
    count_tokens,
    ref,
    tool,
)
from toolspecs.core.errors import GUIDANCE_TOKENS

API = "https://api.example.test/items"


class ShopSpec(ToolSpec):
    """A small spec over a fake HTTP service."""

    spec_functions: ClassVar = ["find_items", "book", "cancel", "notify_all"]
    service_name: ClassVar[str] = "Shop"
    output_budget: ClassVar[OutputBudget] = OutputBudget(max_tokens=300, preview_tokens=50)
    timezone = "America/New_York"

    @tool(aliases={"q": "query"}, large_output=True, read_only=True, open_world=True)
    def find_items(
        self,
        query: str,
        count: Annotated[int, Range(1, 10)] = 2,
        order: Annotated[Literal["name", "price"], Synonyms({"cheapest": "price"})] = "name",
    ) -> list[Document]:
        """Find items.

        Args:
            query: What to look for.
            count: How many.
            order: Sort order.
        """
        response = requests.get(API, params={"q": query, "n": count, "order": order}, timeout=5)
        response.raise_for_status()
        return [Document(text=item) for item in response.json()["items"]]

    @tool(destructive=False, idempotent=False, open_world=False)
    def book(self, when: dt.datetime, zone: Timezone | None = None) -> str:
        """Book a slot.

        Args:
            when: The start, e.g. '2026-11-21T16:00' or 'tomorrow 4pm'.
            zone: IANA zone of the time, e.g. 'Europe/Paris'.
        """
        return f"Booked {when.isoformat()}"

    @tool(destructive=True, idempotent=True, open_world=False)
    def cancel(self, booking: str) -> str:
        """Cancel a booking.

        Args:
            booking: Its id.
        """
        return f"Cancelled {booking}"

    @tool(destructive=False, open_world=True)
    def notify_all(self, text: str) -> str:
        """Send a note to every customer.

        Args:
            text: The note.
        """
        return "sent"


@pytest.fixture
def tools():
    return {t.metadata.name: t for t in ShopSpec().to_tool_list()}


def serve(rsps, items, status=200):
    rsps.add(responses.GET, API, json={"items": items}, status=status)


def long_items(n=60):
    return [f"Item {i}: a plain widget with a long description for room." * 2 for i in range(n)]


# -- fn returns the agent's text, or raises ToolGuidance ---------------------------------


def test_fn_returns_exactly_the_text_the_agent_reads(tools, mocked_responses):
    serve(mocked_responses, ["apple", "banana"])
    text = tools["find_items"].fn(query="fruit")
    assert type(text) is str
    assert text == "apple\n\nbanana" == tools["find_items"].call(query="fruit").content


def test_fn_of_a_large_result_is_the_stored_preview(tools, mocked_responses):
    serve(mocked_responses, long_items())
    text = tools["find_items"].fn(query="widgets")
    assert "stored as result 1" in text and "read_stored_result" in text
    assert count_tokens(text) < 300


def test_fn_raises_public_guidance_with_its_kind(tools, mocked_responses):
    with pytest.raises(FixArguments) as bad:
        tools["find_items"].fn(query="x", count="lots")
    assert "'lots' is not a whole number" in bad.value.text
    assert bad.value.kind == "fix"
    serve(mocked_responses, [], status=503)
    with pytest.raises(RetryLater) as later:
        tools["find_items"].fn(query="x")
    assert later.value.kind == "retry" and "HTTP 503" in later.value.text


async def test_async_fn_is_the_same_text(tools, mocked_responses):
    serve(mocked_responses, ["apple"])
    assert await tools["find_items"].async_fn(q="fruit") == "apple"
    with pytest.raises(ToolGuidance):
        await tools["find_items"].async_fn()


def test_fn_is_named_described_and_typed_for_hosts_that_read_functions(tools):
    fn = tools["find_items"].fn
    assert fn.__name__ == "find_items"
    assert fn.__doc__ == tools["find_items"].metadata.description
    import inspect

    params = inspect.signature(fn).parameters
    assert list(params) == ["query", "count", "order"]
    assert params["count"].default == 2


# -- call never raises -----------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [{"self": ""}, {"args": 1}, {"kwargs": {}}, {"": "x"}, {"self": "", "query": "x"}, {}],
)
def test_call_never_raises_whatever_the_names(tools, kwargs):
    for name, each in tools.items():
        out = each.call(**kwargs)
        assert out.tool_name == name
        if out.is_error:
            assert isinstance(out.exception, ToolGuidance)


def test_unknown_names_are_named_with_a_suggestion(tools):
    out = tools["find_items"].call(query="x", self="", coutn=3)
    assert out.is_error
    assert "unknown argument 'self'" in out.content
    assert "unknown argument 'coutn' (did you mean 'count'?)" in out.content


# -- fn_schema is the typed model that reads the call -----------------------------------


def test_fn_schema_is_typed_and_its_schema_is_what_the_agent_sees(tools):
    model = tools["find_items"].metadata.fn_schema
    schema = model.model_json_schema()
    assert schema == tools["find_items"].metadata.to_openai_tool()["function"]["parameters"]
    props = schema["properties"]
    assert props["count"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 10,
        "default": 2,
        "description": "How many.",
    }
    assert props["order"]["enum"] == ["name", "price"]
    assert "title" not in schema and "title" not in props["query"]


def test_fn_schema_reads_what_llms_send(tools):
    model = tools["find_items"].metadata.fn_schema
    read = model.model_validate({"q": "x", "count": "5", "order": "Cheapest"})
    assert (read.query, read.count, read.order) == ("x", 5, "price")
    with pytest.raises(ValidationError):
        model.model_validate({"query": "x", "count": 11})


@pytest.mark.dates
def test_fn_schema_reads_times_in_the_spec_zone(tools):
    model = tools["book"].metadata.fn_schema
    when = model.model_validate({"when": "tomorrow 4pm"}).when
    assert when.tzinfo is not None and when.hour == 16
    assert when.utcoffset() in (dt.timedelta(hours=-5), dt.timedelta(hours=-4))


@pytest.mark.dates
def test_a_timezone_argument_reads_the_other_times_and_explicit_zones_are_kept(tools):
    book = tools["book"]
    assert book.fn(when="2026-11-21 16:00", zone="Europe/Paris") == (
        "Booked 2026-11-21T16:00:00+01:00"
    )
    # "4pm EST" names its own zone: 16:00 in New York is 22:00 in Paris.
    assert book.fn(when="Nov 21 2026 4pm EST", zone="Europe/Paris") == (
        "Booked 2026-11-21T22:00:00+01:00"
    )
    assert book.fn(when="2026-11-21T16:00Z", zone="Europe/Paris").startswith(
        "Booked 2026-11-21T16:00:00+00:00"
    )
    bad = book.call(when="2026-11-21 16:00", zone="Mars/Base")
    assert bad.is_error and "'Mars/Base' is not a timezone name" in bad.content


# -- LangChain, through llama-index's own bridge ---------------------------------------


def test_langchain_structured_tool_returns_our_text(tools, mocked_responses):
    serve(mocked_responses, ["apple", "banana"])
    lc = tools["find_items"].to_langchain_structured_tool()
    call = {"name": "find_items", "args": {"query": "fruit", "count": "2"}, "id": "c1"}
    message = lc.invoke({**call, "type": "tool_call"})
    assert isinstance(message, ToolMessage)
    assert message.content == "apple\n\nbanana"
    assert message.status == "success"


def test_langchain_gets_the_preview_of_a_large_result(tools, mocked_responses):
    serve(mocked_responses, long_items())
    lc = tools["find_items"].to_langchain_structured_tool()
    text = lc.invoke({"query": "widgets"})
    assert "stored as result 1" in text and len(text) < 2000


def test_langchain_is_not_told_a_failure_succeeded(tools, mocked_responses):
    serve(mocked_responses, [], status=503)
    lc = tools["find_items"].to_langchain_structured_tool()
    with pytest.raises(RetryLater, match="HTTP 503"):
        lc.invoke({"query": "fruit"})


def test_langchain_sees_typed_described_parameters(tools):
    lc = tools["find_items"].to_langchain_structured_tool()
    props = convert_to_openai_tool(lc)["function"]["parameters"]["properties"]
    assert props["query"]["type"] == "string" and props["query"]["description"]
    assert props["count"]["type"] == "integer" and props["count"]["maximum"] == 10
    assert props["order"]["enum"] == ["name", "price"]
    when = convert_to_openai_tool(tools["book"].to_langchain_structured_tool())
    assert when["function"]["parameters"]["properties"]["when"]["type"] == "string"


# -- guidance is bounded ---------------------------------------------------------------


def test_guidance_is_bounded_whatever_the_input(tools):
    flood = "\u202e" * 100_000
    for out in (
        tools["book"].call(when=flood),
        tools["find_items"].call(query="x", count=flood, order=flood, **{flood: 1}),
    ):
        assert out.is_error
        assert count_tokens(out.content) <= GUIDANCE_TOKENS
        assert "…" in out.content
        assert out.content.endswith("Fix the arguments and call the tool again.")


def test_guidance_keeps_its_next_step_when_the_message_is_cut():
    made = FixArguments("x" * 50_000 + " " + "word " * 5_000, "Do this next.")
    assert count_tokens(made.text) <= GUIDANCE_TOKENS
    assert made.text.endswith("… Do this next.")


# -- declarations are checked when a spec is defined -----------------------------------


def test_an_alias_to_a_missing_parameter_fails_at_definition():
    with pytest.raises(ConfigurationError, match=r"Bad\.find: alias 'in_reply_to' points at"):

        class Bad(ToolSpec):
            spec_functions: ClassVar = ["find"]

            @tool(aliases={"in_reply_to": "reply_to_message_id"}, read_only=True)
            def find(self, query: str) -> str:
                """Find.

                Args:
                    query: What.
                """
                return query


def test_a_parameter_without_a_docstring_line_fails_at_definition():
    with pytest.raises(ConfigurationError, match=r"Quiet: find: no 'Args:' line .* limit"):

        class Quiet(ToolSpec):
            spec_functions: ClassVar = ["find"]

            def find(self, query: str, limit: int = 3) -> str:
                """Find.

                Args:
                    query: What.
                """
                return query


def test_a_description_over_1024_characters_fails_at_definition():
    with pytest.raises(ConfigurationError, match="over 1024"):

        class Wordy(ToolSpec):
            spec_functions: ClassVar = ["talk"]

            @tool(read_only=True)
            def talk(self) -> str:
                """Talk."""
                return ""

            talk.__wrapped__.__doc__ = "Talk. " + "More words. " * 100  # type: ignore[attr-defined]
            talk = tool(read_only=True)(talk.__wrapped__)  # type: ignore[attr-defined]


def test_a_long_description_declared_outside_the_class_names_the_spec_too():
    def lookup(self, query: str) -> str:
        return query

    lookup.__doc__ = "Look it up. " + "More words. " * 100 + "\n\nArgs:\n    query: What.\n"
    declared = tool(read_only=True)(lookup)  # no spec to name yet: checked when one lists it
    with pytest.raises(
        ConfigurationError, match=r"^Wordy: lookup: description of 1211 characters, over 1024$"
    ):

        class Wordy(ToolSpec):
            spec_functions: ClassVar = ["lookup"]
            lookup = declared


def test_two_tools_with_one_name_fail_at_definition():
    with pytest.raises(
        ConfigurationError, match=r"Twice: two tools are named 'read_stored_result'"
    ):

        class Twice(ToolSpec):
            spec_functions: ClassVar = ["find", "read_stored_result"]

            @tool(large_output=True, read_only=True)
            def find(self, query: str) -> str:
                """Find.

                Args:
                    query: What.
                """
                return query

            @tool(read_only=True)
            def read_stored_result(self, query: str) -> str:
                """Read.

                Args:
                    query: What.
                """
                return query


# -- policy marks filter the tools -----------------------------------------------------


def test_marks_are_data_on_every_tool(tools):
    assert all(isinstance(t, GuardedTool) for t in tools.values())
    assert tools["find_items"].marks.read_only and tools["find_items"].marks.open_world
    assert tools["read_stored_result"].marks.read_only
    assert not tools["read_stored_result"].marks.open_world
    assert tools["cancel"].marks.destructive and tools["cancel"].marks.idempotent
    assert tools["cancel"].marks.annotations() == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    }


def test_options_filter_tools_by_their_marks():
    spec = ShopSpec()
    spec.allow_destructive = False
    assert "cancel" not in [t.metadata.name for t in spec.to_tool_list()]
    spec = ShopSpec()
    spec.allow_send = False
    names = [t.metadata.name for t in spec.to_tool_list()]
    assert "notify_all" not in names
    assert {"find_items", "book", "cancel"} <= set(names)


# -- subclasses, decorators, async functions (LlamaHub-style specs keep working) ------


def test_an_override_calling_super_gets_the_bases_arguments(mocked_responses):
    class Newest(ShopSpec):
        @tool(read_only=True, open_world=True)
        def find_items(self, query: str) -> list[Document]:
            """Find the cheapest items.

            Args:
                query: What to look for.
            """
            return super().find_items(query, count=5, order="cheapest")

    serve(mocked_responses, ["apple"])
    out = Newest().call_tool("find_items", query="fruit")
    assert out.is_error is False, out.content
    assert "n=5" in mocked_responses.calls[0].request.url
    assert "order=price" in mocked_responses.calls[0].request.url
    assert Newest().find_items(query="fruit")[0].text == "apple"


def test_an_override_without_tool_keeps_the_declaration_it_overrides(mocked_responses):
    class Plain(ShopSpec):
        def find_items(self, query: str, count: int = 2, order: str = "name") -> list[Document]:
            """Find items, plainly.

            Args:
                query: What to look for.
                count: How many.
                order: Sort order.
            """
            return [Document(text=f"{query}:{count}")]

    spec = Plain()
    spec.allow_destructive = False
    tools = {t.metadata.name: t for t in spec.to_tool_list()}
    assert "find_items" in tools and "read_stored_result" in tools
    assert tools["find_items"].marks.read_only
    assert tools["find_items"].fn(q="pears", count="3") == "pears:3"  # the alias is kept


def test_a_decorator_stacked_on_tool_is_not_skipped():
    import functools

    seen = []

    def audited(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            seen.append(kwargs)
            return fn(self, *args, **kwargs)

        return wrapper

    class Audited(ShopSpec):
        @audited
        @tool(destructive=True, idempotent=True, open_world=False)
        def cancel(self, booking: str) -> str:
            """Cancel a booking.

            Args:
                booking: Its id.
            """
            return f"Cancelled {booking}"

    assert Audited().call_tool("cancel", booking=" b1 ").content == "Cancelled b1"
    assert seen == [{"booking": "b1"}]


async def test_async_spec_functions_and_llamahub_pairs_are_awaited():
    class Async(ToolSpec):
        spec_functions: ClassVar = ["ping", ("pong", "apong")]

        @tool(read_only=True, open_world=False)
        async def ping(self, times: int = 1) -> str:
            """Ping.

            Args:
                times: How often.
            """
            return "ping" * times

        @tool(read_only=True, open_world=False)
        def pong(self) -> str:
            """Pong."""
            return "sync pong"

        async def apong(self) -> str:
            """Pong, awaited."""
            return "async pong"

    tools = {t.metadata.name: t for t in Async().to_tool_list()}
    assert (await tools["ping"].acall(times="2")).content == "pingping"
    assert tools["ping"].call(times=3).content == "pingpingping"
    assert (await tools["pong"].acall()).content == "async pong"
    assert tools["pong"].call().content == "sync pong"


# -- failures stay guidance, of the right kind -----------------------------------------


def test_renamed_guidance_of_a_custom_kind_keeps_its_kind():
    from toolspecs.core import AskUser

    class NoKey(AskUser):
        def __init__(self, service: str) -> None:
            super().__init__(f"{service} needs a key; see {ref('book')}.")

    class Keyless(ShopSpec):
        @tool(destructive=True, idempotent=True, open_world=False)
        def cancel(self, booking: str) -> str:
            """Cancel a booking.

            Args:
                booking: Its id.
            """
            raise NoKey("Shop")

    out = {t.metadata.name: t for t in Keyless().to_tool_list(prefix="shop_")}["shop_cancel"].call(
        booking="b1"
    )
    assert out.is_error and isinstance(out.exception, AskUser)
    assert "see shop_book" in out.content


def test_a_failure_template_that_does_not_fit_is_not_an_exception(monkeypatch, caplog):
    from toolspecs.core import Failure, FailureTable

    class Odd(ShopSpec):
        failures = FailureTable(Failure(KeyError, RetryLater, "Lost {exc.key!r}."))

        @tool(destructive=True, idempotent=True, open_world=False)
        def cancel(self, booking: str) -> str:
            """Cancel a booking.

            Args:
                booking: Its id.
            """
            raise KeyError(booking)

    with pytest.raises(AttributeError):  # strict: the declaration bug surfaces in tests
        Odd().call_tool("cancel", booking="b1")
    monkeypatch.delenv("TOOLSPECS_STRICT")
    out = Odd().call_tool("cancel", booking="b1")
    assert out.is_error and isinstance(out.exception, RetryLater)
    assert out.content.startswith("Shop failed (KeyError).")
    assert "bad template" in caplog.text


def test_a_wrong_timezone_setting_asks_the_user_instead_of_blaming_the_arguments(monkeypatch):
    from toolspecs.core import AskUser

    class Unzoned(ShopSpec):
        timezone = None

    monkeypatch.setenv("TOOLSPECS_TIMEZONE", "Europe/Pariss")
    tools = {t.metadata.name: t for t in Unzoned().to_tool_list()}
    booked = tools["book"].call(when="tomorrow 4pm")
    assert booked.is_error and isinstance(booked.exception, AskUser), booked.content
    assert "TOOLSPECS_TIMEZONE='Europe/Pariss' is not an IANA timezone name" in booked.content
    assert "'tomorrow 4pm' is not a date" not in booked.content
    (get_date,) = Unzoned().to_tool_list(spec_functions=["get_date"])
    date = get_date.call()
    assert date.is_error and isinstance(date.exception, AskUser)


def test_text_that_is_not_unicode_is_guidance(tools, mocked_responses):
    out = tools["find_items"].call(query="caf\ud800")
    assert out.is_error and "lone surrogate" in out.content
    assert len(mocked_responses.calls) == 0


def test_hosts_that_read_the_fields_see_no_null_either(tools):
    lc = tools["book"].to_langchain_structured_tool()
    zone = convert_to_openai_tool(lc)["function"]["parameters"]["properties"]["zone"]
    # LangChain rebuilds each field from its description, default and type: the type says
    # string, not string-or-null (its generator still writes the default, null).
    assert zone["type"] == "string" and "anyOf" not in zone
    assert zone["description"] == "IANA zone of the time, e.g. 'Europe/Paris'."


def test_errors_name_the_argument_not_pydantics_union_members(tools):
    out = tools["find_items"].call(query="x", count="11")
    assert "count: 11 is above the maximum of 10" in out.content
    assert "function-before" not in out.content and "none" not in out.content.lower()


async def test_concurrent_async_calls_share_one_store(mocked_responses):
    import asyncio

    serve(mocked_responses, long_items())
    tools = {t.metadata.name: t for t in ShopSpec().to_tool_list()}
    outs = await asyncio.gather(*(tools["find_items"].acall(query="w") for _ in range(12)))
    ids = sorted(int(o.content.split("stored as result ")[1].split()[0]) for o in outs)
    assert ids == list(range(1, 13))
    for result_id in ids[-8:]:  # the store keeps the newest eight
        read = await tools["read_stored_result"].acall(query="widget", result_id=result_id)
        assert read.is_error is False, read.content


def test_guidance_says_whether_the_arguments_were_read(tools, mocked_responses):
    with pytest.raises(FixArguments) as unread:
        tools["find_items"].fn(query="x", count="lots")
    assert unread.value.stage == "arguments"
    serve(mocked_responses, [], status=404)
    with pytest.raises(FixArguments) as during:
        tools["find_items"].fn(query="x")
    assert during.value.stage == "call"
    prefixed = {t.metadata.name: t for t in ShopSpec().to_tool_list(prefix="shop_")}
    assert prefixed["shop_find_items"].call(count="lots").exception.stage == "arguments"


def test_before_call_can_refuse_a_call_after_its_arguments_are_read():
    from toolspecs.core import AskUser

    class Gated(ToolSpec):
        """A service that refuses some functions before any request."""

        spec_functions: ClassVar = ["lookup", "alookup", "open_door"]

        def __init__(self) -> None:
            self.asked: list[str] = []
            self.ran: list[str] = []

        def before_call(self, function: str) -> None:
            self.asked.append(function)
            if function != "open_door":
                raise AskUser(f"{function} needs a permission the user has not given.", "Ask.")

        @tool(read_only=True)
        def lookup(self, query: str) -> str:
            """Look something up.

            Args:
                query: What to look up.
            """
            self.ran.append("lookup")
            return "found"

        @tool(read_only=True)
        async def alookup(self, query: str) -> str:
            """Look something up, asynchronously.

            Args:
                query: What to look up.
            """
            self.ran.append("alookup")
            return "found"

        @tool(read_only=False, destructive=False)
        def open_door(self) -> str:
            """Open the door."""
            self.ran.append("open_door")
            return "opened"

    spec = Gated()
    tools = {t.metadata.name: t for t in spec.to_tool_list(prefix="home_")}
    wrong = tools["home_lookup"].call()  # arguments are read first: no hook, no call
    assert wrong.is_error and spec.asked == []
    refused = tools["home_lookup"].call(query="x")
    assert refused.is_error and "needs a permission" in refused.content
    arefused = asyncio.run(tools["home_alookup"].acall(query="x"))
    assert arefused.is_error and "alookup needs a permission" in arefused.content
    assert tools["home_open_door"].call().content == "opened"
    assert spec.asked == ["lookup", "alookup", "open_door"]  # bare names, under a prefix
    assert spec.ran == ["open_door"]
