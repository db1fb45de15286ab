from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="AccountCapabilitiesFormatsImages")


@_attrs_define
class AccountCapabilitiesFormatsImages:
    """
    Attributes:
        max_width (int | None | Unset):
        max_height (int | None | Unset):
        max_pixels (int | None | Unset):
    """

    max_width: int | None | Unset = UNSET
    max_height: int | None | Unset = UNSET
    max_pixels: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        max_width: int | None | Unset
        if isinstance(self.max_width, Unset):
            max_width = UNSET
        else:
            max_width = self.max_width

        max_height: int | None | Unset
        if isinstance(self.max_height, Unset):
            max_height = UNSET
        else:
            max_height = self.max_height

        max_pixels: int | None | Unset
        if isinstance(self.max_pixels, Unset):
            max_pixels = UNSET
        else:
            max_pixels = self.max_pixels

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if max_width is not UNSET:
            field_dict["max_width"] = max_width
        if max_height is not UNSET:
            field_dict["max_height"] = max_height
        if max_pixels is not UNSET:
            field_dict["max_pixels"] = max_pixels

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_max_width(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_width = _parse_max_width(d.pop("max_width", UNSET))

        def _parse_max_height(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_height = _parse_max_height(d.pop("max_height", UNSET))

        def _parse_max_pixels(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_pixels = _parse_max_pixels(d.pop("max_pixels", UNSET))

        account_capabilities_formats_images = cls(
            max_width=max_width,
            max_height=max_height,
            max_pixels=max_pixels,
        )

        account_capabilities_formats_images.additional_properties = d
        return account_capabilities_formats_images

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
