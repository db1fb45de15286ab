from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ThreadItemInputRequest")


@_attrs_define
class ThreadItemInputRequest:
    """
    Attributes:
        content (str | Unset):  Default: ''.
        media_ids (list[UUID] | Unset):
    """

    content: str | Unset = ""
    media_ids: list[UUID] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        media_ids: list[str] | Unset = UNSET
        if not isinstance(self.media_ids, Unset):
            media_ids = []
            for media_ids_item_data in self.media_ids:
                media_ids_item = str(media_ids_item_data)
                media_ids.append(media_ids_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if content is not UNSET:
            field_dict["content"] = content
        if media_ids is not UNSET:
            field_dict["media_ids"] = media_ids

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        content = d.pop("content", UNSET)

        _media_ids = d.pop("media_ids", UNSET)
        media_ids: list[UUID] | Unset = UNSET
        if _media_ids is not UNSET:
            media_ids = []
            for media_ids_item_data in _media_ids:
                media_ids_item = UUID(media_ids_item_data)

                media_ids.append(media_ids_item)

        thread_item_input_request = cls(
            content=content,
            media_ids=media_ids,
        )

        thread_item_input_request.additional_properties = d
        return thread_item_input_request

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
