"""Our tools for people who call the OpenAI or Anthropic SDK themselves (the real SDKs)."""

from __future__ import annotations

import json

import anthropic
import httpx
import openai
import pytest

from toolspecs.adapters.openai import ToolExecutor, to_anthropic_tools, to_openai_tools
from toolspecs.agents.testing import FakeOpenAI, last_tool_output
from toolspecs.loaders.arxiv.testing import NEEDLE, FakeArxiv
from toolspecs.loaders.google.testing import FakeCalendar, sample_mailbox
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec


@pytest.fixture
def arxiv():
    return ArxivToolSpec(transport=FakeArxiv().transport())


@pytest.fixture
def executor(arxiv):
    return ToolExecutor(arxiv)


def openai_client(fake: FakeOpenAI) -> openai.OpenAI:
    return openai.OpenAI(api_key="test", http_client=httpx.Client(transport=fake.transport))


def ask(client, executor, content):
    """One tool-calling loop as a user of the SDK writes it: call, execute, answer."""
    messages = [{"role": "user", "content": content}]
    tools = executor.openai_tools()
    while True:
        reply = client.chat.completions.create(model="gpt-4.1-mini", messages=messages, tools=tools)
        message = reply.choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(message.model_dump(exclude_none=True))
        messages.extend(executor.execute(message.tool_calls))


# -- schemas ----------------------------------------------------------------------------


def test_definitions_are_the_typed_schemas(arxiv):
    tools = arxiv.to_tool_list()
    assert to_openai_tools(arxiv) == [t.metadata.to_openai_tool() for t in tools]
    anthropic_tools = to_anthropic_tools(arxiv)
    first = anthropic_tools[0]
    assert first["name"] == "arxiv_query"
    assert first["input_schema"] == tools[0].metadata.fn_schema.model_json_schema()
    assert first["input_schema"]["properties"]["max_results"]["type"] == "integer"
    assert set(first) == {"name", "description", "input_schema"}


# -- OpenAI, through the real SDK ---------------------------------------------------------


def test_a_tool_call_loop_with_the_openai_sdk(executor):
    fake = FakeOpenAI(
        [
            [("arxiv_query", {"query": "attention", "max_results": "2"})],  # "2": tolerated
            lambda request: "Found:\n" + last_tool_output(request),
        ]
    )
    answer = ask(openai_client(fake), executor, "Papers on attention?")
    assert answer.startswith("Found:\nTitle: ")
    assert answer.count("Title: ") == 2
    assert fake.requests[0]["tools"] == executor.openai_tools()  # what the model received
    tool_message = fake.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"]


def test_guidance_reaches_the_model_as_the_tool_message(executor):
    fake = FakeOpenAI(
        [[("arxiv_paper_text", {"paper_id": "not an id"})], lambda r: last_tool_output(r)]
    )
    answer = ask(openai_client(fake), executor, "Read it")
    expected = executor.tools["arxiv_paper_text"].call(paper_id="not an id").content
    assert answer == expected
    assert answer.startswith("'not an id' is not an arXiv id.")


def test_a_large_result_is_read_back_in_the_same_loop(executor):
    fake = FakeOpenAI(
        [
            [("arxiv_paper_text", {"paper_id": "1706.03762"})],
            lambda request: (
                [("read_stored_papers", {"query": "quokka ablation"})]
                if "stored as result 1" in last_tool_output(request)
                else "not stored"
            ),
            lambda request: last_tool_output(request),
        ]
    )
    assert NEEDLE in ask(openai_client(fake), executor, "What does the paper say on quokkas?")


@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        ("arxiv_search", '{"query": "x"}', "There is no tool named 'arxiv_search'. The tools are: "
         "arxiv_query, arxiv_paper_text, read_stored_papers."),
        ("arxiv_query", '{"query": "x", "max_results": 2', "were cut off"),
        ("arxiv_query", '{"query": "bert', "were cut off"),
        ("arxiv_query", "query=x", "are not valid JSON (Expecting value; character 0)"),
        ("arxiv_query", '["x"]', "must be a JSON object of named arguments, not list"),
        ("arxiv_query", '{"querry": "x"}', "unknown argument 'querry' (did you mean 'query'?)"),
    ],
)  # fmt: skip
def test_what_a_model_gets_wrong_is_a_message_never_an_exception(executor, name, arguments, says):
    call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}
    (message,) = executor.execute([call])
    assert message["role"] == "tool" and message["tool_call_id"] == "call_1"
    assert says in message["content"]
    assert message["content"].endswith(
        ("Call one of those, by its exact name.", '..."}.', "call the tool again.")
    )


def test_several_calls_of_one_turn_come_back_in_order(executor):
    calls = [
        openai.types.chat.ChatCompletionMessageToolCall(
            id=f"call_{i}",
            type="function",
            function={"name": "arxiv_query", "arguments": json.dumps({"query": query})},
        )
        for i, query in enumerate(["bert", "nonexistent tool", "attention"])
    ]
    calls[1].function.name = "nope"
    messages = executor.execute(calls)
    assert [m["tool_call_id"] for m in messages] == ["call_0", "call_1", "call_2"]
    assert "BERT" in messages[0]["content"]
    assert messages[1]["content"].startswith("There is no tool named 'nope'")
    assert "Attention Is All You Need" in messages[2]["content"]


async def test_async_execution_is_the_same(executor):
    call = {"id": "c", "function": {"name": "arxiv_query", "arguments": '{"q": "bert"}'}}
    (message,) = await executor.aexecute([call])
    assert "BERT" in message["content"]


def test_several_specs_need_distinct_names():
    calendar = GoogleCalendarToolSpec(transport=FakeCalendar())
    gmail = GmailToolSpec(transport=sample_mailbox())
    executor = ToolExecutor([calendar, *gmail.to_tool_list(prefix="gmail_")])
    assert "load_data" in executor.tools and "gmail_load_data" in executor.tools


# -- Anthropic, through the real SDK ------------------------------------------------------


def anthropic_client(replies: list[dict], seen: list[dict]) -> anthropic.Anthropic:
    """The real Anthropic client, its Messages API answered from ``replies``."""
    import httpx2  # the HTTP client this version of the Anthropic SDK is built on

    def handle(request):
        seen.append(json.loads(request.content))
        return httpx2.Response(200, json=replies.pop(0))

    return anthropic.Anthropic(
        api_key="test", http_client=httpx2.Client(transport=httpx2.MockTransport(handle))
    )


def message(content: list[dict], stop: str = "tool_use") -> dict:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-5-5",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }


def test_a_tool_use_turn_with_the_anthropic_sdk(executor):
    seen: list[dict] = []
    uses = [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "tu_1", "name": "arxiv_query",
         "input": {"query": "attention", "max_results": "1"}},
        {"type": "tool_use", "id": "tu_2", "name": "arxiv_paper_text",
         "input": {"paper_id": "not an id"}},
    ]  # fmt: skip
    client = anthropic_client([message(uses)], seen)
    reply = client.messages.create(
        model="claude-sonnet-5-5",
        max_tokens=512,
        tools=executor.anthropic_tools(),
        messages=[{"role": "user", "content": "Attention papers?"}],
    )
    assert seen[0]["tools"] == to_anthropic_tools(list(executor.tools.values()))
    results = executor.execute_anthropic(reply.content)
    assert [r["tool_use_id"] for r in results] == ["tu_1", "tu_2"]
    assert results[0]["is_error"] is False and results[0]["content"].count("Title: ") == 1
    assert results[1]["is_error"] is True
    assert results[1]["content"] == (
        executor.tools["arxiv_paper_text"].call(paper_id="not an id").content
    )


async def test_anthropic_async_and_unknown_names(executor):
    blocks = [{"type": "tool_use", "id": "tu_9", "name": "search", "input": {}}]
    (result,) = await executor.aexecute_anthropic(blocks)
    assert result["is_error"] is True
    assert result["content"].startswith("There is no tool named 'search'.")


@pytest.mark.dates
def test_calls_of_one_google_spec_run_side_by_side():
    import threading

    calls = 6
    together = threading.Barrier(calls)
    entered: set[int] = set()

    class Together(FakeCalendar):
        """Google Calendar that holds each call's first request until all six are in."""

        def request(self, *args, **kwargs):
            if threading.get_ident() not in entered:
                entered.add(threading.get_ident())
                together.wait(20)  # broken (and the calls fail) if they took turns
            return super().request(*args, **kwargs)

    executor = ToolExecutor(
        GoogleCalendarToolSpec(transport=Together(), timezone="UTC"), max_workers=calls
    )
    tool_calls = [
        {"id": f"c{i}", "function": {"name": "load_data", "arguments": "{}"}} for i in range(calls)
    ]
    messages = executor.execute(tool_calls)
    assert [m["tool_call_id"] for m in messages] == [f"c{i}" for i in range(calls)]
    assert not together.broken and len(entered) == calls


@pytest.mark.dates
async def test_a_stuck_call_holds_up_only_its_own_spec():
    import asyncio
    import threading

    entered, release = threading.Event(), threading.Event()

    class Stuck(FakeCalendar):
        """Google Calendar that hangs until released (a login, a slow network)."""

        def request(self, *args, **kwargs):
            entered.set()
            release.wait(20)
            return super().request(*args, **kwargs)

    calendar = GoogleCalendarToolSpec(transport=Stuck(), timezone="UTC")
    executor = ToolExecutor([calendar, ArxivToolSpec(transport=FakeArxiv().transport())])
    # More stuck calls than the shared worker pool has threads.
    stuck = [asyncio.create_task(executor.arun("load_data", {})) for _ in range(12)]
    try:
        for _ in range(2000):
            if entered.is_set():
                break
            await asyncio.sleep(0.01)
        out = await asyncio.wait_for(executor.arun("arxiv_query", {"query": "bert"}), 20)
        assert "BERT" in out.content
        assert not any(task.done() for task in stuck)  # the calendar still waits, in turn
    finally:
        release.set()
    assert all(not result.is_error for result in await asyncio.gather(*stuck))


def test_a_large_result_is_read_back_through_anthropic_blocks(executor):
    paper = [{"type": "tool_use", "id": "tu_1", "name": "arxiv_paper_text",
              "input": {"paper_id": "1706.03762"}}]  # fmt: skip
    (stored,) = executor.execute_anthropic(paper)
    assert stored["is_error"] is False and "stored as result 1" in stored["content"]
    read = [{"type": "tool_use", "id": "tu_2", "name": "read_stored_papers",
             "input": {"query": "quokka ablation"}}]  # fmt: skip
    (found,) = executor.execute_anthropic(read)
    assert NEEDLE in found["content"]


# -- arguments Python will not read (issue 22) --------------------------------------------

HUGE = '{"query": "bert", "max_results": ' + "9" * 5000 + "}"  # ValueError: int digit limit
DEEP = '{"query": ' + "[" * 100_000 + "]" * 100_000 + "}"  # RecursionError


def deep_list(depth: int = 100_000) -> list:
    outer: list = []
    inner = outer
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    return outer


def openai_calls(*name_arguments: tuple[str, str]) -> list:
    """The chat completion's ``tool_calls`` as the OpenAI SDK returns them."""
    return [
        openai.types.chat.ChatCompletionMessageToolCall(
            id=f"call_{i}", type="function", function={"name": name, "arguments": arguments}
        )
        for i, (name, arguments) in enumerate(name_arguments)
    ]


def anthropic_uses(*name_inputs: tuple[str, dict]) -> list:
    """The ``tool_use`` blocks of a message as the Anthropic SDK returns them."""
    return [
        anthropic.types.ToolUseBlock(type="tool_use", id=f"tu_{i}", name=name, input=given)
        for i, (name, given) in enumerate(name_inputs)
    ]


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (HUGE, "hold a number too long to read (more than 4,300 digits). Send numbers of "
               "ordinary size"),
        (DEEP, "are nested too deeply to read"),
    ],
)  # fmt: skip
async def test_json_python_will_not_read_is_guidance_for_that_call(executor, arguments, says):
    calls = openai_calls(("arxiv_query", arguments))
    for (message,) in (executor.execute(calls), await executor.aexecute(calls)):
        assert message["tool_call_id"] == "call_0"
        assert message["content"].startswith(f"The arguments of arxiv_query {says}")
        assert message["content"].endswith('such as {"query": "..."}.')
    blocks = [{"type": "tool_use", "id": "tu_0", "name": "arxiv_query", "input": arguments}]
    for (result,) in (
        executor.execute_anthropic(blocks),
        await executor.aexecute_anthropic(blocks),
    ):
        assert result["is_error"] is True and says in result["content"]


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ({"query": "bert", "max_results": 10**5000},
         "max_results: <a number of about 5001 digits> is above the maximum of 50"),
        ({"query": deep_list()}, "query: <a list nested too deeply to show> is not text"),
        ({"query": [10**5000]}, "query: <a list holding a number too long to show> is not text"),
    ],
)  # fmt: skip
async def test_values_python_cannot_show_are_echoed_in_guidance(executor, given, says):
    blocks = anthropic_uses(("arxiv_query", given))
    for (result,) in (
        executor.execute_anthropic(blocks),
        await executor.aexecute_anthropic(blocks),
    ):
        assert result["is_error"] is True
        assert result["content"].startswith(f"arxiv_query was called wrongly: {says}")
        assert result["content"].endswith("Fix the arguments and call the tool again.")


def test_a_bad_call_never_loses_the_sent_mail_of_its_turn():
    gmail = sample_mailbox()
    executor = ToolExecutor(GmailToolSpec(transport=gmail))
    (created,) = executor.execute(
        openai_calls(("create_draft", '{"to": "ada@example.com", "subject": "Go", "message": "m"}'))
    )
    draft_id = created["content"].split("with id ", 1)[1].split(":")[0]
    send = json.dumps({"draft_id": draft_id})
    messages = executor.execute(openai_calls(("send_draft", send), ("get_draft", HUGE)))
    assert len(gmail.sent) == 1
    assert [m["tool_call_id"] for m in messages] == ["call_0", "call_1"]
    assert messages[0]["content"].startswith(f"Draft {draft_id} sent as message ")
    assert "hold a number too long to read" in messages[1]["content"]


async def test_a_bad_anthropic_call_never_loses_the_sent_mail_of_its_turn():
    gmail = sample_mailbox()
    executor = ToolExecutor(GmailToolSpec(transport=gmail))
    (created,) = await executor.aexecute_anthropic(
        anthropic_uses(("create_draft", {"to": "ada@example.com", "subject": "Go", "message": "m"}))
    )
    draft_id = created["content"].split("with id ", 1)[1].split(":")[0]
    uses = anthropic_uses(
        ("send_draft", {"draft_id": draft_id}), ("get_draft", {"draft_id": deep_list()})
    )
    results = await executor.aexecute_anthropic(uses)
    assert len(gmail.sent) == 1
    assert results[0]["is_error"] is False
    assert results[0]["content"].startswith(f"Draft {draft_id} sent as message ")
    assert results[1]["is_error"] is True and "nested too deeply to show" in results[1]["content"]
