"""The llama-index OpenAI LLM internals compat_llama_index leans on, checked against the pin.

Each test names the internal (its number in the compat module's banner). When an upgrade of
llama-index-llms-openai fails one, read the banner and its changes before touching
anything else: whether an agent without a key is refused at once rests on these.
"""

from __future__ import annotations

import inspect

import openai
import pytest
from llama_index.llms.openai import OpenAI

from toolspecs.agents.compat_llama_index import has_own_client


@pytest.fixture(autouse=True)
def no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def test_1_the_given_clients_are_kept_in_client_and_aclient():
    params = inspect.signature(OpenAI.__init__).parameters
    assert "openai_client" in params and "async_openai_client" in params
    bare = OpenAI(model="gpt-4o-mini")
    assert bare._client is None and bare._aclient is None
    assert not has_own_client(bare)
    sync = openai.OpenAI(api_key="sk-given")
    given = OpenAI(model="gpt-4o-mini", openai_client=sync)
    assert given._client is sync and has_own_client(given)
    aclient = openai.AsyncOpenAI(api_key="sk-given")
    given_async = OpenAI(model="gpt-4o-mini", async_openai_client=aclient)
    assert given_async._aclient is aclient and has_own_client(given_async)


def test_1_the_llm_makes_its_client_there_at_the_first_request():
    source = inspect.getsource(OpenAI._get_client)
    assert "self._client" in source
    assert "self._aclient" in inspect.getsource(OpenAI._get_aclient)
