from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="UnpublishRequest")


@_attrs_define
class UnpublishRequest:
    """
    Attributes:
        target_ids (list[UUID] | Unset): The targets to take down; omit to take down every published target of the
            publish.
    """

    target_ids: list[UUID] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        target_ids: list[str] | Unset = UNSET
        if not isinstance(self.target_ids, Unset):
            target_ids = []
            for target_ids_item_data in self.target_ids:
                target_ids_item = str(target_ids_item_data)
                target_ids.append(target_ids_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if target_ids is not UNSET:
            field_dict["target_ids"] = target_ids

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        _target_ids = d.pop("target_ids", UNSET)
        target_ids: list[UUID] | Unset = UNSET
        if _target_ids is not UNSET:
            target_ids = []
            for target_ids_item_data in _target_ids:
                target_ids_item = UUID(target_ids_item_data)

                target_ids.append(target_ids_item)

        unpublish_request = cls(
            target_ids=target_ids,
        )

        unpublish_request.additional_properties = d
        return unpublish_request

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
