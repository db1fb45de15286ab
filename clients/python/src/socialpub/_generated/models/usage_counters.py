from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="UsageCounters")


@_attrs_define
class UsageCounters:
    """
    Attributes:
        posts_this_month (int): Posts counted against this month's quota.
        social_accounts (int): Connected accounts that are not disabled.
        media_storage_bytes (int): Bytes of ready media and uploads in progress, counted against media_storage_gb.
    """

    posts_this_month: int
    social_accounts: int
    media_storage_bytes: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        posts_this_month = self.posts_this_month

        social_accounts = self.social_accounts

        media_storage_bytes = self.media_storage_bytes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "posts_this_month": posts_this_month,
                "social_accounts": social_accounts,
                "media_storage_bytes": media_storage_bytes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        posts_this_month = d.pop("posts_this_month")

        social_accounts = d.pop("social_accounts")

        media_storage_bytes = d.pop("media_storage_bytes")

        usage_counters = cls(
            posts_this_month=posts_this_month,
            social_accounts=social_accounts,
            media_storage_bytes=media_storage_bytes,
        )

        usage_counters.additional_properties = d
        return usage_counters

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
