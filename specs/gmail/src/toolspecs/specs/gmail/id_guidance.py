"""Where the ids a Gmail tool needs come from, naming only the tools the agent has."""

from __future__ import annotations

from toolspecs.core import ref
from toolspecs.core.prefixed import offered
from toolspecs.specs.google_base.spec import CHECK_IDS


def ids_hint() -> str:
    """Where Gmail's ids come from (a 404's ``{ids_hint}``), naming the tools offered."""
    found = []
    if offered("search_messages"):
        found.append(f"Message ids come from {ref('search_messages')} ([id: ...])")
    drafts = [ref("list_drafts")] if offered("list_drafts") else []
    if offered("create_draft"):
        drafts.append(f"from the reply of {ref('create_draft')}")
    if drafts:
        found.append(f"{'draft' if found else 'Draft'} ids from {' or '.join(drafts)}")
    return "; ".join(found) + "." if found else CHECK_IDS


def id_shown(shows: str) -> str:
    """Where an id that was not one comes from: ``search_messages lists [id: ...]``."""
    if offered("search_messages"):
        return f"{ref('search_messages')} lists {shows}"
    return "Send the id alone, as a reply showed it (e.g. '18f3a2c4d5e605d9')"


_EARLIER = "If you created or read the draft earlier, its id is in the conversation; "


def find_draft(*, earlier: bool = False) -> str:
    """Where a missing draft id comes from: ``list_drafts``, or (``earlier``) the conversation."""
    if not offered("list_drafts"):
        return f"{_EARLIER}otherwise ask the user which draft they mean."
    if earlier:
        return f"{_EARLIER}otherwise call {ref('list_drafts')}."
    return f"Call {ref('list_drafts')} to find it."
