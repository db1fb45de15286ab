from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.platform_enum import PlatformEnum

T = TypeVar("T", bound="LinkAccount")


@_attrs_define
class LinkAccount:
    """
    Attributes:
        id (UUID):
        platform (PlatformEnum): * `x` - X
            * `instagram` - Instagram
            * `tiktok` - TikTok
            * `youtube` - YouTube
            * `facebook` - Facebook
            * `linkedin` - LinkedIn
            * `pinterest` - Pinterest
            * `threads` - Threads
            * `bluesky` - Bluesky
        handle (str):
        display_name (str):
        status (str): The account's status now (`active`, `expired`, `disconnected`...).
    """

    id: UUID
    platform: PlatformEnum
    handle: str
    display_name: str
    status: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        platform = self.platform.value

        handle = self.handle

        display_name = self.display_name

        status = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "platform": platform,
                "handle": handle,
                "display_name": display_name,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        platform = PlatformEnum(d.pop("platform"))

        handle = d.pop("handle")

        display_name = d.pop("display_name")

        status = d.pop("status")

        link_account = cls(
            id=id,
            platform=platform,
            handle=handle,
            display_name=display_name,
            status=status,
        )

        link_account.additional_properties = d
        return link_account

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
