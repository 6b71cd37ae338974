"""Reading the LLM API's text replies: a web page in place of an answer, and suggestions."""

from __future__ import annotations

from toolspecs.loaders.wolfram_alpha.errors import MalformedReply, cut

__all__ = ["answer_text", "looks_like_markup", "suggestions"]


def answer_text(text: str, content_type: str) -> str:
    """``text``, a successful reply's stripped body; ``MalformedReply`` for markup or nothing."""
    content_type = content_type.lower()
    if "html" in content_type or "xml" in content_type or looks_like_markup(text):
        raise MalformedReply(
            "Wolfram|Alpha sent a reply that is not its answer text",
            reason=f"the reply is a web page or markup (Content-Type {cut(content_type, 60)!r})",
        )
    if not text:
        raise MalformedReply("Wolfram|Alpha sent an empty answer", reason="the reply has no text")
    return text


def looks_like_markup(text: str) -> bool:
    """Whether ``text`` starts as a web page or an XML document, not as an answer."""
    start = text[:64].lstrip().lower()
    return start.startswith(("<!doctype", "<html", "<?xml", "<head", "<body"))


def suggestions(body: str) -> list[str]:
    """The "things to try instead" of an LLM API 501 body, in Wolfram's order."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    tips = (line.lstrip("-* ").strip() for line in lines[1:])
    return [tip for tip in tips if tip and not tip.lower().startswith("things to")]
