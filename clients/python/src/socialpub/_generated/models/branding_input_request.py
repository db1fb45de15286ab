from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="BrandingInputRequest")


@_attrs_define
class BrandingInputRequest:
    """
    Attributes:
        name (str): Shown as “Connect your accounts to <name>”.
        logo_url (str | Unset): A PNG, JPEG or GIF of at most 256 KB, fetched once, now, through the service's SSRF-safe
            client and served from this service: the visitor's browser never requests it. One that cannot be fetched (a
            private address, too large, not an image) is left out: `branding.logo_shown` says.
        accent_color (str | Unset): `#rrggbb`, the page's buttons and links.
    """

    name: str
    logo_url: str | Unset = UNSET
    accent_color: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        logo_url = self.logo_url

        accent_color = self.accent_color

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
            }
        )
        if logo_url is not UNSET:
            field_dict["logo_url"] = logo_url
        if accent_color is not UNSET:
            field_dict["accent_color"] = accent_color

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        logo_url = d.pop("logo_url", UNSET)

        accent_color = d.pop("accent_color", UNSET)

        branding_input_request = cls(
            name=name,
            logo_url=logo_url,
            accent_color=accent_color,
        )

        branding_input_request.additional_properties = d
        return branding_input_request

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
