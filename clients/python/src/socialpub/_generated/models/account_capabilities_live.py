from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.account_capabilities_live_error_type_0 import (
        AccountCapabilitiesLiveErrorType0,
    )


T = TypeVar("T", bound="AccountCapabilitiesLive")


@_attrs_define
class AccountCapabilitiesLive:
    """The options the platform offers this account now, beside the fields below: TikTok's creator info
    (privacy_level_options, comment_disabled, duet_disabled, stitch_disabled, max_video_post_duration_sec,
    creator_username, creator_nickname), Pinterest's `boards` ([{id, name}]), YouTube's assignable `categories` ([{id,
    name}]) and `region_code`.

        Attributes:
            supported (bool): Whether the platform has live options.
            available (bool): Whether they were read (now or from the cache).
            cached (bool): Whether they came from the cache.
            fetched_at (datetime.datetime | None):
            error (AccountCapabilitiesLiveErrorType0 | None): Why they could not be read: ACCOUNT_EXPIRED, ACCOUNT_DISABLED,
                ACCOUNT_DISCONNECTED, PLATFORM_UNAVAILABLE, PLATFORM_RATE_LIMITED or SANDBOX_UNAVAILABLE.
    """

    supported: bool
    available: bool
    cached: bool
    fetched_at: datetime.datetime | None
    error: AccountCapabilitiesLiveErrorType0 | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.account_capabilities_live_error_type_0 import (
            AccountCapabilitiesLiveErrorType0,
        )

        supported = self.supported

        available = self.available

        cached = self.cached

        fetched_at: None | str
        if isinstance(self.fetched_at, datetime.datetime):
            fetched_at = self.fetched_at.isoformat()
        else:
            fetched_at = self.fetched_at

        error: dict[str, Any] | None
        if isinstance(self.error, AccountCapabilitiesLiveErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "supported": supported,
                "available": available,
                "cached": cached,
                "fetched_at": fetched_at,
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.account_capabilities_live_error_type_0 import (
            AccountCapabilitiesLiveErrorType0,
        )

        d = dict(src_dict)
        supported = d.pop("supported")

        available = d.pop("available")

        cached = d.pop("cached")

        def _parse_fetched_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                fetched_at_type_0 = datetime.datetime.fromisoformat(data)

                return fetched_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        fetched_at = _parse_fetched_at(d.pop("fetched_at"))

        def _parse_error(data: object) -> AccountCapabilitiesLiveErrorType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = AccountCapabilitiesLiveErrorType0.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AccountCapabilitiesLiveErrorType0 | None, data)

        error = _parse_error(d.pop("error"))

        account_capabilities_live = cls(
            supported=supported,
            available=available,
            cached=cached,
            fetched_at=fetched_at,
            error=error,
        )

        account_capabilities_live.additional_properties = d
        return account_capabilities_live

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
