from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.target_input_request_platform_settings_type_0 import (
        TargetInputRequestPlatformSettingsType0,
    )
    from ..models.thread_item_input_request import ThreadItemInputRequest


T = TypeVar("T", bound="TargetInputRequest")


@_attrs_define
class TargetInputRequest:
    """
    Attributes:
        account_id (UUID): The connected account to publish to.
        content (None | str | Unset): Overrides the publish's content for this target; null inherits it.
        media_ids (list[UUID] | None | Unset): Overrides the publish's media for this target; null inherits it.
        platform_settings (None | TargetInputRequestPlatformSettingsType0 | Unset): Flat per-platform settings (spec
            §2); unknown keys are ignored. At most 50 keys and 16 KB as JSON.
        thread (list[ThreadItemInputRequest] | Unset): X, Bluesky and Threads only: later posts published after this
            target's own post as a chain of replies, each replying to the one before. Each item is its own text and media
            (nothing is inherited), checked like a post. On PATCH, the list given replaces the stored one.
    """

    account_id: UUID
    content: None | str | Unset = UNSET
    media_ids: list[UUID] | None | Unset = UNSET
    platform_settings: None | TargetInputRequestPlatformSettingsType0 | Unset = UNSET
    thread: list[ThreadItemInputRequest] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.target_input_request_platform_settings_type_0 import (
            TargetInputRequestPlatformSettingsType0,
        )

        account_id = str(self.account_id)

        content: None | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        else:
            content = self.content

        media_ids: list[str] | None | Unset
        if isinstance(self.media_ids, Unset):
            media_ids = UNSET
        elif isinstance(self.media_ids, list):
            media_ids = []
            for media_ids_type_0_item_data in self.media_ids:
                media_ids_type_0_item = str(media_ids_type_0_item_data)
                media_ids.append(media_ids_type_0_item)

        else:
            media_ids = self.media_ids

        platform_settings: dict[str, Any] | None | Unset
        if isinstance(self.platform_settings, Unset):
            platform_settings = UNSET
        elif isinstance(
            self.platform_settings, TargetInputRequestPlatformSettingsType0
        ):
            platform_settings = self.platform_settings.to_dict()
        else:
            platform_settings = self.platform_settings

        thread: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.thread, Unset):
            thread = []
            for thread_item_data in self.thread:
                thread_item = thread_item_data.to_dict()
                thread.append(thread_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "account_id": account_id,
            }
        )
        if content is not UNSET:
            field_dict["content"] = content
        if media_ids is not UNSET:
            field_dict["media_ids"] = media_ids
        if platform_settings is not UNSET:
            field_dict["platform_settings"] = platform_settings
        if thread is not UNSET:
            field_dict["thread"] = thread

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.target_input_request_platform_settings_type_0 import (
            TargetInputRequestPlatformSettingsType0,
        )
        from ..models.thread_item_input_request import ThreadItemInputRequest

        d = dict(src_dict)
        account_id = UUID(d.pop("account_id"))

        def _parse_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        content = _parse_content(d.pop("content", UNSET))

        def _parse_media_ids(data: object) -> list[UUID] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                media_ids_type_0 = []
                _media_ids_type_0 = data
                for media_ids_type_0_item_data in _media_ids_type_0:
                    media_ids_type_0_item = UUID(media_ids_type_0_item_data)

                    media_ids_type_0.append(media_ids_type_0_item)

                return media_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[UUID] | None | Unset, data)

        media_ids = _parse_media_ids(d.pop("media_ids", UNSET))

        def _parse_platform_settings(
            data: object,
        ) -> None | TargetInputRequestPlatformSettingsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                platform_settings_type_0 = (
                    TargetInputRequestPlatformSettingsType0.from_dict(data)
                )

                return platform_settings_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TargetInputRequestPlatformSettingsType0 | Unset, data)

        platform_settings = _parse_platform_settings(d.pop("platform_settings", UNSET))

        _thread = d.pop("thread", UNSET)
        thread: list[ThreadItemInputRequest] | Unset = UNSET
        if _thread is not UNSET:
            thread = []
            for thread_item_data in _thread:
                thread_item = ThreadItemInputRequest.from_dict(thread_item_data)

                thread.append(thread_item)

        target_input_request = cls(
            account_id=account_id,
            content=content,
            media_ids=media_ids,
            platform_settings=platform_settings,
            thread=thread,
        )

        target_input_request.additional_properties = d
        return target_input_request

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
