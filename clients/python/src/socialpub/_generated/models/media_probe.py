from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.media_probe_error_type_0 import MediaProbeErrorType0


T = TypeVar("T", bound="MediaProbe")


@_attrs_define
class MediaProbe:
    """
    Attributes:
        status (str): pending (ffprobe runs in a worker after confirm), done, failed (the file cannot be used; `error`
            says why and a publish with it is a 400), skipped (no ffprobe on this server), or empty before confirm.
        error (MediaProbeErrorType0 | None): Why the probe failed: {code, message}; null otherwise.
        container (str | Unset): ffprobe's format name.
        video_codec (str | Unset):
        audio_codec (str | Unset):
        frame_rate (float | None | Unset):
        bit_rate (int | None | Unset):
        aspect_ratio (float | None | Unset): Displayed width / height.
        probed_at (datetime.datetime | None | Unset):
    """

    status: str
    error: MediaProbeErrorType0 | None
    container: str | Unset = UNSET
    video_codec: str | Unset = UNSET
    audio_codec: str | Unset = UNSET
    frame_rate: float | None | Unset = UNSET
    bit_rate: int | None | Unset = UNSET
    aspect_ratio: float | None | Unset = UNSET
    probed_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.media_probe_error_type_0 import MediaProbeErrorType0

        status = self.status

        error: dict[str, Any] | None
        if isinstance(self.error, MediaProbeErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        container = self.container

        video_codec = self.video_codec

        audio_codec = self.audio_codec

        frame_rate: float | None | Unset
        if isinstance(self.frame_rate, Unset):
            frame_rate = UNSET
        else:
            frame_rate = self.frame_rate

        bit_rate: int | None | Unset
        if isinstance(self.bit_rate, Unset):
            bit_rate = UNSET
        else:
            bit_rate = self.bit_rate

        aspect_ratio: float | None | Unset
        if isinstance(self.aspect_ratio, Unset):
            aspect_ratio = UNSET
        else:
            aspect_ratio = self.aspect_ratio

        probed_at: None | str | Unset
        if isinstance(self.probed_at, Unset):
            probed_at = UNSET
        elif isinstance(self.probed_at, datetime.datetime):
            probed_at = self.probed_at.isoformat()
        else:
            probed_at = self.probed_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "error": error,
            }
        )
        if container is not UNSET:
            field_dict["container"] = container
        if video_codec is not UNSET:
            field_dict["video_codec"] = video_codec
        if audio_codec is not UNSET:
            field_dict["audio_codec"] = audio_codec
        if frame_rate is not UNSET:
            field_dict["frame_rate"] = frame_rate
        if bit_rate is not UNSET:
            field_dict["bit_rate"] = bit_rate
        if aspect_ratio is not UNSET:
            field_dict["aspect_ratio"] = aspect_ratio
        if probed_at is not UNSET:
            field_dict["probed_at"] = probed_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.media_probe_error_type_0 import MediaProbeErrorType0

        d = dict(src_dict)
        status = d.pop("status")

        def _parse_error(data: object) -> MediaProbeErrorType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = MediaProbeErrorType0.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MediaProbeErrorType0 | None, data)

        error = _parse_error(d.pop("error"))

        container = d.pop("container", UNSET)

        video_codec = d.pop("video_codec", UNSET)

        audio_codec = d.pop("audio_codec", UNSET)

        def _parse_frame_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        frame_rate = _parse_frame_rate(d.pop("frame_rate", UNSET))

        def _parse_bit_rate(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        bit_rate = _parse_bit_rate(d.pop("bit_rate", UNSET))

        def _parse_aspect_ratio(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        aspect_ratio = _parse_aspect_ratio(d.pop("aspect_ratio", UNSET))

        def _parse_probed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                probed_at_type_0 = datetime.datetime.fromisoformat(data)

                return probed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        probed_at = _parse_probed_at(d.pop("probed_at", UNSET))

        media_probe = cls(
            status=status,
            error=error,
            container=container,
            video_codec=video_codec,
            audio_codec=audio_codec,
            frame_rate=frame_rate,
            bit_rate=bit_rate,
            aspect_ratio=aspect_ratio,
            probed_at=probed_at,
        )

        media_probe.additional_properties = d
        return media_probe

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
