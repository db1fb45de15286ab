from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.content_type_enum import ContentTypeEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.media_probe import MediaProbe


T = TypeVar("T", bound="Media")


@_attrs_define
class Media:
    """
    Attributes:
        id (UUID):
        filename (str):
        content_type (ContentTypeEnum): * `image/png` - image/png
            * `image/jpeg` - image/jpeg
            * `image/webp` - image/webp
            * `image/gif` - image/gif
            * `video/mp4` - video/mp4
            * `video/quicktime` - video/quicktime
        probe (MediaProbe):
        created_at (datetime.datetime):
        download_url (str): Short-lived URL to fetch the file.
        alt_text (str | Unset):
        size_bytes (int | None | Unset): Declared size; for a source_url fetch, the fetched size.
        width (int | None | Unset):
        height (int | None | Unset):
        duration_seconds (float | None | Unset):
        confirmed_at (datetime.datetime | None | Unset):
    """

    id: UUID
    filename: str
    content_type: ContentTypeEnum
    probe: MediaProbe
    created_at: datetime.datetime
    download_url: str
    alt_text: str | Unset = UNSET
    size_bytes: int | None | Unset = UNSET
    width: int | None | Unset = UNSET
    height: int | None | Unset = UNSET
    duration_seconds: float | None | Unset = UNSET
    confirmed_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        filename = self.filename

        content_type = self.content_type.value

        probe = self.probe.to_dict()

        created_at = self.created_at.isoformat()

        download_url = self.download_url

        alt_text = self.alt_text

        size_bytes: int | None | Unset
        if isinstance(self.size_bytes, Unset):
            size_bytes = UNSET
        else:
            size_bytes = self.size_bytes

        width: int | None | Unset
        if isinstance(self.width, Unset):
            width = UNSET
        else:
            width = self.width

        height: int | None | Unset
        if isinstance(self.height, Unset):
            height = UNSET
        else:
            height = self.height

        duration_seconds: float | None | Unset
        if isinstance(self.duration_seconds, Unset):
            duration_seconds = UNSET
        else:
            duration_seconds = self.duration_seconds

        confirmed_at: None | str | Unset
        if isinstance(self.confirmed_at, Unset):
            confirmed_at = UNSET
        elif isinstance(self.confirmed_at, datetime.datetime):
            confirmed_at = self.confirmed_at.isoformat()
        else:
            confirmed_at = self.confirmed_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "filename": filename,
                "content_type": content_type,
                "probe": probe,
                "created_at": created_at,
                "download_url": download_url,
            }
        )
        if alt_text is not UNSET:
            field_dict["alt_text"] = alt_text
        if size_bytes is not UNSET:
            field_dict["size_bytes"] = size_bytes
        if width is not UNSET:
            field_dict["width"] = width
        if height is not UNSET:
            field_dict["height"] = height
        if duration_seconds is not UNSET:
            field_dict["duration_seconds"] = duration_seconds
        if confirmed_at is not UNSET:
            field_dict["confirmed_at"] = confirmed_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.media_probe import MediaProbe

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        filename = d.pop("filename")

        content_type = ContentTypeEnum(d.pop("content_type"))

        probe = MediaProbe.from_dict(d.pop("probe"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        download_url = d.pop("download_url")

        alt_text = d.pop("alt_text", UNSET)

        def _parse_size_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        size_bytes = _parse_size_bytes(d.pop("size_bytes", UNSET))

        def _parse_width(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        width = _parse_width(d.pop("width", UNSET))

        def _parse_height(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        height = _parse_height(d.pop("height", UNSET))

        def _parse_duration_seconds(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        duration_seconds = _parse_duration_seconds(d.pop("duration_seconds", UNSET))

        def _parse_confirmed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                confirmed_at_type_0 = datetime.datetime.fromisoformat(data)

                return confirmed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        confirmed_at = _parse_confirmed_at(d.pop("confirmed_at", UNSET))

        media = cls(
            id=id,
            filename=filename,
            content_type=content_type,
            probe=probe,
            created_at=created_at,
            download_url=download_url,
            alt_text=alt_text,
            size_bytes=size_bytes,
            width=width,
            height=height,
            duration_seconds=duration_seconds,
            confirmed_at=confirmed_at,
        )

        media.additional_properties = d
        return media

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
