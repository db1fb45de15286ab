from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.account_capabilities_formats_videos_aspect_ratio_type_0 import (
        AccountCapabilitiesFormatsVideosAspectRatioType0,
    )


T = TypeVar("T", bound="AccountCapabilitiesFormatsVideos")


@_attrs_define
class AccountCapabilitiesFormatsVideos:
    """
    Attributes:
        codecs (list[str] | None | Unset):
        audio_codecs (list[str] | None | Unset):
        max_width (int | None | Unset):
        max_height (int | None | Unset):
        aspect_ratio (AccountCapabilitiesFormatsVideosAspectRatioType0 | None | Unset): Width / height, inclusive.
    """

    codecs: list[str] | None | Unset = UNSET
    audio_codecs: list[str] | None | Unset = UNSET
    max_width: int | None | Unset = UNSET
    max_height: int | None | Unset = UNSET
    aspect_ratio: AccountCapabilitiesFormatsVideosAspectRatioType0 | None | Unset = (
        UNSET
    )
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.account_capabilities_formats_videos_aspect_ratio_type_0 import (
            AccountCapabilitiesFormatsVideosAspectRatioType0,
        )

        codecs: list[str] | None | Unset
        if isinstance(self.codecs, Unset):
            codecs = UNSET
        elif isinstance(self.codecs, list):
            codecs = self.codecs

        else:
            codecs = self.codecs

        audio_codecs: list[str] | None | Unset
        if isinstance(self.audio_codecs, Unset):
            audio_codecs = UNSET
        elif isinstance(self.audio_codecs, list):
            audio_codecs = self.audio_codecs

        else:
            audio_codecs = self.audio_codecs

        max_width: int | None | Unset
        if isinstance(self.max_width, Unset):
            max_width = UNSET
        else:
            max_width = self.max_width

        max_height: int | None | Unset
        if isinstance(self.max_height, Unset):
            max_height = UNSET
        else:
            max_height = self.max_height

        aspect_ratio: dict[str, Any] | None | Unset
        if isinstance(self.aspect_ratio, Unset):
            aspect_ratio = UNSET
        elif isinstance(
            self.aspect_ratio, AccountCapabilitiesFormatsVideosAspectRatioType0
        ):
            aspect_ratio = self.aspect_ratio.to_dict()
        else:
            aspect_ratio = self.aspect_ratio

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if codecs is not UNSET:
            field_dict["codecs"] = codecs
        if audio_codecs is not UNSET:
            field_dict["audio_codecs"] = audio_codecs
        if max_width is not UNSET:
            field_dict["max_width"] = max_width
        if max_height is not UNSET:
            field_dict["max_height"] = max_height
        if aspect_ratio is not UNSET:
            field_dict["aspect_ratio"] = aspect_ratio

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.account_capabilities_formats_videos_aspect_ratio_type_0 import (
            AccountCapabilitiesFormatsVideosAspectRatioType0,
        )

        d = dict(src_dict)

        def _parse_codecs(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                codecs_type_0 = cast(list[str], data)

                return codecs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        codecs = _parse_codecs(d.pop("codecs", UNSET))

        def _parse_audio_codecs(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                audio_codecs_type_0 = cast(list[str], data)

                return audio_codecs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        audio_codecs = _parse_audio_codecs(d.pop("audio_codecs", UNSET))

        def _parse_max_width(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_width = _parse_max_width(d.pop("max_width", UNSET))

        def _parse_max_height(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_height = _parse_max_height(d.pop("max_height", UNSET))

        def _parse_aspect_ratio(
            data: object,
        ) -> AccountCapabilitiesFormatsVideosAspectRatioType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                aspect_ratio_type_0 = (
                    AccountCapabilitiesFormatsVideosAspectRatioType0.from_dict(data)
                )

                return aspect_ratio_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                AccountCapabilitiesFormatsVideosAspectRatioType0 | None | Unset, data
            )

        aspect_ratio = _parse_aspect_ratio(d.pop("aspect_ratio", UNSET))

        account_capabilities_formats_videos = cls(
            codecs=codecs,
            audio_codecs=audio_codecs,
            max_width=max_width,
            max_height=max_height,
            aspect_ratio=aspect_ratio,
        )

        account_capabilities_formats_videos.additional_properties = d
        return account_capabilities_formats_videos

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
