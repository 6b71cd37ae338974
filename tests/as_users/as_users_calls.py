"""Calling a spec's tools as an agent does (``tool.call``), counted for the matrix's tally."""

from __future__ import annotations

from typing import Any

import pytest
from as_users_modes import MODES, TALLY, Setting
from llama_index.core.tools.types import ToolOutput


class Calls:
    """A spec's tools by their bare names (an ``account`` prefixes them), called and counted.

    Args:
        spec: The spec, built as the user builds it.
        label: ``"gmail/creds"``: named in the tally.
    """

    def __init__(self, spec: Any, label: str) -> None:
        self.spec = spec
        self.label = label
        prefix = spec.default_prefix
        self.tools = {
            tool.metadata.name.removeprefix(prefix): tool
            for tool in spec.to_tool_list(spec.all_functions)
        }

    def __call__(self, name: str, **arguments: Any) -> ToolOutput:
        out = self.tools[name].call(**arguments)
        TALLY.calls += 1
        text = str(out.content)
        if "internal error" in text:
            TALLY.internal_errors.append(f"{self.label} {name}: {text[:300]}")
            pytest.fail(f"{self.label} {name} answered an internal error: {text}")
        return out

    def ok(self, name: str, **arguments: Any) -> str:
        """Call ``name``; its answer must not be an error. Returns the text."""
        out = self(name, **arguments)
        assert out.is_error is False, f"{self.label} {name}: {out.content}"
        return str(out.content)


def built(setting: Setting, mode: str, cls: type, **options: Any) -> Any:
    """The spec ``cls`` as the user of ``mode`` builds it, sent to the fake Google.

    ``client_options`` sends the API calls there; ``token_uri`` the refreshes of what is read
    from a token file or ``authorized_user_info``, which google-auth otherwise sends to
    Google's endpoint whatever the file says (a service account key's own ``token_uri``
    is used as it is: its modes do not set it, nor do ``creds=``, used as given).
    """
    arguments = MODES[mode](setting)
    if "creds" not in arguments and "service_account_key_path" not in arguments:
        arguments["token_uri"] = setting.server.token_uri
    return cls(**arguments, client_options=setting.server.client_options, **options)


def asks_the_user(text: str) -> bool:
    """Guidance that stops the agent and sends it to the person, not "fix the arguments"."""
    lowered = text.lower()
    return "tell the user" in lowered and "fix the arguments" not in lowered


def tallied(request: pytest.FixtureRequest, label: str, check: Any) -> None:
    """Run ``check``; a failed assertion is a wrong answer (or a known finding, if xfail)."""
    try:
        check()
    except AssertionError as exc:
        known = request.node.get_closest_marker("xfail") is not None
        (TALLY.xfailed if known else TALLY.wrong).append(f"{label}: {str(exc)[:300]}")
        raise
