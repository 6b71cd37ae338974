"""Sign-in in the client: a call that needs the person's sign-in shows them the page.

Where the client declared URL-mode elicitation, it is asked to open the spec's sign-in
page instead of the agent telling the person to find a terminal. Only for a caller on
the serving machine: the browser comes back to this machine's loopback, so a person
elsewhere could not finish it, and should not see a page another caller may share.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from typing import Any

import anyio
import mcp.shared.exceptions as errors
import mcp_types
from mcp.server import ServerRequestContext

from toolspecs.core.calls import SignIn
from toolspecs.core.errors import AskUser, ToolGuidance
from toolspecs.core.tool import GuardedTool
from toolspecs.server.auth import is_loopback
from toolspecs.server.confirm import answer_of, elicitation_of

# The key of the input request (2026-07-28).
SIGN_IN = "sign_in"
# Seconds a call waits for the person's browser once they accepted to open the page.
SIGN_IN_SECONDS = 300.0
# Sign-ins shown on 2026-07-28 whose retry has not come yet, at most (oldest dropped).
MAX_SHOWN = 32
_STATE = "toolspecs-signin-v1:"

_shown: OrderedDict[str, SignIn] = OrderedDict()
_shown_lock = threading.Lock()


def can_open(ctx: ServerRequestContext[Any]) -> bool:
    """Whether the client of ``ctx`` can show the person a page (URL-mode elicitation)."""
    elicitation = elicitation_of(ctx)
    return elicitation is not None and elicitation.url is not None


async def offer(
    ctx: ServerRequestContext[Any], tool: GuardedTool, modern: bool
) -> bool | ToolGuidance | mcp_types.InputRequiredResult:
    """Show the person the sign-in page ``tool``'s call needs.

    ``True`` once signed in (run again); ``False`` when none can be shown (keep the call's
    guidance); guidance; or on 2026-07-28 the request to show the page.
    """
    starter = tool.guard.policy.sign_in
    if starter is None or not _beside(ctx):
        return False
    try:
        started = await anyio.to_thread.run_sync(starter)
    except ToolGuidance as guidance:  # no OAuth client file: what the person must set
        return guidance
    if started is None:
        return False
    if modern:
        key = secrets.token_urlsafe(16)
        with _shown_lock:
            _shown[key] = started
            while len(_shown) > MAX_SHOWN:
                _shown.popitem(last=False)
        page = mcp_types.ElicitRequestURLParams(message=started.message, url=started.url)
        return mcp_types.InputRequiredResult(
            input_requests={SIGN_IN: mcp_types.ElicitRequest(params=page)},
            request_state=_STATE + key,
        )
    elicitation_id = secrets.token_urlsafe(16)
    try:
        with anyio.fail_after(SIGN_IN_SECONDS):
            found = await ctx.session.elicit_url(
                started.message, started.url, elicitation_id, related_request_id=ctx.request_id
            )
    except errors.NoBackChannelError:  # stateless HTTP of a handshake revision
        started.cancel()
        return False
    except TimeoutError:  # the client never answered: as a cancel
        found = None
    if answer_of(found)[0] != "accept":
        started.cancel()
        return declined(tool)
    failed = await _finish(started)
    if failed is not None:
        return failed
    await ctx.session.send_elicit_complete(elicitation_id, related_request_id=ctx.request_id)
    return True


def _beside(ctx: ServerRequestContext[Any]) -> bool:
    """Whether the caller runs on this machine: stdio, or HTTP from a loopback address."""
    scope = getattr(ctx.request, "scope", None)
    if not isinstance(scope, dict):
        return True  # stdio, or in memory: the person's own machine
    client = scope.get("client") or ("",)
    return is_loopback(str(client[0]))


async def resume(tool: GuardedTool, params: mcp_types.CallToolRequestParams) -> ToolGuidance | None:
    """A 2026-07-28 call back after the sign-in page: ``None`` to run it, else guidance."""
    state = params.request_state or ""
    found = (params.input_responses or {}).get(SIGN_IN)
    if not state.startswith(_STATE) or found is None:
        return None
    with _shown_lock:
        started = _shown.pop(state.removeprefix(_STATE), None)
    if answer_of(found)[0] != "accept":
        if started is not None:
            started.cancel()
        return declined(tool)
    return None if started is None else await _finish(started)


async def _finish(started: SignIn) -> ToolGuidance | None:
    try:
        await anyio.to_thread.run_sync(started.finish, SIGN_IN_SECONDS, abandon_on_cancel=True)
    except ToolGuidance as guidance:
        return guidance
    return None


def declined(tool: GuardedTool) -> ToolGuidance:
    """What the agent reads when the person did not open the sign-in page."""
    return AskUser(
        f"The user did not sign in, so {tool.metadata.get_name()} was not run.",
        "Do not call it again unasked: tell the user it needs their sign-in, and ask.",
    )
