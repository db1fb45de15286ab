from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="UsageLimits")


@_attrs_define
class UsageLimits:
    """
    Attributes:
        posts_per_month (int | None): null = unlimited
        social_accounts (int | None): null = unlimited
        media_storage_gb (int | None): null = unlimited
    """

    posts_per_month: int | None
    social_accounts: int | None
    media_storage_gb: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        posts_per_month: int | None
        posts_per_month = self.posts_per_month

        social_accounts: int | None
        social_accounts = self.social_accounts

        media_storage_gb: int | None
        media_storage_gb = self.media_storage_gb

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "posts_per_month": posts_per_month,
                "social_accounts": social_accounts,
                "media_storage_gb": media_storage_gb,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_posts_per_month(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        posts_per_month = _parse_posts_per_month(d.pop("posts_per_month"))

        def _parse_social_accounts(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        social_accounts = _parse_social_accounts(d.pop("social_accounts"))

        def _parse_media_storage_gb(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        media_storage_gb = _parse_media_storage_gb(d.pop("media_storage_gb"))

        usage_limits = cls(
            posts_per_month=posts_per_month,
            social_accounts=social_accounts,
            media_storage_gb=media_storage_gb,
        )

        usage_limits.additional_properties = d
        return usage_limits

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
