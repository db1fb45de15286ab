from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Branding")


@_attrs_define
class Branding:
    """
    Attributes:
        name (str):
        logo_url (str):
        accent_color (str):
        logo_shown (bool): Whether the logo could be fetched and is shown.
    """

    name: str
    logo_url: str
    accent_color: str
    logo_shown: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        logo_url = self.logo_url

        accent_color = self.accent_color

        logo_shown = self.logo_shown

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "logo_url": logo_url,
                "accent_color": accent_color,
                "logo_shown": logo_shown,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        logo_url = d.pop("logo_url")

        accent_color = d.pop("accent_color")

        logo_shown = d.pop("logo_shown")

        branding = cls(
            name=name,
            logo_url=logo_url,
            accent_color=accent_color,
            logo_shown=logo_shown,
        )

        branding.additional_properties = d
        return branding

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
