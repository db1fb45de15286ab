from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.connect_link_create_platforms_enum import ConnectLinkCreatePlatformsEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.branding_input_request import BrandingInputRequest


T = TypeVar("T", bound="ConnectLinkCreateRequest")


@_attrs_define
class ConnectLinkCreateRequest:
    """
    Attributes:
        redirect_url (str): Where the browser goes after each connection or a cancel, with `connect_link`, `status`
            (`connected` or `cancelled`) and `accounts` (comma-separated ids) added to its query. https only; plain http
            only to localhost, in development; no credentials in it.
        platforms (list[ConnectLinkCreatePlatformsEnum] | Unset): The platforms the page offers, in this order. Default:
            every platform this service can connect now.
        expires_in (int | Unset): Seconds the link stays usable, from now. Default: 3600.
        branding (BrandingInputRequest | Unset):
    """

    redirect_url: str
    platforms: list[ConnectLinkCreatePlatformsEnum] | Unset = UNSET
    expires_in: int | Unset = 3600
    branding: BrandingInputRequest | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        redirect_url = self.redirect_url

        platforms: list[str] | Unset = UNSET
        if not isinstance(self.platforms, Unset):
            platforms = []
            for platforms_item_data in self.platforms:
                platforms_item = platforms_item_data.value
                platforms.append(platforms_item)

        expires_in = self.expires_in

        branding: dict[str, Any] | Unset = UNSET
        if not isinstance(self.branding, Unset):
            branding = self.branding.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "redirect_url": redirect_url,
            }
        )
        if platforms is not UNSET:
            field_dict["platforms"] = platforms
        if expires_in is not UNSET:
            field_dict["expires_in"] = expires_in
        if branding is not UNSET:
            field_dict["branding"] = branding

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.branding_input_request import BrandingInputRequest

        d = dict(src_dict)
        redirect_url = d.pop("redirect_url")

        _platforms = d.pop("platforms", UNSET)
        platforms: list[ConnectLinkCreatePlatformsEnum] | Unset = UNSET
        if _platforms is not UNSET:
            platforms = []
            for platforms_item_data in _platforms:
                platforms_item = ConnectLinkCreatePlatformsEnum(platforms_item_data)

                platforms.append(platforms_item)

        expires_in = d.pop("expires_in", UNSET)

        _branding = d.pop("branding", UNSET)
        branding: BrandingInputRequest | Unset
        if isinstance(_branding, Unset):
            branding = UNSET
        else:
            branding = BrandingInputRequest.from_dict(_branding)

        connect_link_create_request = cls(
            redirect_url=redirect_url,
            platforms=platforms,
            expires_in=expires_in,
            branding=branding,
        )

        connect_link_create_request.additional_properties = d
        return connect_link_create_request

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
