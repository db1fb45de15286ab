from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.content_type_enum import ContentTypeEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="MediaCreateRequest")


@_attrs_define
class MediaCreateRequest:
    """
    Attributes:
        filename (str):
        content_type (ContentTypeEnum): * `image/png` - image/png
            * `image/jpeg` - image/jpeg
            * `image/webp` - image/webp
            * `image/gif` - image/gif
            * `video/mp4` - video/mp4
            * `video/quicktime` - video/quicktime
        size_bytes (int | Unset): Exact size of the file. Required unless source_url is given; with source_url it caps
            the fetch.
        source_url (str | Unset): A public http(s) URL the service fetches the file from; no PUT is needed then.
        alt_text (str | Unset): A description of the image for screen readers, at most 1000 characters (X's limit, the
            strictest). Sent with the file to X, Bluesky, LinkedIn, Facebook (photos), Instagram and Threads (images); the
            other networks take none. Empty when none was written.
    """

    filename: str
    content_type: ContentTypeEnum
    size_bytes: int | Unset = UNSET
    source_url: str | Unset = UNSET
    alt_text: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        filename = self.filename

        content_type = self.content_type.value

        size_bytes = self.size_bytes

        source_url = self.source_url

        alt_text = self.alt_text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "filename": filename,
                "content_type": content_type,
            }
        )
        if size_bytes is not UNSET:
            field_dict["size_bytes"] = size_bytes
        if source_url is not UNSET:
            field_dict["source_url"] = source_url
        if alt_text is not UNSET:
            field_dict["alt_text"] = alt_text

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        filename = d.pop("filename")

        content_type = ContentTypeEnum(d.pop("content_type"))

        size_bytes = d.pop("size_bytes", UNSET)

        source_url = d.pop("source_url", UNSET)

        alt_text = d.pop("alt_text", UNSET)

        media_create_request = cls(
            filename=filename,
            content_type=content_type,
            size_bytes=size_bytes,
            source_url=source_url,
            alt_text=alt_text,
        )

        media_create_request.additional_properties = d
        return media_create_request

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
