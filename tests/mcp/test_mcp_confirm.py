"""Confirmations a person sees, through mcp's own client, in both protocol modes.

``legacy``: the handshake revision; the server sends ``elicitation/create`` during the call.
``auto``: 2026-07-28; the call answers ``InputRequiredResult`` and the client calls again
with the person's answer (mcp's client drives that loop and calls the same callback).
A destructive tool of a spec of our own records what it did: a declined call did nothing.

The seal: a yes counts for what the person was shown only. The sandbox's Gmail draft and
Calendar event are changed (or deleted) while the question is on screen; the yes is then
checked against the question computed again, and nothing is done unless it is the same.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from toolspecs.core import FixArguments, ToolSpec, tool
from toolspecs.loaders.google.testing import FakeCalendar, sample_mailbox, timed_event
from toolspecs.server import build_server, confirm
from toolspecs.server.testing import ScriptedPerson as Person
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec


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


# -- the seal: a yes is to what the person was shown ---------------------------------------

CHANGED = "What you were shown has changed since you saw it, and nothing was done."


class Meanwhile(Person):
    """Says yes to the first question, which someone makes untrue (``change``) meanwhile.

    Every later question gets ``then``: ``"accept"`` (yes) or ``"decline"``.
    """

    def __init__(self, change: Callable[[], None], then: str = "accept") -> None:
        super().__init__()
        self.change, self.then = change, then

    async def __call__(self, context, params):
        if self.questions:
            self.action = self.then
            self.confirm = True if self.then == "accept" else None
        answer = await super().__call__(context, params)
        if len(self.questions) == 1:
            self.change()
        return answer


@pytest.fixture
def gmail():
    return sample_mailbox()


@pytest.fixture
def mail(gmail):
    """The Gmail spec and one draft of it, to Ada."""
    spec = GmailToolSpec(transport=gmail)
    made = spec.call_tool(
        "create_draft", to=["Ada Lovelace <ada@example.com>"], subject="Q4", message="Hi Ada."
    )
    assert made.is_error is False, made.content
    return spec, made.raw_output["id"]


def add_eve(spec, draft_id) -> Callable[[], None]:
    to = ["Ada Lovelace <ada@example.com>", "eve@example.org"]
    return lambda: spec.call_tool("update_draft", draft_id=draft_id, to=to)


async def send(spec, person, mode, draft_id):
    async with Client(build_server(spec), mode=mode, elicitation_callback=person) as client:
        return await client.call_tool("send_draft", {"draft_id": draft_id})


async def test_a_recipient_added_after_the_yes_was_asked_for_is_asked_about_first(
    mode, gmail, mail
):
    spec, draft_id = mail
    person = Meanwhile(add_eve(spec, draft_id), then="decline")
    result = await send(spec, person, mode, draft_id)

    first, again = person.questions
    assert "eve@example.org" not in first and "To: Ada Lovelace <ada@example.com>" in first
    assert again.startswith(CHANGED + " This is what it is now:\n")
    assert "To: Ada Lovelace <ada@example.com>, eve@example.org" in again.splitlines()
    assert result.is_error and "declined send_draft" in result.content[0].text
    assert gmail.sent == [] and draft_id in gmail.drafts  # the yes to the old draft sent nothing


async def test_a_yes_to_the_changed_draft_sends_it(mode, gmail, mail):
    spec, draft_id = mail
    person = Meanwhile(add_eve(spec, draft_id))
    result = await send(spec, person, mode, draft_id)

    assert len(person.questions) == 2 and "eve@example.org" in person.questions[1]
    assert not result.is_error and result.content[0].text.startswith(f"Draft {draft_id} sent")
    [sent] = gmail.sent
    assert gmail.parsed(sent).addresses("to")[-1].endswith("eve@example.org")


async def test_a_draft_deleted_before_the_yes_is_guidance_and_nothing_is_sent(
    mode, gmail, mail, caplog
):
    caplog.set_level(logging.INFO, logger="toolspecs.calls")
    spec, draft_id = mail
    delete = lambda: gmail.messages.pop(gmail.drafts.pop(draft_id))  # noqa: E731
    person = Meanwhile(delete)
    result = await send(spec, person, mode, draft_id)

    assert len(person.questions) == 1
    assert result.is_error and "Gmail found nothing there (HTTP 404)" in result.content[0].text
    assert gmail.sent == [] and [r for r in gmail.calls() if r.path.endswith("/send")] == []
    # The guidance is the question's, computed again: send_draft itself never ran.
    assert [r for r in caplog.records if r.name == "toolspecs.calls"] == []


async def test_an_event_moved_before_the_yes_to_delete_it_is_asked_about_first(mode):
    google = FakeCalendar(
        events={"e1": timed_event("e1", "Review", "2026-11-25T14:00:00-05:00",
                                  "2026-11-25T14:45:00-05:00", location="Room 4")}
    )  # fmt: skip
    spec = GoogleCalendarToolSpec(transport=google, allow_destructive=True)
    move = lambda: spec.call_tool("update_event", event_id="e1", location="Room 9")  # noqa: E731
    person = Meanwhile(move, then="decline")
    server = build_server(spec.to_tool_list(spec_functions=["delete_event", "update_event"]))
    async with Client(server, mode=mode, elicitation_callback=person) as client:
        result = await client.call_tool("delete_event", {"event_id": "e1"})

    first, again = person.questions
    assert "Where: Room 4" in first.splitlines()
    assert again.startswith(CHANGED) and "Where: Room 9" in again.splitlines()
    assert result.is_error and "e1" in google.events


class Shifting(Kiln):
    """A kiln whose pots change every time someone looks."""

    def confirmation(self, function: str, arguments: Mapping[str, Any]) -> str:
        self.asked_about.append(arguments["pot"])
        return f"Break the {arguments['pot']} (look {len(self.asked_about)})?"


async def test_what_keeps_changing_is_asked_a_few_times_then_nothing_is_done(mode):
    spec, person = Shifting(), Person()
    result = await call(spec, person, mode)

    assert len(person.questions) == confirm.ASK_AGAIN + 1
    assert all(q.startswith(CHANGED) for q in person.questions[1:])
    assert result.is_error and "break_pot acts on kept changing" in result.content[0].text
    assert spec.broken == []


async def test_an_answer_to_the_earlier_form_of_state_is_not_taken(monkeypatch):
    # A state minted before the seal ("toolspecs-confirm-v1", sealed by mcp's boundary and
    # still valid) vouches for no question: its yes is an answer never asked for.
    spec = Kiln()
    yes = types.ElicitResult(action="accept", content={"confirm": True})
    args = {"pot": "blue vase"}
    ask = confirm.question_request

    def earlier(question: str, again: int = 0) -> types.InputRequiredResult:
        return ask(question, again).model_copy(update={"request_state": "toolspecs-confirm-v1"})

    async with Client(build_server(spec), mode="auto", elicitation_callback=Person()) as client:
        with monkeypatch.context() as patched:
            patched.setattr(confirm, "question_request", earlier)
            first = await client.session.call_tool("break_pot", args, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult)
        retry = {"input_responses": {"confirm": yes}, "request_state": first.request_state}
        again = await client.session.call_tool(
            "break_pot", args, allow_input_required=True, **retry
        )
    assert isinstance(again, types.InputRequiredResult) and spec.broken == []
