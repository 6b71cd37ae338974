"""A session as users live it: calls side by side, a token revoked mid-batch, the CLI.

The same wire as the matrix (``FakeGoogleServer``): token renewals are counted at the
fake token endpoint, so "one refresh" is what Google saw, not what a mock recorded.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

from as_users_calls import Calls, built
from as_users_modes import GRANTED, PAST, Setting

from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec


def renewals(setting: Setting) -> int:
    return sum(1 for method, url in setting.oauth.requests if url == setting.server.token_uri)


def test_expired_credentials_are_renewed_once_for_calls_side_by_side(setting):
    gmail = Calls(built(setting, "creds_expired", GmailToolSpec), "gmail/creds_expired")
    calendar = Calls(
        built(setting, "creds_expired", GoogleCalendarToolSpec), "calendar/creds_expired"
    )
    with ThreadPoolExecutor(4) as pool:
        texts = list(
            pool.map(
                lambda one: one(),
                [
                    lambda: gmail.ok("search_messages", query="from:ada@example.com"),
                    lambda: gmail.ok("search_messages", query="lunch"),
                    lambda: gmail.ok("list_drafts"),
                    lambda: gmail.ok("list_labels"),
                ],
            )
        )
    assert "Subject: Lunch on Tuesday?" in texts[0] and "Receipts" in texts[3]
    assert renewals(setting) == 1  # four calls in four threads: one refresh
    with ThreadPoolExecutor(3) as pool:
        found = list(
            pool.map(
                lambda query: calendar.ok(
                    "load_data", query=query, start_date="2026-11-23", end_date="2026-11-28"
                ),
                ["lunch", "review", "standup"],
            )
        )
    assert "evtlunch" in found[0] and "evtreview" in found[1] and "evtstandup_" in found[2]
    assert renewals(setting) == 2  # Calendar's credentials are their own: one refresh more


def test_a_token_revoked_in_the_middle_of_a_batch_is_renewed_and_each_call_answered(setting):
    run = Calls(built(setting, "creds", GmailToolSpec), "gmail/creds")
    assert "Receipts" in run.ok("list_labels")  # the session works with its token
    gate = setting.server.gmail.gate
    assert gate is not None
    refused: list[str] = []

    def revoke_at_the_first_batched_get(method, path, headers):
        # Google stops taking the token between the search's listing and its batch.
        if path.startswith("/users/me/messages/") and not refused:
            refused.append(headers["authorization"])
            setting.oauth.refuse("ya29.valid")
        return gate(method, path, headers)

    setting.server.gmail.gate = revoke_at_the_first_batched_get
    text = run.ok("search_messages", query="from:ada@example.com")
    assert len(text.split("\n\n")) == 3 and "Subject: Lunch on Tuesday?" in text
    assert refused == ["Bearer ya29.valid"] and renewals(setting) == 1
    batches = [r for r in setting.server.gmail.requests if r.parts]
    assert len(batches) == 2  # the batch, then its refused calls again with the new token
    assert len(batches[0].parts) == 3 and len(batches[1].parts) == 3


def test_the_command_line_builds_the_spec_a_user_names(setting):
    from toolspecs.cli.assemble import ServeSettings, build_specs

    token = setting.folder / "token.json"
    token.write_text(json.dumps(setting.token_info("ya29.expired", PAST, GRANTED)))
    options = [
        f"gmail.token_path={token}",
        f"gmail.token_uri={setting.server.token_uri}",
        "gmail.client_options=" + json.dumps(setting.server.client_options),
    ]
    (spec,) = build_specs(ServeSettings(names=["gmail"], options=options)).values()
    out = spec.call_tool("search_messages", query="from:ada@example.com")
    assert out.is_error is False, out.content
    assert "Subject: Lunch on Tuesday?" in str(out.content) and renewals(setting) == 1
