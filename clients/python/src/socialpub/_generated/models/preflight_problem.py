from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.platform_enum import PlatformEnum

T = TypeVar("T", bound="PreflightProblem")


@_attrs_define
class PreflightProblem:
    """
    Attributes:
        target_id (UUID):
        account_id (UUID):
        platform (PlatformEnum): * `x` - X
            * `instagram` - Instagram
            * `tiktok` - TikTok
            * `youtube` - YouTube
            * `facebook` - Facebook
            * `linkedin` - LinkedIn
            * `pinterest` - Pinterest
            * `threads` - Threads
            * `bluesky` - Bluesky
        code (str): ACCOUNT_DISCONNECTED, ACCOUNT_EXPIRED, TOKEN_EXPIRES, TOKEN_REFRESH_REFUSED, TOKEN_REFUSED,
            MEDIA_NOT_FOUND, or the code of a validation problem (as POST /publishes/validate names them).
        message (str):
    """

    target_id: UUID
    account_id: UUID
    platform: PlatformEnum
    code: str
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        target_id = str(self.target_id)

        account_id = str(self.account_id)

        platform = self.platform.value

        code = self.code

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "target_id": target_id,
                "account_id": account_id,
                "platform": platform,
                "code": code,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        target_id = UUID(d.pop("target_id"))

        account_id = UUID(d.pop("account_id"))

        platform = PlatformEnum(d.pop("platform"))

        code = d.pop("code")

        message = d.pop("message")

        preflight_problem = cls(
            target_id=target_id,
            account_id=account_id,
            platform=platform,
            code=code,
            message=message,
        )

        preflight_problem.additional_properties = d
        return preflight_problem

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
