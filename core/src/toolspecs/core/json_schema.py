"""The JSON schema generator every tool's arguments are shown with."""

from __future__ import annotations

from typing import Any

from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

__all__ = ["ToolJsonSchema"]


class ToolJsonSchema(GenerateJsonSchema):
    """The JSON schema an agent reads: no titles, keys in the order pydantic writes them."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        """No per-field titles: the property name says it."""
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        """The object schema only: no title, no ``additionalProperties``."""
        json_schema = super().model_schema(schema)
        json_schema.pop("title", None)
        json_schema.pop("additionalProperties", None)
        return json_schema

    def sort(self, value: JsonSchemaValue, parent_key: str | None = None) -> JsonSchemaValue:
        """Keep pydantic's order (type first), which reads better than sorted keys."""
        return value
