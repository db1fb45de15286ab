from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.account_status_enum import AccountStatusEnum
from ..models.platform_enum import PlatformEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.account_capabilities_object import AccountCapabilitiesObject


T = TypeVar("T", bound="Account")


@_attrs_define
class Account:
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
        external_id (str): The account's id on the platform.
        capabilities (AccountCapabilitiesObject): What a post to this account may contain: text, images, videos, title,
            with limits.
        created_at (datetime.datetime):
        updated_at (datetime.datetime):
        status (AccountStatusEnum | Unset): * `active` - Active
            * `expired` - Expired (re-authorize in the dashboard)
            * `disabled` - Disabled
            * `disconnected` - Disconnected
        status_reason (str | Unset):
        handle (str | Unset):
        display_name (str | Unset):
        avatar_url (str | Unset):
        sandbox (bool | Unset): Requests for this account go to the local platform sandbox, not the real platform.
        token_expires_at (datetime.datetime | None | Unset):
    """

    id: UUID
    platform: PlatformEnum
    external_id: str
    capabilities: AccountCapabilitiesObject
    created_at: datetime.datetime
    updated_at: datetime.datetime
    status: AccountStatusEnum | Unset = UNSET
    status_reason: str | Unset = UNSET
    handle: str | Unset = UNSET
    display_name: str | Unset = UNSET
    avatar_url: str | Unset = UNSET
    sandbox: bool | Unset = UNSET
    token_expires_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        platform = self.platform.value

        external_id = self.external_id

        capabilities = self.capabilities.to_dict()

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        status_reason = self.status_reason

        handle = self.handle

        display_name = self.display_name

        avatar_url: str | Unset
        if isinstance(self.avatar_url, Unset):
            avatar_url = UNSET
        else:
            avatar_url = self.avatar_url

        sandbox = self.sandbox

        token_expires_at: None | str | Unset
        if isinstance(self.token_expires_at, Unset):
            token_expires_at = UNSET
        elif isinstance(self.token_expires_at, datetime.datetime):
            token_expires_at = self.token_expires_at.isoformat()
        else:
            token_expires_at = self.token_expires_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "platform": platform,
                "external_id": external_id,
                "capabilities": capabilities,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status
        if status_reason is not UNSET:
            field_dict["status_reason"] = status_reason
        if handle is not UNSET:
            field_dict["handle"] = handle
        if display_name is not UNSET:
            field_dict["display_name"] = display_name
        if avatar_url is not UNSET:
            field_dict["avatar_url"] = avatar_url
        if sandbox is not UNSET:
            field_dict["sandbox"] = sandbox
        if token_expires_at is not UNSET:
            field_dict["token_expires_at"] = token_expires_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.account_capabilities_object import AccountCapabilitiesObject

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        platform = PlatformEnum(d.pop("platform"))

        external_id = d.pop("external_id")

        capabilities = AccountCapabilitiesObject.from_dict(d.pop("capabilities"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        _status = d.pop("status", UNSET)
        status: AccountStatusEnum | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = AccountStatusEnum(_status)

        status_reason = d.pop("status_reason", UNSET)

        handle = d.pop("handle", UNSET)

        display_name = d.pop("display_name", UNSET)

        def _parse_avatar_url(data: object) -> str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(str | Unset, data)

        avatar_url = _parse_avatar_url(d.pop("avatar_url", UNSET))

        sandbox = d.pop("sandbox", UNSET)

        def _parse_token_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                token_expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return token_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        token_expires_at = _parse_token_expires_at(d.pop("token_expires_at", UNSET))

        account = cls(
            id=id,
            platform=platform,
            external_id=external_id,
            capabilities=capabilities,
            created_at=created_at,
            updated_at=updated_at,
            status=status,
            status_reason=status_reason,
            handle=handle,
            display_name=display_name,
            avatar_url=avatar_url,
            sandbox=sandbox,
            token_expires_at=token_expires_at,
        )

        account.additional_properties = d
        return account

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
