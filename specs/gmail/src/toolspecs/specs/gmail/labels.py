"""Labels as agents name them: ids, the user's names, and what people do (``archive``).

A word in ``remove`` is undone (``remove=["archive"]`` puts the mail back in the inbox).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolspecs.core import AskUser, FixArguments, fence, ref
from toolspecs.core.prefixed import offered
from toolspecs.loaders.google import GmailReader, GoogleApiError
from toolspecs.loaders.google.gmail import MODIFY_LIMIT
from toolspecs.specs.google_base.spec import SCOPE_REASONS, google_reason

# word -> (label id, +1: on when the word is in add, -1: off when the word is in add)
WORDS: dict[str, tuple[str, int]] = {
    "archive": ("INBOX", -1),
    "archived": ("INBOX", -1),
    "unarchive": ("INBOX", 1),
    "move to inbox": ("INBOX", 1),
    "inbox": ("INBOX", 1),
    "read": ("UNREAD", -1),
    "mark read": ("UNREAD", -1),
    "mark as read": ("UNREAD", -1),
    "seen": ("UNREAD", -1),
    "unread": ("UNREAD", 1),
    "mark unread": ("UNREAD", 1),
    "mark as unread": ("UNREAD", 1),
    "star": ("STARRED", 1),
    "starred": ("STARRED", 1),
    "unstar": ("STARRED", -1),
    "important": ("IMPORTANT", 1),
    "mark important": ("IMPORTANT", 1),
    "mark as important": ("IMPORTANT", 1),
    "not important": ("IMPORTANT", -1),
    "unimportant": ("IMPORTANT", -1),
    "mark not important": ("IMPORTANT", -1),
}
SYSTEM = frozenset(
    {"INBOX", "UNREAD", "STARRED", "IMPORTANT", "SPAM", "TRASH", "SENT", "DRAFT", "CHAT"}
    | {f"CATEGORY_{c}" for c in ("PERSONAL", "SOCIAL", "PROMOTIONS", "UPDATES", "FORUMS")}
)
# System labels this tool does not put on or take off, and why.
REFUSED = {
    "TRASH": "moving mail to the trash (or out of it) is not offered here",
    "SPAM": "reporting spam (or taking mail out of spam) is not offered here",
    "SENT": "Gmail sets SENT itself",
    "DRAFT": "Gmail sets DRAFT itself",
    "CHAT": "Gmail sets CHAT itself",
}
# What a change means to a person, for the reply.
EFFECTS = {
    ("INBOX", -1): "archived",
    ("INBOX", 1): "moved to the inbox",
    ("UNREAD", -1): "marked read",
    ("UNREAD", 1): "marked unread",
    ("STARRED", 1): "starred",
    ("STARRED", -1): "unstarred",
    ("IMPORTANT", 1): "marked important",
    ("IMPORTANT", -1): "marked not important",
}


def _word(text: str) -> str:
    return " ".join(text.lower().replace("_", " ").replace("-", " ").split())


@dataclass(frozen=True)
class Change:
    """One label put on (``sign`` 1) or taken off (-1), named as Gmail and the user name it."""

    label_id: str
    name: str
    sign: int

    def effect(self) -> str:
        """``archived``, ``label «Receipts» added``..."""
        known = EFFECTS.get((self.label_id, self.sign))
        if known:
            return known
        verb = "added" if self.sign > 0 else "removed"
        return f"label {fence.quote(self.name, 100)} {verb}"


def resolve(
    add: list[str],
    remove: list[str],
    labels: Callable[[], list[dict[str, Any]]],
    *,
    list_tool: bool = True,
) -> list[Change]:
    """The changes ``add`` and ``remove`` ask for (``labels()`` called only when needed)."""
    known: list[dict[str, Any]] | None = None
    changes: dict[str, Change] = {}
    for entries, sign in ((add, 1), (remove, -1)):
        for entry in entries:
            text = str(entry).strip()
            if not text:
                continue
            word = WORDS.get(_word(text))
            if word is not None:
                label_id, name, direction = word[0], word[0], word[1] * sign
            elif text.upper() in SYSTEM:
                label_id, name, direction = text.upper(), text.upper(), sign
            else:
                if known is None:
                    known = labels()
                label_id, name = _user_label(text, known, list_tool)
                direction = sign
            if label_id in REFUSED:
                raise AskUser(
                    f"{ref('modify_labels')} does not change {label_id}: {REFUSED[label_id]}.",
                    "Do not retry: tell the user they can do it in Gmail.",
                )
            previous = changes.get(label_id)
            if previous is not None and previous.sign != direction:
                raise FixArguments(
                    f"{name} is both put on and taken off.",
                    "Name each label once, in add or in remove.",
                )
            changes[label_id] = Change(label_id, name, direction)
    return list(changes.values())


def _user_label(text: str, known: list[dict[str, Any]], list_tool: bool) -> tuple[str, str]:
    folded = text.casefold()
    for label in known:
        label_id, name = str(label.get("id", "")), str(label.get("name", ""))
        if folded in (label_id.casefold(), name.casefold()):
            return label_id, name
    names = [str(label.get("name", "")) for label in known if label.get("type") == "user"]
    by_fold = {name.casefold(): name for name in names}
    import difflib  # here, for the hint only: not loaded when the spec is imported

    close = difflib.get_close_matches(folded, list(by_fold), n=5, cutoff=0.5)
    close += [n for n in by_fold if folded in n and n not in close][: 5 - len(close)]
    hint = (
        f"Close matches: {', '.join(fence.quote(by_fold[c], 100) for c in close)}. "
        if close
        else ""
    )
    where = f"from {ref('list_labels')}" if list_tool else "of a label the user has"
    raise FixArguments(
        f"There is no label {fence.quote(text, 100)}.",
        f"{hint}Use a name or id {where}, "
        "or one of: archive, mark read, mark unread, star, unstar, important.",
    )


def modify(
    client: GmailReader, ids: list[str], add: list[str], remove: list[str], list_tool: bool = True
) -> list[Change]:
    """Put the labels ``add`` names on messages ``ids`` and take ``remove``'s off; the changes."""
    if not ids:
        raise FixArguments(
            "You did not provide message_ids.",
            f"Message ids come from {ref('search_messages')} ([id: ...])."
            if offered("search_messages")
            else "Send the ids of the messages to change, e.g. ['18f3a2c4d5e605d9'].",
        )
    if len(ids) > MODIFY_LIMIT:
        raise FixArguments(
            f"{ref('modify_labels')} takes at most {MODIFY_LIMIT} message ids a call (Google's "
            f"limit); you sent {len(ids)}.",
            f"Send them in calls of at most {MODIFY_LIMIT}.",
        )
    changes = resolve(add, remove, client.labels, list_tool=list_tool)
    if not changes:
        raise FixArguments(
            f"{ref('modify_labels')} was given no label to put on or take off.",
            "Send add or remove, e.g. add=['archive'] or remove=['UNREAD'].",
        )
    try:
        client.modify_labels(
            ids,
            [c.label_id for c in changes if c.sign > 0],
            [c.label_id for c in changes if c.sign < 0],
        )
    except GoogleApiError as exc:
        if exc.status == 403 and google_reason(exc) in SCOPE_REASONS:
            raise AskUser(
                "Changing labels needs Gmail's modify permission, which this agent's "
                "sign-in was not given.",
                "Do not retry: tell the user to construct GmailToolSpec(allow_modify=True) "
                "and authorize again.",
            ) from None
        raise
    return changes
