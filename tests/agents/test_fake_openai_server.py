"""`FakeOpenAI` at the HTTP level: what it answers, and what it refuses as OpenAI would.

Through its httpx transport, and served on 127.0.0.1 to clients nobody here wrote (the
`openai` SDK, llama-index's `OpenAI` LLM under an agent).
"""

from __future__ import annotations

import json

import httpx
import pytest
from notes_spec import NotesToolSpec

from toolspecs.agents import OpenAIAgent
from toolspecs.agents.testing import FakeOpenAI, last_tool_output, message_text

URL = "https://api.openai.com/v1/chat/completions"


def post(fake: FakeOpenAI, body: dict) -> httpx.Response:
    with httpx.Client(transport=fake.transport) as client:
        return client.post(URL, json=body)


def sse_chunks(response: httpx.Response) -> list[dict]:
    events = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    return [json.loads(e) for e in events[:-1]]


TOOLS = [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}]


def test_a_completion_with_tool_calls_and_raw_arguments():
    fake = FakeOpenAI([[("add", {"a": 1}), ("add", '{"a": 1,')]])
    reply = post(
        fake, {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": TOOLS}
    )
    assert reply.status_code == 200
    choice = reply.json()["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    calls = choice["message"]["tool_calls"]
    assert [c["id"] for c in calls] == ["call_1_0", "call_1_1"]
    assert [c["function"]["arguments"] for c in calls] == ['{"a": 1}', '{"a": 1,']
    assert fake.tool_names() == ["add"]


def test_a_streamed_answer_and_streamed_calls():
    fake = FakeOpenAI(["Hello there", [("add", {"a": 1}), ("add", {"a": 2})]])
    text = sse_chunks(post(fake, {"model": "m", "messages": [], "stream": True}))
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in text) == "Hello there"
    assert text[-1]["choices"][0]["finish_reason"] == "stop"
    calls = sse_chunks(post(fake, {"model": "m", "messages": [], "stream": True}))
    openings = [
        c["choices"][0]["delta"]["tool_calls"][0]
        for c in calls
        if "id" in (c["choices"][0]["delta"].get("tool_calls") or [{}])[0]
    ]
    assert [(o["index"], o["id"], o["function"]["name"]) for o in openings] == [
        (0, "call_2_0", "add"),
        (1, "call_2_1", "add"),
    ]
    assert calls[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_a_turn_can_read_the_request():
    fake = FakeOpenAI([lambda request: f"{len(request['messages'])} messages"])
    reply = post(fake, {"model": "m", "messages": [{"role": "user", "content": "x"}]})
    assert reply.json()["choices"][0]["message"]["content"] == "1 messages"


def test_what_openai_would_refuse_is_refused():
    fake = FakeOpenAI(["never sent"])
    orphan = {"role": "tool", "tool_call_id": "call_9", "content": "5"}
    reply = post(fake, {"model": "m", "messages": [orphan]})
    assert reply.status_code == 400
    assert "must be a response to a preceding message with 'tool_calls'" in reply.text
    bad_name = [{"type": "function", "function": {"name": "add numbers"}}]
    reply = post(fake, {"model": "m", "messages": [], "tools": bad_name})
    assert reply.status_code == 400
    assert "function name 'add numbers' does not match" in reply.text
    with httpx.Client(transport=fake.transport) as client:
        assert client.get("https://api.openai.com/v1/models").status_code == 404


def test_message_helpers_read_both_content_forms():
    parts = {
        "role": "tool",
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
    }
    assert message_text(parts) == "ab"
    assert last_tool_output({"messages": [parts, {"role": "tool", "content": "c"}]}) == "c"
    assert last_tool_output({"messages": []}) == ""


@pytest.mark.serving
def test_served_on_127_0_0_1_it_drives_an_agent_over_a_real_socket():
    fake = FakeOpenAI(
        [
            [("count_words", {"text": "tea at four"})],
            lambda request: f"It has {last_tool_output(request)}",
        ]
    )
    with fake.serve() as base_url:
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        from llama_index.llms.openai import OpenAI

        llm = OpenAI(model="gpt-4.1-mini", api_base=base_url, api_key="sk-test", max_retries=0)
        agent = OpenAIAgent.from_tools(NotesToolSpec().to_tool_list(), llm=llm)
        answer = agent.chat("How many words in 'tea at four'?")
    assert str(answer) == "It has 3 words."
    assert fake.tool_names(0) == ["find_notes", "count_words"]
    assert last_tool_output(fake.requests[1]) == "3 words."


@pytest.mark.serving
def test_served_it_answers_the_openai_sdk_and_refuses_as_openai_would():
    import openai

    fake = FakeOpenAI(["Hello."])
    with fake.serve() as base_url:
        client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
        said = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}]
        )
        with pytest.raises(openai.BadRequestError, match="has no turn"):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "?"}])
        with pytest.raises(openai.NotFoundError):
            client.embeddings.create(model="m", input="hi")
    assert said.choices[0].message.content == "Hello."
    assert [message_text(r["messages"][0]) for r in fake.requests] == ["hi", "?"]
