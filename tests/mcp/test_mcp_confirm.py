"""Confirmations a person sees, through mcp's own client, in both protocol modes.

``legacy``: the handshake revision; the server sends ``elicitation/create`` during the call.
``auto``: 2026-07-28; the call answers ``InputRequiredResult`` and the client calls again
with the person's answer (mcp's client drives that loop and calls the same callback).
A destructive tool of a spec of our own records what it did: a declined call did nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from toolspecs.core import FixArguments, ToolSpec, tool
from toolspecs.mcp import build_server, confirm
from toolspecs.mcp.testing import ScriptedPerson as Person


class Kiln(ToolSpec):
    """Pots, some of which can be broken."""

    spec_functions: ClassVar[list[str]] = ["break_pot", "count_pots"]
    service_name: ClassVar[str] = "Kiln"

    def __init__(self) -> None:
        self.broken: list[str] = []
        self.asked_about: list[str] = []

    @tool(destructive=True, idempotent=False, open_world=False)
    def break_pot(self, pot: str) -> str:
        """Break a pot, for good.

        Args:
            pot: e.g. 'blue vase'.
        """
        self.broken.append(pot)
        return f"Broke the {pot}."

    @tool(read_only=True)
    def count_pots(self) -> str:
        """Count the pots."""
        return "3 pots"

    def confirmation(self, function: str, arguments: Mapping[str, Any]) -> str:
        pot = arguments["pot"]
        if pot == "ghost":
            raise FixArguments("There is no pot named 'ghost'.", "Name a pot that exists.")
        self.asked_about.append(pot)
        return f"Break the {pot}? It cannot be mended."


@pytest.fixture(params=["legacy", "auto"])
def mode(request) -> str:
    return request.param


async def call(spec, person, mode, name="break_pot", args=None):
    async with Client(build_server(spec), mode=mode, elicitation_callback=person) as client:
        return await client.call_tool(name, {"pot": "blue vase"} if args is None else args)


async def test_a_yes_runs_the_call_after_the_person_saw_what_will_happen(mode):
    spec, person = Kiln(), Person()
    result = await call(spec, person, mode)
    assert not result.is_error and result.content[0].text == "Broke the blue vase."
    assert person.questions == ["Break the blue vase? It cannot be mended."]
    assert spec.broken == ["blue vase"]


@pytest.mark.parametrize(
    ("action", "yes"), [("decline", None), ("cancel", None), ("accept", False)]
)
async def test_anything_but_yes_does_nothing_and_says_so(mode, action, yes):
    spec, person = Kiln(), Person(action, yes)
    result = await call(spec, person, mode)
    assert spec.broken == []
    assert result.is_error
    assert "declined break_pot: it was not run" in result.content[0].text
    assert len(person.questions) == 1


async def test_no_answer_in_time_does_nothing(monkeypatch):
    monkeypatch.setattr(confirm, "CONFIRM_SECONDS", 0.2)
    spec = Kiln()
    result = await call(spec, Person(wait=5), "legacy")
    assert spec.broken == [] and result.is_error and "declined" in result.content[0].text


async def test_a_client_that_cannot_ask_gets_the_call_as_before(mode):
    spec = Kiln()
    result = await call(spec, None, mode)  # no elicitation capability declared
    assert result.content[0].text == "Broke the blue vase." and spec.broken == ["blue vase"]


async def test_a_spec_for_automated_agents_does_not_ask(mode):
    spec, person = Kiln(), Person(action="decline")
    spec.confirm_destructive = False
    result = await call(spec, person, mode)
    assert not result.is_error and spec.broken == ["blue vase"] and person.questions == []


async def test_tools_that_change_nothing_never_ask(mode):
    spec, person = Kiln(), Person(action="decline")
    result = await call(spec, person, mode, "count_pots", {})
    assert result.content[0].text == "3 pots" and person.questions == []


async def test_a_question_that_cannot_be_asked_is_guidance_and_nothing_is_done(mode):
    spec, person = Kiln(), Person()
    result = await call(spec, person, mode, args={"pot": "ghost"})
    assert result.is_error and "no pot named 'ghost'" in result.content[0].text
    assert person.questions == [] and spec.broken == []


async def test_an_answer_the_server_never_asked_for_is_not_taken():
    # A 2026-07-28 client sending a made-up "yes" with no (sealed) state is asked again.
    spec = Kiln()
    yes = types.ElicitResult(action="accept", content={"confirm": True})
    async with Client(build_server(spec), mode="auto", elicitation_callback=Person()) as client:
        first = await client.session.call_tool(
            "break_pot",
            {"pot": "blue vase"},
            input_responses={"confirm": yes},
            allow_input_required=True,
        )
        assert isinstance(first, types.InputRequiredResult)
        assert spec.broken == []
        # The state is sealed and bound to these arguments: it cannot confirm another pot.
        with pytest.raises(MCPError, match="Invalid or expired requestState"):
            await client.session.call_tool(
                "break_pot",
                {"pot": "red jug"},
                input_responses={"confirm": yes},
                request_state=first.request_state,
                allow_input_required=True,
            )
    assert spec.broken == []


async def test_replicas_sharing_a_key_take_each_others_answers():
    # Behind a load balancer the retry may reach another replica: with the same
    # TOOLSPECS_REQUEST_STATE_KEY it takes the answer; with its own key it refuses it.
    key = "k" * 40
    spec = Kiln()
    yes = types.ElicitResult(action="accept", content={"confirm": True})
    args = {"pot": "blue vase"}
    one, two = (build_server(spec, request_state_keys=[key]) for _ in range(2))
    stranger = build_server(spec)  # a key of its own
    async with Client(one, mode="auto", elicitation_callback=Person()) as client:
        asked = await client.session.call_tool("break_pot", args, allow_input_required=True)
    assert isinstance(asked, types.InputRequiredResult) and spec.broken == []
    retry = {"input_responses": {"confirm": yes}, "request_state": asked.request_state}
    async with Client(stranger, mode="auto", elicitation_callback=Person()) as client:
        with pytest.raises(MCPError, match="Invalid or expired requestState"):
            await client.session.call_tool("break_pot", args, **retry)
    async with Client(two, mode="auto", elicitation_callback=Person()) as client:
        done = await client.session.call_tool("break_pot", args, **retry)
    assert done.content[0].text == "Broke the blue vase." and spec.broken == ["blue vase"]


def test_a_short_shared_key_is_one_line_at_startup(monkeypatch, capsys):
    from toolspecs.cli import main

    monkeypatch.setenv(confirm.STATE_KEY_ENV, "short")
    code = main(["serve", "--sandbox", "arxiv"])
    err = capsys.readouterr().err.strip()
    assert code != 0 and len(err.splitlines()) == 1
    assert "TOOLSPECS_REQUEST_STATE_KEY holds a key shorter than 32 bytes" in err
    assert "short" not in err.replace("shorter", "")  # the key itself is never shown
