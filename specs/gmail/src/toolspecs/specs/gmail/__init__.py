"""Gmail tools: a drop-in for LlamaHub's ``GmailToolSpec`` (``llama-index-tools-google``)."""

from toolspecs.specs.gmail.base import SCOPES, GmailToolSpec
from toolspecs.specs.gmail.compose import Draft
from toolspecs.specs.gmail.draft_outputs import ApiText

__all__ = ["SCOPES", "ApiText", "Draft", "GmailToolSpec"]
