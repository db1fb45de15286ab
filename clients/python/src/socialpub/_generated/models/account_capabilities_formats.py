from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.account_capabilities_formats_images import (
        AccountCapabilitiesFormatsImages,
    )
    from ..models.account_capabilities_formats_videos import (
        AccountCapabilitiesFormatsVideos,
    )


T = TypeVar("T", bound="AccountCapabilitiesFormats")


@_attrs_define
class AccountCapabilitiesFormats:
    """What the platform documents beyond type, size and duration (null: no documented rule). A file that breaks a codec,
    dimension or pixel rule is sent as a fitted rendition unless the target sets `fit_media: false`; an aspect ratio is
    never fitted (nothing is cropped).

        Attributes:
            images (AccountCapabilitiesFormatsImages | Unset):
            videos (AccountCapabilitiesFormatsVideos | Unset):
    """

    images: AccountCapabilitiesFormatsImages | Unset = UNSET
    videos: AccountCapabilitiesFormatsVideos | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        images: dict[str, Any] | Unset = UNSET
        if not isinstance(self.images, Unset):
            images = self.images.to_dict()

        videos: dict[str, Any] | Unset = UNSET
        if not isinstance(self.videos, Unset):
            videos = self.videos.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if images is not UNSET:
            field_dict["images"] = images
        if videos is not UNSET:
            field_dict["videos"] = videos

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.account_capabilities_formats_images import (
            AccountCapabilitiesFormatsImages,
        )
        from ..models.account_capabilities_formats_videos import (
            AccountCapabilitiesFormatsVideos,
        )

        d = dict(src_dict)
        _images = d.pop("images", UNSET)
        images: AccountCapabilitiesFormatsImages | Unset
        if isinstance(_images, Unset):
            images = UNSET
        else:
            images = AccountCapabilitiesFormatsImages.from_dict(_images)

        _videos = d.pop("videos", UNSET)
        videos: AccountCapabilitiesFormatsVideos | Unset
        if isinstance(_videos, Unset):
            videos = UNSET
        else:
            videos = AccountCapabilitiesFormatsVideos.from_dict(_videos)

        account_capabilities_formats = cls(
            images=images,
            videos=videos,
        )

        account_capabilities_formats.additional_properties = d
        return account_capabilities_formats

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
