"""The guarded tool: one honest object that every host can use.

Every way in follows one path: ``fn``/``async_fn`` return the agent's text or raise
``ToolGuidance``; ``call``/``acall`` never raise (``raw_output`` keeps the function's own
value, the Documents for ``LoadAndSearchToolSpec``).
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Annotated, Any

from llama_index.core.tools.function_tool import FunctionTool
from llama_index.core.tools.types import ToolMetadata, ToolOutput
from pydantic import WithJsonSchema

from toolspecs.core.policy import Marks
from toolspecs.core.runner import Guard

__all__ = ["GuardedTool", "names_used_twice"]


class GuardedTool(FunctionTool):
    """A ``FunctionTool`` whose every entry point goes through its :class:`Guard`."""

    def __init__(self, guard: Guard, metadata: ToolMetadata, spec: Any = None) -> None:
        self.guard = guard
        self.spec = spec  # the ToolSpec that made it: the guard itself never reads it
        self.marks: Marks = guard.options.marks
        self._described: tuple[Callable[..., str], Callable[..., Any]] | None = None

        def run(*args: Any, **kwargs: Any) -> str:
            return guard.run(args, kwargs)[1]

        async def arun(*args: Any, **kwargs: Any) -> str:
            return (await guard.arun(args, kwargs))[1]

        super().__init__(fn=run, async_fn=arun, metadata=metadata)

    @property
    def fn(self) -> Callable[..., str]:
        """The agent's text for ``**kwargs``; raises ``ToolGuidance``. Named, described, typed."""
        return self._describe()[0]

    @property
    def async_fn(self) -> Callable[..., Any]:
        """``fn``, awaitable (in a worker thread, unless declared ``blocking=False``)."""
        return self._describe()[1]

    def _describe(self) -> tuple[Callable[..., str], Callable[..., Any]]:
        # Built on first use: the signature needs the JSON schema, which costs a few ms.
        # New functions, so that llama-index's own call path keeps reading the plain ones.
        if self._described is None:
            guard = self.guard

            def fn(*args: Any, **kwargs: Any) -> str:
                return guard.run(args, kwargs)[1]

            async def async_fn(*args: Any, **kwargs: Any) -> str:
                return (await guard.arun(args, kwargs))[1]

            signature = _signature(self.metadata)
            _name(fn, self.metadata, signature)
            _name(async_fn, self.metadata, signature)
            self._described = (fn, async_fn)
        return self._described

    def __call__(self, /, *args: Any, **kwargs: Any) -> ToolOutput:
        """Same as :meth:`call` (``self`` is positional-only: an argument may be named so)."""
        return self.call(*args, **kwargs)

    def call(self, /, *args: Any, **kwargs: Any) -> ToolOutput:
        """Call the tool; guidance comes back as a ``ToolOutput`` with ``is_error=True``."""
        return self.guard.output(args, kwargs)

    async def acall(self, /, *args: Any, **kwargs: Any) -> ToolOutput:
        """Call the tool: an async function is awaited, a sync one runs in a worker thread."""
        return await self.guard.aoutput(args, kwargs)


def _signature(metadata: ToolMetadata) -> inspect.Signature:
    model = metadata.fn_schema
    if model is None:
        return inspect.Signature()
    properties = model.model_json_schema().get("properties", {})
    params = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if info.is_required() else info.default,
            annotation=Annotated[Any, WithJsonSchema(properties.get(name, {}))],
        )
        for name, info in model.model_fields.items()
    ]
    return inspect.Signature(params, return_annotation=str)


def _name(fn: Callable[..., Any], metadata: ToolMetadata, signature: inspect.Signature) -> None:
    fn.__name__ = fn.__qualname__ = metadata.get_name()
    fn.__doc__ = metadata.description
    fn.__signature__ = signature  # type: ignore[attr-defined]


def names_used_twice(names: Iterable[str]) -> list[str]:
    """The tool names that occur more than once, sorted (a model could call only one)."""
    return sorted(name for name, count in Counter(names).items() if count > 1)
