"""Serializer fields shared by the API's query and body serializers."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers


class CommaSeparatedChoiceField(serializers.Field):  # type: ignore[type-arg]
    """`?platform=x,instagram` as a list of allowed names; an unknown name is a 400 naming it."""

    def __init__(self, *, choices: Iterable[str], **kwargs: Any) -> None:
        self.choices = tuple(choices)
        kwargs.setdefault("help_text", "Comma-separated, any of: " + ", ".join(f"`{c}`" for c in self.choices) + ".")
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> list[str]:
        if not isinstance(data, str):
            raise serializers.ValidationError("Expected a comma-separated string.")
        values = [part.strip() for part in data.split(",") if part.strip()]
        if not values:
            raise serializers.ValidationError("Give at least one value.")
        unknown = [v for v in values if v not in self.choices]
        if unknown:
            raise serializers.ValidationError(
                f"Unknown value(s): {', '.join(unknown)}. Allowed: {', '.join(self.choices)}."
            )
        return list(dict.fromkeys(values))

    def to_representation(self, value: Any) -> str:
        return ",".join(value)


class CommaSeparatedChoiceFieldSchema(OpenApiSerializerFieldExtension):  # type: ignore[no-untyped-call]
    """Documents the exact accepted form: one or more of the choices, comma-separated."""

    target_class = CommaSeparatedChoiceField

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        choices = self.target.choices
        one = "|".join(re.escape(choice) for choice in choices)
        return {"type": "string", "pattern": f"^({one})(,({one}))*$", "example": ",".join(choices[:2])}
