"""``GoogleToolSpec``: what the Google specs share above their reader.

A subclass sets ``reader`` (a :class:`~toolspecs.loaders.google.service.GoogleApiReader`,
holding ``auth``) in its constructor, and ``ids_hint``: what a 404 should tell the agent
about where valid ids come from.
"""

from __future__ import annotations

from typing import Any, ClassVar

from toolspecs.core import ToolGuidance, ToolSpec
from toolspecs.loaders.google.auth import GoogleAuth
from toolspecs.loaders.google.errors import google_guidance
from toolspecs.loaders.google.service import GoogleApiReader


class GoogleToolSpec(ToolSpec):
    """Base of the Google specs: the API client, authorization, Google's failures as guidance."""

    ids_hint: ClassVar[str] = ""
    reader: GoogleApiReader

    @property
    def auth(self) -> GoogleAuth:
        """How this spec gets its credentials."""
        return self.reader.auth

    @property
    def service(self) -> Any:
        """The API client (built, and authorized, on first use)."""
        return self.reader.service

    def authorize(self) -> str:
        """Run the authorization now (e.g. once on a new machine), instead of on first call."""
        self.auth.credentials()
        return f"Authorized; the token is in {self.auth.token_path}."

    def guidance_for(self, exc: BaseException) -> ToolGuidance | None:
        """Google's failures as guidance (a 404 says where ids come from)."""
        return google_guidance(exc, self.service_name, self.auth.token_path, self.ids_hint)
