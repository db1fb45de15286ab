from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.blank_enum import BlankEnum
from ..models.content_type_enum import ContentTypeEnum
from ..models.fetch_status_enum import FetchStatusEnum
from ..models.media_state_enum import MediaStateEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.media_created_headers import MediaCreatedHeaders
    from ..models.media_probe import MediaProbe


T = TypeVar("T", bound="MediaCreated")


@_attrs_define
class MediaCreated:
    """
    Attributes:
        media_id (UUID): Use it in media_ids of a publish.
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
        upload_url (None | str): PUT the bytes here (null with source_url).
        headers (MediaCreatedHeaders): Headers the PUT must carry, exactly.
        upload_url_expires_at (datetime.datetime | None):
        alt_text (str | Unset):
        size_bytes (int | None | Unset): Declared size; for a source_url fetch, the fetched size.
        state (MediaStateEnum | Unset): * `unconfirmed` - Unconfirmed
            * `ready` - Ready
        source_url (str | Unset):
        fetch_status (BlankEnum | FetchStatusEnum | Unset):
        fetch_error (str | Unset):
        width (int | None | Unset):
        height (int | None | Unset):
        duration_seconds (float | None | Unset):
        confirmed_at (datetime.datetime | None | Unset):
    """

    media_id: UUID
    id: UUID
    filename: str
    content_type: ContentTypeEnum
    probe: MediaProbe
    created_at: datetime.datetime
    upload_url: None | str
    headers: MediaCreatedHeaders
    upload_url_expires_at: datetime.datetime | None
    alt_text: str | Unset = UNSET
    size_bytes: int | None | Unset = UNSET
    state: MediaStateEnum | Unset = UNSET
    source_url: str | Unset = UNSET
    fetch_status: BlankEnum | FetchStatusEnum | Unset = UNSET
    fetch_error: str | Unset = UNSET
    width: int | None | Unset = UNSET
    height: int | None | Unset = UNSET
    duration_seconds: float | None | Unset = UNSET
    confirmed_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        media_id = str(self.media_id)

        id = str(self.id)

        filename = self.filename

        content_type = self.content_type.value

        probe = self.probe.to_dict()

        created_at = self.created_at.isoformat()

        upload_url: None | str
        upload_url = self.upload_url

        headers = self.headers.to_dict()

        upload_url_expires_at: None | str
        if isinstance(self.upload_url_expires_at, datetime.datetime):
            upload_url_expires_at = self.upload_url_expires_at.isoformat()
        else:
            upload_url_expires_at = self.upload_url_expires_at

        alt_text = self.alt_text

        size_bytes: int | None | Unset
        if isinstance(self.size_bytes, Unset):
            size_bytes = UNSET
        else:
            size_bytes = self.size_bytes

        state: str | Unset = UNSET
        if not isinstance(self.state, Unset):
            state = self.state.value

        source_url: str | Unset
        if isinstance(self.source_url, Unset):
            source_url = UNSET
        else:
            source_url = self.source_url

        fetch_status: str | Unset
        if isinstance(self.fetch_status, Unset):
            fetch_status = UNSET
        elif isinstance(self.fetch_status, FetchStatusEnum):
            fetch_status = self.fetch_status.value
        else:
            fetch_status = self.fetch_status.value

        fetch_error = self.fetch_error

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
                "media_id": media_id,
                "id": id,
                "filename": filename,
                "content_type": content_type,
                "probe": probe,
                "created_at": created_at,
                "upload_url": upload_url,
                "headers": headers,
                "upload_url_expires_at": upload_url_expires_at,
            }
        )
        if alt_text is not UNSET:
            field_dict["alt_text"] = alt_text
        if size_bytes is not UNSET:
            field_dict["size_bytes"] = size_bytes
        if state is not UNSET:
            field_dict["state"] = state
        if source_url is not UNSET:
            field_dict["source_url"] = source_url
        if fetch_status is not UNSET:
            field_dict["fetch_status"] = fetch_status
        if fetch_error is not UNSET:
            field_dict["fetch_error"] = fetch_error
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
        from ..models.media_created_headers import MediaCreatedHeaders
        from ..models.media_probe import MediaProbe

        d = dict(src_dict)
        media_id = UUID(d.pop("media_id"))

        id = UUID(d.pop("id"))

        filename = d.pop("filename")

        content_type = ContentTypeEnum(d.pop("content_type"))

        probe = MediaProbe.from_dict(d.pop("probe"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_upload_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        upload_url = _parse_upload_url(d.pop("upload_url"))

        headers = MediaCreatedHeaders.from_dict(d.pop("headers"))

        def _parse_upload_url_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                upload_url_expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return upload_url_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        upload_url_expires_at = _parse_upload_url_expires_at(
            d.pop("upload_url_expires_at")
        )

        alt_text = d.pop("alt_text", UNSET)

        def _parse_size_bytes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        size_bytes = _parse_size_bytes(d.pop("size_bytes", UNSET))

        _state = d.pop("state", UNSET)
        state: MediaStateEnum | Unset
        if isinstance(_state, Unset):
            state = UNSET
        else:
            state = MediaStateEnum(_state)

        def _parse_source_url(data: object) -> str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(str | Unset, data)

        source_url = _parse_source_url(d.pop("source_url", UNSET))

        def _parse_fetch_status(data: object) -> BlankEnum | FetchStatusEnum | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                fetch_status_type_0 = FetchStatusEnum(data)

                return fetch_status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, str):
                raise TypeError()
            fetch_status_type_1 = BlankEnum(data)

            return fetch_status_type_1

        fetch_status = _parse_fetch_status(d.pop("fetch_status", UNSET))

        fetch_error = d.pop("fetch_error", UNSET)

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

        media_created = cls(
            media_id=media_id,
            id=id,
            filename=filename,
            content_type=content_type,
            probe=probe,
            created_at=created_at,
            upload_url=upload_url,
            headers=headers,
            upload_url_expires_at=upload_url_expires_at,
            alt_text=alt_text,
            size_bytes=size_bytes,
            state=state,
            source_url=source_url,
            fetch_status=fetch_status,
            fetch_error=fetch_error,
            width=width,
            height=height,
            duration_seconds=duration_seconds,
            confirmed_at=confirmed_at,
        )

        media_created.additional_properties = d
        return media_created

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
