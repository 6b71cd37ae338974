"""Gmail tools: a drop-in for LlamaHub's ``GmailToolSpec`` (``llama-index-tools-google``)."""

from toolspecs.specs.gmail.base import SCOPES, ApiText, GmailToolSpec
from toolspecs.specs.gmail.compose import Draft

__all__ = ["SCOPES", "ApiText", "Draft", "GmailToolSpec"]
