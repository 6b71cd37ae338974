"""Confirmations: a destructive call asks the person, through the client, first.

On 2026-07-28 the call answers ``InputRequiredResult`` with a ``requestState`` that mcp's
``RequestStateBoundary`` seals and binds to this tool, arguments and caller; before, the
server sends ``elicitation/create`` during the call. What a call acts on can change while
the person reads the question (a draft's recipients edited meanwhile), and a yes is a yes
to what they were shown only: so the question is computed again and a yes counts only if
it is the same (its fingerprint rides in the sealed state); else they are asked again, at
most :data:`ASK_AGAIN` times. Anything but an accepted ``confirm: true`` is a no.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import anyio
import mcp.server.request_state as state
import mcp.shared.exceptions as errors
import mcp_types
from mcp.server import Server, ServerRequestContext

from toolspecs.core.errors import AskUser, ConfigurationError, ToolGuidance
from toolspecs.core.tool import GuardedTool

# The key of the one input request, and of the field the person sets.
CONFIRM = "confirm"
# Seconds the server waits for the person's answer on a handshake revision.
CONFIRM_SECONDS = 300.0
# Seconds a 2026-07-28 client has to come back with the answer.
STATE_SECONDS = 600.0
# Keys that seal the state, comma-separated, the first sealing (rotation): every replica
# behind one address needs the same ones, else only this process takes an answer.
STATE_KEY_ENV = "TOOLSPECS_REQUEST_STATE_KEY"
# What our requestState says (sealed by mcp's boundary, bound to the call), followed by
# how many times the person was asked again, and the sha256 of the question they saw:
# "toolspecs-confirm-v2:0:<hex>". Another form (the earlier "-v1") is not ours.
SEAL = "toolspecs-confirm-v2"
# The most times a person is asked again because what they were shown changed meanwhile.
ASK_AGAIN = 2

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        CONFIRM: {
            "type": "boolean",
            "title": "Go ahead",
            "description": "Yes: it is done. No: nothing is done.",
            "default": False,
        }
    },
    "required": [CONFIRM],
}

Answer = Literal["go", "no", "cannot ask"]


def protect(server: Server[Any], name: str, keys: Sequence[bytes | str] | None = None) -> None:
    """Seal and check the ``requestState`` of ``server``'s multi-round calls (2026-07-28).

    ``name`` is the state's audience; ``keys`` are every replica's (``keys[0]`` seals; ``None``:
    a key of this process). ConfigurationError for a key shorter than mcp's 32 bytes.
    """
    try:
        security = (
            state.RequestStateSecurity(keys=list(keys), ttl=STATE_SECONDS)
            if keys
            else state.RequestStateSecurity.ephemeral(ttl=STATE_SECONDS)
        )
    except ValueError:  # mcp's message would name the key's length: ours names the fix
        raise ConfigurationError(
            f"{STATE_KEY_ENV} holds a key shorter than 32 bytes: give each key 32 or more "
            "random characters (e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        ) from None
    server.middleware.append(state.RequestStateBoundary(security, default_audience=name))


def state_keys_from_env(environ: Mapping[str, str] | None = None) -> list[str] | None:
    """The keys of :data:`STATE_KEY_ENV` (``None`` when unset: a key of this process)."""
    given = (os.environ if environ is None else environ).get(STATE_KEY_ENV, "")
    keys = [key.strip() for key in given.split(",") if key.strip()]
    return keys or None


def elicitation_of(ctx: ServerRequestContext[Any]) -> Any:
    """The elicitation capability the client of ``ctx`` declared (``None``: none)."""
    capabilities = getattr(ctx.session, "client_capabilities", None)
    return getattr(capabilities, "elicitation", None)


def can_ask(ctx: ServerRequestContext[Any]) -> bool:
    """Whether the client of ``ctx`` can show the person a form (elicitation, form mode)."""
    elicitation = elicitation_of(ctx)
    if elicitation is None:
        return False
    # An empty elicitation capability means forms (the revisions before URL mode).
    return elicitation.form is not None or elicitation.url is None


async def ask_first(
    ctx: ServerRequestContext[Any],
    tool: GuardedTool,
    params: mcp_types.CallToolRequestParams,
    modern: bool,
) -> ToolGuidance | mcp_types.InputRequiredResult | None:
    """Ask the person before a destructive call: ``None`` to go on; else what the call answers."""
    arguments = params.arguments or {}
    try:
        # Computed once per call (on 2026-07-28 once per round): a first call asks it,
        # a retry checks the yes against it (the draft or event read again).
        question = await tool.guard.confirmation((), arguments)
    except ToolGuidance as guidance:  # bad arguments, no such draft (now): nothing asked
        return guidance
    if question is None:
        return None
    if modern:
        return _settle(tool, params, question)
    return await _ask_until_same(ctx, tool, arguments, question)


def _settle(
    tool: GuardedTool, params: mcp_types.CallToolRequestParams, question: str
) -> ToolGuidance | mcp_types.InputRequiredResult | None:
    sealed = _unsealed(params.request_state)
    found = (params.input_responses or {}).get(CONFIRM)
    if sealed is None or found is None:  # never asked (our state vouches for the asking)
        return question_request(question)
    again, shown = sealed
    if not _accepted(found):
        return declined(tool)
    if shown == _fingerprint(question):
        return None
    if again >= ASK_AGAIN:
        return kept_changing(tool)
    return question_request(question, again + 1)


async def _ask_until_same(
    ctx: ServerRequestContext[Any], tool: GuardedTool, arguments: Mapping[str, Any], question: str
) -> ToolGuidance | None:
    for again in range(ASK_AGAIN + 1):
        answer = await ask_now(ctx, changed(question) if again else question)
        if answer == "cannot ask":  # as if the client could not show forms; not once shown
            return None if again == 0 else kept_changing(tool)
        if answer == "no":
            return declined(tool)
        try:
            now = await tool.guard.confirmation((), arguments)
        except ToolGuidance as guidance:  # the draft was deleted meanwhile: nothing done
            return guidance
        if now is None or now == question:
            return None
        question = now
    return kept_changing(tool)


def question_request(question: str, again: int = 0) -> mcp_types.InputRequiredResult:
    """The 2026-07-28 answer that asks the person ``question`` first (``again``: times before)."""
    shown = changed(question) if again else question
    form = mcp_types.ElicitRequestFormParams(message=shown, requested_schema=SCHEMA)
    return mcp_types.InputRequiredResult(
        input_requests={CONFIRM: mcp_types.ElicitRequest(params=form)},
        request_state=f"{SEAL}:{again}:{_fingerprint(question)}",
    )


def changed(question: str) -> str:
    """``question`` asked again because what the person was shown has changed since."""
    return (
        "What you were shown has changed since you saw it, and nothing was done. "
        f"This is what it is now:\n{question}"
    )


def _fingerprint(question: str) -> str:
    return hashlib.sha256(question.encode("utf-8")).hexdigest()


def _unsealed(state: str | None) -> tuple[int, str] | None:
    """Our state's times asked again and fingerprint (unsealed by mcp); ``None``: not ours."""
    seal, _, rest = (state or "").partition(":")
    again, _, shown = rest.partition(":")
    if seal != SEAL or not again.isdigit() or not shown:
        return None
    return int(again), shown


async def ask_now(ctx: ServerRequestContext[Any], question: str) -> Answer:
    """Ask during the call (handshake revisions): the person's answer, or no in time."""
    try:
        with anyio.fail_after(CONFIRM_SECONDS):
            found = await ctx.session.elicit_form(
                question, SCHEMA, related_request_id=ctx.request_id
            )
    except TimeoutError:
        return "no"
    except errors.NoBackChannelError:  # stateless HTTP of a handshake revision
        return "cannot ask"
    return "go" if _accepted(found) else "no"


def answer_of(found: Any) -> tuple[Any, Any]:
    """An elicitation answer's ``action`` and ``content``: a result, or its dict (2026-07-28)."""
    if isinstance(found, dict):
        return found.get("action"), found.get("content")
    return getattr(found, "action", None), getattr(found, "content", None)


def _accepted(found: Any) -> bool:
    action, content = answer_of(found)
    return action == "accept" and isinstance(content, dict) and content.get(CONFIRM) is True


def declined(tool: GuardedTool) -> ToolGuidance:
    """What the agent reads when the person said no: nothing was done."""
    name = tool.metadata.get_name()
    return AskUser(
        f"The user declined {name}: it was not run, and nothing was sent, changed or deleted.",
        "Do not call it again unasked: ask the user what they want instead.",
    )


def kept_changing(tool: GuardedTool) -> ToolGuidance:
    """What the agent reads when what the person was asked about kept changing."""
    name = tool.metadata.get_name()
    return AskUser(
        f"What {name} acts on kept changing while the user was asked to confirm it "
        f"({ASK_AGAIN + 1} times): it was not run, and nothing was sent, changed or deleted.",
        "Tell the user; call it again once it has stopped changing, if they still want it.",
    )
