"""Each signed-in user's own tools: built once per user, bounded, idle ones dropped."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import ClassVar

import pytest

from toolspecs.core import ToolSpec, tool
from toolspecs.core.errors import ConfigurationError
from toolspecs.server.callers import TOKEN_HOLDER_KEY, Callers
from toolspecs.server.user_tools import User, UserTools


class Mailbox(ToolSpec):
    """One person's mailbox: what it answers says whose it is."""

    spec_functions: ClassVar = ["whose"]
    service_name = "Mail"

    def __init__(self, owner: str) -> None:
        self.owner = owner

    @tool(read_only=True)
    def whose(self) -> str:
        """Say whose mailbox this is."""
        return f"the mailbox of {self.owner}"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def pool(built: list[str], **options) -> UserTools:
    def build(user: User):
        built.append(user.subject)
        return Mailbox(user.email or user.subject).to_tool_list()

    return UserTools(build, ["whose"], **options)


def test_each_user_gets_their_own_tools_built_once():
    built: list[str] = []
    users = pool(built)
    ada, bob = User.named("ada", "https://id.example"), User.named("bob", "https://id.example")
    owner, tools = users.get(ada)
    assert tools["whose"].call().content == "the mailbox of ada"
    assert users.get(bob)[1]["whose"].call().content == "the mailbox of bob"
    again_owner, again = users.get(User.named("ada", "https://id.example"))
    assert again is tools and again_owner is owner  # one owner object per user
    assert users.cached(ada) == (owner, tools)
    assert built == ["ada", "bob"]


def test_the_same_subject_of_another_issuer_is_another_user():
    built: list[str] = []
    users = pool(built)
    first = users.get(User.named("ada", "https://one.example"))[1]
    second = users.get(User.named("ada", "https://two.example"))[1]
    assert first is not second and built == ["ada", "ada"]


def test_two_first_calls_of_one_user_at_once_build_once():
    release = threading.Event()
    built: list[str] = []

    def build(user: User):
        built.append(user.subject)
        release.wait(5)
        return Mailbox(user.subject).to_tool_list()

    users = UserTools(build, ["whose"])
    got: list[object] = []
    threads = [
        threading.Thread(target=lambda: got.append(users.get(User.named("ada"))[1]))
        for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    threading.Event().wait(0.2)
    assert users.cached(User.named("ada")) is None  # still being built: no waiting here
    release.set()
    for thread in threads:
        thread.join(5)
    assert built == ["ada"] and len(got) == 3 and got[0] is got[1] is got[2]


def test_at_most_max_users_are_kept_the_least_recently_used_dropped():
    built: list[str] = []
    users = pool(built, max_users=2)
    users.get(User.named("ada"))
    users.get(User.named("bob"))
    users.get(User.named("ada"))  # ada used last: bob is the one dropped
    users.get(User.named("cy"))
    assert len(users) == 2
    assert users.cached(User.named("bob")) is None
    assert users.cached(User.named("ada")) is not None
    users.get(User.named("bob"))
    assert built == ["ada", "bob", "cy", "bob"]


def test_tools_unused_past_idle_seconds_are_dropped_and_built_anew():
    clock = Clock()
    built: list[str] = []
    users = pool(built, idle_seconds=60, clock=clock)
    users.get(User.named("ada"))
    clock.now = 59
    assert users.cached(User.named("ada")) is not None  # used: idle from 59 now
    clock.now = 118
    users.get(User.named("bob"))
    assert len(users) == 2
    clock.now = 120
    assert users.cached(User.named("ada")) is None and len(users) == 1
    users.get(User.named("ada"))
    assert built == ["ada", "bob", "ada"]


def test_tools_built_under_another_version_are_built_anew():
    built: list[str] = []
    users = pool(built, version=lambda user: user.claims.get("generation"))
    first = User.named("ada", "https://id.example", claims={"generation": 0})
    owner, tools = users.get(first)
    same = User.named("ada", "https://id.example", claims={"generation": 0})
    assert users.cached(same) == (owner, tools)
    # She signed out on another replica: her token now carries the next generation.
    later = User.named("ada", "https://id.example", claims={"generation": 1})
    assert users.cached(later) is None
    new_owner, new_tools = users.get(later)
    assert new_tools is not tools and new_owner is not owner  # her old results stay behind
    assert built == ["ada", "ada"] and len(users) == 1


def test_a_failed_build_is_raised_and_tried_again_on_the_next_call():
    attempts: list[str] = []

    def build(user: User):
        attempts.append(user.subject)
        if len(attempts) == 1:
            raise RuntimeError("the token store is not reachable")
        return Mailbox(user.subject).to_tool_list()

    users = UserTools(build, ["whose"])
    with pytest.raises(RuntimeError, match="not reachable"):
        users.get(User.named("ada"))
    assert len(users) == 0
    assert users.get(User.named("ada"))[1]["whose"].call().content == "the mailbox of ada"


def test_a_user_whose_tools_differ_from_the_listed_ones_is_refused():
    users = UserTools(lambda user: Mailbox(user.subject).to_tool_list(prefix="x_"), ["whose"])
    with pytest.raises(ConfigurationError, match="must be the tools the server lists"):
        users.get(User.named("ada"))
    with pytest.raises(ConfigurationError, match="at least 1"):
        UserTools(lambda user: [], [], max_users=0)


def request_with(access: object) -> SimpleNamespace:
    """A sessionless HTTP request's context whose verified access token is ``access``."""
    scope = {"user": SimpleNamespace(access_token=access)}
    return SimpleNamespace(
        session=SimpleNamespace(),
        request=SimpleNamespace(scope=scope, headers={}),
        protocol_version="2025-11-25",
    )


def test_the_user_comes_from_the_verified_access_token_once_for_everything():
    from mcp.server.auth.provider import AccessToken

    from toolspecs.server.auth import CLIENT_ID

    callers = Callers(())
    assert callers.of(request_with(None)).user is None  # stdio, or HTTP without auth
    token = AccessToken(
        token="not-shown",
        client_id="desktop-app",
        scopes=["toolspecs:gmail.read"],
        subject="248289761001",
        claims={"iss": "https://id.example", "email": "ada@example.com"},
    )
    caller = callers.of(request_with(token))
    user = caller.user
    assert user is not None
    assert (user.subject, user.issuer, user.email) == (
        "248289761001",
        "https://id.example",
        "ada@example.com",
    )
    assert user.scopes == caller.scopes == {"toolspecs:gmail.read"}
    # The same identity names their results in a shared store and counts their calls.
    assert caller.key == caller.counted == f"user {user.key}"
    assert dict(caller.logged) == {"client": "desktop-app", "user": "248289761001"}
    assert "not-shown" not in repr(caller)  # the token itself is never kept
    clientonly = AccessToken(token="t", client_id="batch-job", scopes=[])
    assert callers.of(request_with(clientonly)).user.subject == "client:batch-job"
    shared = AccessToken(token="t", client_id=CLIENT_ID, scopes=[])
    holder = callers.of(request_with(shared))  # the static token: its one holder
    assert (holder.user, holder.key) == (None, TOKEN_HOLDER_KEY)
