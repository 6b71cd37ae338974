"""The scripted model: chat completions on 127.0.0.1 that play each task's script.

No model is reachable from the machines that test this package, so the harness is
tested against this one: it speaks the chat-completions API (tool calls, streaming,
usage) through :class:`~toolspecs.agents.testing.FakeOpenAI`, and answers each
conversation from the script of its run's task: the task's :attr:`~Task.solution`, or
one of its :attr:`~Task.mistakes`. ``toolspecs eval --model scripted`` runs it too, so
that the harness, its report and its chart can be seen without a key.

A script is a list of turns, one per model reply: the final answer (text), tool calls
(``[(name, arguments), ...]``), or a function of the :class:`Conversation` so far
returning either, for a reply that depends on the world (a date) or on what a tool
answered (an id). A script names a tool as its spec does (``create_draft``); where the
task offers it prefixed (``gmail_create_draft``, when two specs share a name), the
offered name is sent. A conversation is matched to its run by the ``X-Toolspecs-Run`` header
its client sends; the turn is the number of replies the conversation already holds. A
conversation past its script's end is answered "I could not finish." (and fails).

The usage it reports is an estimate, a token per four characters of the request and of
the reply: enough for the report's columns to be read, not a count of any tokenizer.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx

from toolspecs.agents.testing import FakeOpenAI, Reply
from toolspecs.evals.task import Conversation, Script

if TYPE_CHECKING:
    from toolspecs.evals.task import Task
    from toolspecs.evals.world import World

__all__ = ["RUN_HEADER", "ScriptedModel"]

RUN_HEADER = "X-Toolspecs-Run"
"""The header that names a conversation's run (sent by the harness's clients)."""

GIVE_UP = "I could not finish."


class ScriptedModel(FakeOpenAI):
    """Chat completions answering each run's conversation from its task's script.

    Args:
        choose: The script of a task (default: its solution).
    """

    def __init__(self, choose: Callable[[Task], Script] | None = None) -> None:
        super().__init__()
        self.choose = choose or (lambda task: task.solution)
        self._runs: dict[str, tuple[Task, World]] = {}
        self._lock = threading.Lock()

    def begin(self, run: str, task: Task, world: World) -> None:
        """Play ``task``'s script in ``world`` for the conversation of run ``run``."""
        with self._lock:
            self._runs[run] = (task, world)

    def end(self, run: str) -> None:
        """Forget run ``run``."""
        with self._lock:
            self._runs.pop(run, None)

    def turns_left(self, body: dict[str, Any], number: int, headers: httpx.Headers) -> bool:
        """Always: a conversation past its script gives up (:meth:`reply_to`)."""
        return True  # a conversation past its script gives up (reply_to), as a model might

    def reply_to(self, body: dict[str, Any], number: int, headers: httpx.Headers) -> Reply:
        """The turn of the run's script that the conversation has come to."""
        with self._lock:
            found = self._runs.get(headers.get(RUN_HEADER, ""))
        if found is None:
            return "I was not told which task this is."
        task, world = found
        script = self.choose(task)
        turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        if turn >= len(script):
            return GIVE_UP
        step = script[turn]
        talk = Conversation(world, body)
        try:
            reply = step(talk) if callable(step) else step
        except LookupError:
            return GIVE_UP  # what it needed was not in the tools' answers
        if isinstance(reply, str):
            return reply
        # A script names tools as their specs do; a task of several specs offers them
        # prefixed when two share a name (gmail_load_data): the offered name is sent.
        return [(talk.tool(name), arguments) for name, arguments in reply]

    def usage(self, body: dict[str, Any], reply: Reply) -> dict[str, int]:
        """An estimate: a token per four characters (see the module)."""
        asked = len(json.dumps(body.get("messages", []))) + len(json.dumps(body.get("tools", [])))
        said = len(reply) if isinstance(reply, str) else len(json.dumps(list(reply)))
        prompt, completion = asked // 4, max(1, said // 4)
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
