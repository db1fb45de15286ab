"""Request validation through DRF serializers, leaving nothing for the cyclic garbage collector."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


def validated(serializer: serializers.BaseSerializer) -> Any:  # type: ignore[type-arg]
    """The serializer's validated data; a 400 (ValidationError) when the input is invalid.

    A bound DRF field tree is a web of cycles (each field points at its parent, each parent
    at its fields), which only the cyclic garbage collector frees, and its full collections
    stop a worker's every thread. Once the data (or the errors) are out, the tree is unbound,
    so it is freed with the serializer."""
    try:
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data
    finally:
        _unbind(serializer)


def _unbind(field: serializers.Field) -> None:  # type: ignore[type-arg]
    state = vars(field)
    state.pop("parent", None)
    fields = state.pop("fields", None)  # Serializer.fields, once built
    if fields is not None:
        for child in fields.values():
            _unbind(child)
    child = state.get("child")  # ListSerializer, ListField, DictField
    if child is not None:
        _unbind(child)


def represented(serializer: serializers.BaseSerializer) -> Any:  # type: ignore[type-arg]
    """The serializer's representation of its instance, its field tree unbound (see validated)."""
    data = serializer.data
    _unbind(serializer)
    return data
