from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.account_capabilities_object_images import (
        AccountCapabilitiesObjectImages,
    )
    from ..models.account_capabilities_object_text import AccountCapabilitiesObjectText
    from ..models.account_capabilities_object_title import (
        AccountCapabilitiesObjectTitle,
    )
    from ..models.account_capabilities_object_videos import (
        AccountCapabilitiesObjectVideos,
    )


T = TypeVar("T", bound="AccountCapabilitiesObject")


@_attrs_define
class AccountCapabilitiesObject:
    """What a post to this account may contain: text, images, videos, title, with limits.

    Attributes:
        text (AccountCapabilitiesObjectText | Unset):
        images (AccountCapabilitiesObjectImages | Unset):
        videos (AccountCapabilitiesObjectVideos | Unset):
        title (AccountCapabilitiesObjectTitle | Unset):
        mixed_media (bool | Unset):
        max_media_per_post (int | Unset):
        requires_media (bool | Unset):
        notes (list[str] | Unset):
    """

    text: AccountCapabilitiesObjectText | Unset = UNSET
    images: AccountCapabilitiesObjectImages | Unset = UNSET
    videos: AccountCapabilitiesObjectVideos | Unset = UNSET
    title: AccountCapabilitiesObjectTitle | Unset = UNSET
    mixed_media: bool | Unset = UNSET
    max_media_per_post: int | Unset = UNSET
    requires_media: bool | Unset = UNSET
    notes: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        text: dict[str, Any] | Unset = UNSET
        if not isinstance(self.text, Unset):
            text = self.text.to_dict()

        images: dict[str, Any] | Unset = UNSET
        if not isinstance(self.images, Unset):
            images = self.images.to_dict()

        videos: dict[str, Any] | Unset = UNSET
        if not isinstance(self.videos, Unset):
            videos = self.videos.to_dict()

        title: dict[str, Any] | Unset = UNSET
        if not isinstance(self.title, Unset):
            title = self.title.to_dict()

        mixed_media = self.mixed_media

        max_media_per_post = self.max_media_per_post

        requires_media = self.requires_media

        notes: list[str] | Unset = UNSET
        if not isinstance(self.notes, Unset):
            notes = self.notes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if text is not UNSET:
            field_dict["text"] = text
        if images is not UNSET:
            field_dict["images"] = images
        if videos is not UNSET:
            field_dict["videos"] = videos
        if title is not UNSET:
            field_dict["title"] = title
        if mixed_media is not UNSET:
            field_dict["mixed_media"] = mixed_media
        if max_media_per_post is not UNSET:
            field_dict["max_media_per_post"] = max_media_per_post
        if requires_media is not UNSET:
            field_dict["requires_media"] = requires_media
        if notes is not UNSET:
            field_dict["notes"] = notes

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.account_capabilities_object_images import (
            AccountCapabilitiesObjectImages,
        )
        from ..models.account_capabilities_object_text import (
            AccountCapabilitiesObjectText,
        )
        from ..models.account_capabilities_object_title import (
            AccountCapabilitiesObjectTitle,
        )
        from ..models.account_capabilities_object_videos import (
            AccountCapabilitiesObjectVideos,
        )

        d = dict(src_dict)
        _text = d.pop("text", UNSET)
        text: AccountCapabilitiesObjectText | Unset
        if isinstance(_text, Unset):
            text = UNSET
        else:
            text = AccountCapabilitiesObjectText.from_dict(_text)

        _images = d.pop("images", UNSET)
        images: AccountCapabilitiesObjectImages | Unset
        if isinstance(_images, Unset):
            images = UNSET
        else:
            images = AccountCapabilitiesObjectImages.from_dict(_images)

        _videos = d.pop("videos", UNSET)
        videos: AccountCapabilitiesObjectVideos | Unset
        if isinstance(_videos, Unset):
            videos = UNSET
        else:
            videos = AccountCapabilitiesObjectVideos.from_dict(_videos)

        _title = d.pop("title", UNSET)
        title: AccountCapabilitiesObjectTitle | Unset
        if isinstance(_title, Unset):
            title = UNSET
        else:
            title = AccountCapabilitiesObjectTitle.from_dict(_title)

        mixed_media = d.pop("mixed_media", UNSET)

        max_media_per_post = d.pop("max_media_per_post", UNSET)

        requires_media = d.pop("requires_media", UNSET)

        notes = cast(list[str], d.pop("notes", UNSET))

        account_capabilities_object = cls(
            text=text,
            images=images,
            videos=videos,
            title=title,
            mixed_media=mixed_media,
            max_media_per_post=max_media_per_post,
            requires_media=requires_media,
            notes=notes,
        )

        account_capabilities_object.additional_properties = d
        return account_capabilities_object

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
