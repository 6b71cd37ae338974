"""Prompts for a spec's common tasks ("summarise unread mail", "read this paper").

A host that offers prompts (MCP's ``prompts/list``) offers each one whose tools are all
offered, named as they are served; the text is the person's request in their own voice.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass, field

from toolspecs.core.bounds import count_tokens
from toolspecs.core.errors import ConfigurationError, FixArguments

__all__ = ["MAX_ARGUMENT_CHARS", "MAX_PROMPT_TOKENS", "PromptArgument", "TaskPrompt"]

MAX_PROMPT_TOKENS = 300
MAX_ARGUMENT_CHARS = 500


@dataclass(frozen=True)
class PromptArgument:
    """One blank of a prompt, filled in by the person (``default`` ``None``: required)."""

    name: str
    description: str
    default: str | None = None

    @property
    def required(self) -> bool:
        """Whether the person must fill it in."""
        return self.default is None


@dataclass(frozen=True)
class TaskPrompt:
    """A common task of a spec, as the message a person sends to start it.

    Args:
        name: Unique within the spec, e.g. ``"summarise_unread_mail"``.
        title: What a client shows, e.g. ``"Summarise unread mail"``.
        description: One sentence.
        template: ``{argument}`` for each argument, ``{function}`` for each of ``uses``.
        uses: The spec functions it needs: offered only when all are.
        arguments: Its blanks.
    """

    name: str
    title: str
    description: str
    template: str
    uses: tuple[str, ...]
    arguments: tuple[PromptArgument, ...] = field(default=())

    def __post_init__(self) -> None:
        """Every blank of the template is an argument or a used function."""
        known = {a.name for a in self.arguments} | set(self.uses)
        named = {f for _, f, _, _ in string.Formatter().parse(self.template) if f}
        if named - known or known - named:
            raise ConfigurationError(
                f"prompt {self.name!r}: the template names {sorted(named)}, "
                f"but its arguments and uses are {sorted(known)}"
            )

    def render(self, served: Mapping[str, str], given: Mapping[str, str] | None) -> str:
        """The message, with the tools' served names and the person's arguments."""
        given = dict(given or {})
        unknown = sorted(set(given) - {a.name for a in self.arguments})
        if unknown:
            raise FixArguments(
                f"The prompt {self.name} has no argument {', '.join(unknown)}.",
                "Its arguments: " + (", ".join(a.name for a in self.arguments) or "none") + ".",
            )
        values: dict[str, str] = {name: served[name] for name in self.uses}
        for argument in self.arguments:
            value = " ".join(str(given.get(argument.name) or "").split())
            if not value:
                if argument.default is None:
                    raise FixArguments(
                        f"The prompt {self.name} needs {argument.name}.",
                        f"Fill it in: {argument.description}",
                    )
                value = argument.default
            values[argument.name] = value[:MAX_ARGUMENT_CHARS]
        return self.template.format_map(values)

    def tokens(self) -> int:
        """The template's own tokens (what a spec's tests keep under MAX_PROMPT_TOKENS)."""
        return count_tokens(self.template)
