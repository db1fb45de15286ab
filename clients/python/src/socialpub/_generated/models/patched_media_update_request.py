from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PatchedMediaUpdateRequest")


@_attrs_define
class PatchedMediaUpdateRequest:
    """
    Attributes:
        alt_text (str | Unset): A description of the image for screen readers, at most 1000 characters (X's limit, the
            strictest). Sent with the file to X, Bluesky, LinkedIn, Facebook (photos), Instagram and Threads (images); the
            other networks take none. Empty when none was written.
    """

    alt_text: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        alt_text = self.alt_text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if alt_text is not UNSET:
            field_dict["alt_text"] = alt_text

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        alt_text = d.pop("alt_text", UNSET)

        patched_media_update_request = cls(
            alt_text=alt_text,
        )

        patched_media_update_request.additional_properties = d
        return patched_media_update_request

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
