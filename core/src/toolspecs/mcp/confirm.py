"""Confirmations a person sees: a destructive call asks the person, through the client, first.

A tool that sends, deletes or makes a destructive update, of a spec that asks
(``Guard.asks_first``: ``confirm_destructive``, on by default), runs only once the
person said yes, where their client can show a form (it declared the ``elicitation``
capability for forms). The question is the spec's (``ToolSpec.confirmation``: what will
happen, e.g. the draft's recipients, subject and attachments), asked of the spec like a
call (arguments read, the service asked if it must be, failures as guidance).

- On the 2026-07-28 revision, the call answers ``InputRequiredResult``: one form request
  (``confirm``) and a ``requestState`` that mcp's ``RequestStateBoundary`` seals and binds
  to this tool, these arguments and this caller, for :data:`STATE_SECONDS`. The client
  asks the person and calls again with the answer and the state.
- On handshake revisions, the server sends ``elicitation/create`` during the call and
  waits up to :data:`CONFIRM_SECONDS` for the answer.

Only an accepted form whose ``confirm`` is true lets the call run. A decline, a cancel, a
``false``, no answer in time: nothing is done, and the agent reads that the person said
no. Where the client cannot show a form, nothing is asked: the tool's marks and
description say what it does, as they always did.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from toolspecs.adapters.tools import require
from toolspecs.core.errors import AskUser, ConfigurationError
from toolspecs.core.tool import GuardedTool

if TYPE_CHECKING:
    import mcp_types

    from mcp.server import Server, ServerRequestContext

# The key of the one input request, and of the field the person sets.
CONFIRM = "confirm"
# Seconds the server waits for the person's answer on a handshake revision.
CONFIRM_SECONDS = 300.0
# Seconds a 2026-07-28 client has to come back with the answer.
STATE_SECONDS = 600.0
# Keys that seal the state, comma-separated, the first sealing (rotation): every replica
# behind one address needs the same ones, else only this process takes an answer.
STATE_KEY_ENV = "TOOLSPECS_REQUEST_STATE_KEY"
# What our requestState says (sealed by mcp's boundary, bound to the call).
_ASKED = "toolspecs-confirm-v1"

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

    Args:
        server: The low-level server.
        name: Its name: the state's audience, so another service's state is refused.
        keys: Shared by every replica behind one address (``keys[0]`` seals, all
            unseal); ``None``: a key of this process only.

    Raises:
        ConfigurationError: When a key is shorter than mcp's 32 bytes.
    """
    state = require("mcp.server.request_state", "mcp")
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


def can_ask(ctx: ServerRequestContext[Any]) -> bool:
    """Whether the client of ``ctx`` can show the person a form (elicitation, form mode)."""
    capabilities = getattr(ctx.session, "client_capabilities", None)
    elicitation = getattr(capabilities, "elicitation", None)
    if elicitation is None:
        return False
    # An empty elicitation capability means forms (the revisions before URL mode).
    return elicitation.form is not None or elicitation.url is None


def question_request(question: str) -> mcp_types.InputRequiredResult:
    """The 2026-07-28 answer that asks the person ``question`` first."""
    types = require("mcp_types", "mcp")
    form = types.ElicitRequestFormParams(message=question, requested_schema=SCHEMA)
    result: mcp_types.InputRequiredResult = types.InputRequiredResult(
        input_requests={CONFIRM: types.ElicitRequest(params=form)}, request_state=_ASKED
    )
    return result


def answer_given(params: mcp_types.CallToolRequestParams) -> Answer | None:
    """The person's answer a 2026-07-28 retry carries; ``None`` when it carries none.

    The state is ours only if mcp's boundary unsealed it (bound to this tool, these
    arguments and this caller): a response without it was never asked for.
    """
    if params.request_state != _ASKED:
        return None
    found = (params.input_responses or {}).get(CONFIRM)
    if found is None:
        return None
    return "go" if _accepted(found) else "no"


async def ask_now(ctx: ServerRequestContext[Any], question: str) -> Answer:
    """Ask during the call (handshake revisions): the person's answer, or no in time."""
    anyio = require("anyio", "mcp")
    errors = require("mcp.shared.exceptions", "mcp")
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


def _accepted(found: Any) -> bool:
    action = getattr(found, "action", None)
    content = getattr(found, "content", None)
    if isinstance(found, dict):
        action, content = found.get("action"), found.get("content")
    return action == "accept" and isinstance(content, dict) and content.get(CONFIRM) is True


def declined(tool: GuardedTool) -> str:
    """What the agent reads when the person said no: nothing was done."""
    name = tool.metadata.get_name()
    return AskUser(
        f"The user declined {name}: it was not run, and nothing was sent, changed or deleted.",
        "Do not call it again unasked: ask the user what they want instead.",
    ).text
