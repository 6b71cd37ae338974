"""Gmail drafts: every ``users.drafts`` request, as plain data in and out."""

from __future__ import annotations

import base64
from typing import Any

from toolspecs.loaders.google.errors import GoogleResponseError
from toolspecs.loaders.google.service import GoogleApiReader


class GmailDrafts:
    """The drafts of the signed-in mailbox, through ``client`` (its deadline and retries)."""

    def __init__(self, client: GoogleApiReader) -> None:
        self.client = client

    def _drafts(self) -> Any:
        return self.client.service.users().drafts()

    def list(self, max_results: int = 10) -> list[dict[str, Any]]:
        """``{"id", "message": {"id", "threadId"}}`` of the newest ``max_results`` drafts."""
        answer = self.client.execute(self._drafts().list(userId="me", maxResults=max_results))
        return list(answer.get("drafts", []))

    def get(self, draft_id: str) -> dict[str, Any]:
        """A draft with its message in ``format=raw``."""
        request = self._drafts().get(userId="me", id=draft_id, format="raw")
        resource = self.client.execute(request)
        if not resource.get("id"):
            raise GoogleResponseError("Google's answer about the draft names no draft id")
        return resource

    def create(self, mime: bytes, thread_id: str | None = None) -> dict[str, Any]:
        """A new draft of ``mime`` (in ``thread_id`` when it replies): Gmail's ``Draft``."""
        body = _draft_body(mime, thread_id)
        return self.client.execute(self._drafts().create(userId="me", body=body))

    def update(self, draft_id: str, mime: bytes, thread_id: str | None = None) -> dict[str, Any]:
        """Draft ``draft_id`` replaced by ``mime`` (in ``thread_id``): Gmail's ``Draft``."""
        body = {"id": draft_id, **_draft_body(mime, thread_id)}
        return self.client.execute(self._drafts().update(userId="me", id=draft_id, body=body))

    def send(self, draft_id: str) -> dict[str, Any]:
        """Send draft ``draft_id``: the sent ``Message`` (``id``, ``threadId``, ``labelIds``)."""
        return self.client.execute(self._drafts().send(userId="me", body={"id": draft_id}))


def _draft_body(mime: bytes, thread_id: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"raw": base64.urlsafe_b64encode(mime).decode("ascii")}
    if thread_id:
        message["threadId"] = thread_id
    return {"message": message}
