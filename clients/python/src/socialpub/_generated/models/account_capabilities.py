from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.platform_enum import PlatformEnum

if TYPE_CHECKING:
    from ..models.account_capabilities_first_comment import (
        AccountCapabilitiesFirstComment,
    )
    from ..models.account_capabilities_formats import AccountCapabilitiesFormats
    from ..models.account_capabilities_limits import AccountCapabilitiesLimits
    from ..models.account_capabilities_live import AccountCapabilitiesLive
    from ..models.account_capabilities_platform_settings_schema import (
        AccountCapabilitiesPlatformSettingsSchema,
    )
    from ..models.account_capabilities_unpublish import AccountCapabilitiesUnpublish


T = TypeVar("T", bound="AccountCapabilities")


@_attrs_define
class AccountCapabilities:
    """
    Attributes:
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
        platform_settings_schema (AccountCapabilitiesPlatformSettingsSchema): A JSON Schema (draft 2020-12) of the
            account's platform_settings: every key the service reads, its type, choices, bounds and default, narrowed by the
            live options when they could be read.
        limits (AccountCapabilitiesLimits): What a post to this account may contain: text, images, videos, title, with
            limits.
        formats (AccountCapabilitiesFormats): What the platform documents beyond type, size and duration (null: no
            documented rule). A file that breaks a codec, dimension or pixel rule is sent as a fitted rendition unless the
            target sets `fit_media: false`; an aspect ratio is never fitted (nothing is cropped).
        live (AccountCapabilitiesLive): The options the platform offers this account now, beside the fields below:
            TikTok's creator info (privacy_level_options, comment_disabled, duet_disabled, stitch_disabled,
            max_video_post_duration_sec, creator_username, creator_nickname), Pinterest's `boards` ([{id, name}]), YouTube's
            assignable `categories` ([{id, name}]) and `region_code`.
        first_comment (AccountCapabilitiesFirstComment): Whether `platform_settings.first_comment` can be used here, and
            how it is posted.
        unpublish (AccountCapabilitiesUnpublish): Whether a published post can be deleted on the platform through its
            API.
    """

    account_id: UUID
    platform: PlatformEnum
    platform_settings_schema: AccountCapabilitiesPlatformSettingsSchema
    limits: AccountCapabilitiesLimits
    formats: AccountCapabilitiesFormats
    live: AccountCapabilitiesLive
    first_comment: AccountCapabilitiesFirstComment
    unpublish: AccountCapabilitiesUnpublish
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        account_id = str(self.account_id)

        platform = self.platform.value

        platform_settings_schema = self.platform_settings_schema.to_dict()

        limits = self.limits.to_dict()

        formats = self.formats.to_dict()

        live = self.live.to_dict()

        first_comment = self.first_comment.to_dict()

        unpublish = self.unpublish.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "account_id": account_id,
                "platform": platform,
                "platform_settings_schema": platform_settings_schema,
                "limits": limits,
                "formats": formats,
                "live": live,
                "first_comment": first_comment,
                "unpublish": unpublish,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.account_capabilities_first_comment import (
            AccountCapabilitiesFirstComment,
        )
        from ..models.account_capabilities_formats import AccountCapabilitiesFormats
        from ..models.account_capabilities_limits import AccountCapabilitiesLimits
        from ..models.account_capabilities_live import AccountCapabilitiesLive
        from ..models.account_capabilities_platform_settings_schema import (
            AccountCapabilitiesPlatformSettingsSchema,
        )
        from ..models.account_capabilities_unpublish import AccountCapabilitiesUnpublish

        d = dict(src_dict)
        account_id = UUID(d.pop("account_id"))

        platform = PlatformEnum(d.pop("platform"))

        platform_settings_schema = AccountCapabilitiesPlatformSettingsSchema.from_dict(
            d.pop("platform_settings_schema")
        )

        limits = AccountCapabilitiesLimits.from_dict(d.pop("limits"))

        formats = AccountCapabilitiesFormats.from_dict(d.pop("formats"))

        live = AccountCapabilitiesLive.from_dict(d.pop("live"))

        first_comment = AccountCapabilitiesFirstComment.from_dict(
            d.pop("first_comment")
        )

        unpublish = AccountCapabilitiesUnpublish.from_dict(d.pop("unpublish"))

        account_capabilities = cls(
            account_id=account_id,
            platform=platform,
            platform_settings_schema=platform_settings_schema,
            limits=limits,
            formats=formats,
            live=live,
            first_comment=first_comment,
            unpublish=unpublish,
        )

        account_capabilities.additional_properties = d
        return account_capabilities

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
