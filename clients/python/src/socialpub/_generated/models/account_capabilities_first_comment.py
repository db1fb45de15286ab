from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="AccountCapabilitiesFirstComment")


@_attrs_define
class AccountCapabilitiesFirstComment:
    """Whether `platform_settings.first_comment` can be used here, and how it is posted.

    Attributes:
        supported (bool | Unset):
        posted_as (None | str | Unset): `reply`: a reply by the same account (X, Bluesky, Threads); `comment`: a comment
            by the account on the post; null where the platform has no call to comment.
        max_length (int | None | Unset): The longest comment.
    """

    supported: bool | Unset = UNSET
    posted_as: None | str | Unset = UNSET
    max_length: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        supported = self.supported

        posted_as: None | str | Unset
        if isinstance(self.posted_as, Unset):
            posted_as = UNSET
        else:
            posted_as = self.posted_as

        max_length: int | None | Unset
        if isinstance(self.max_length, Unset):
            max_length = UNSET
        else:
            max_length = self.max_length

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if supported is not UNSET:
            field_dict["supported"] = supported
        if posted_as is not UNSET:
            field_dict["posted_as"] = posted_as
        if max_length is not UNSET:
            field_dict["max_length"] = max_length

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        supported = d.pop("supported", UNSET)

        def _parse_posted_as(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        posted_as = _parse_posted_as(d.pop("posted_as", UNSET))

        def _parse_max_length(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_length = _parse_max_length(d.pop("max_length", UNSET))

        account_capabilities_first_comment = cls(
            supported=supported,
            posted_as=posted_as,
            max_length=max_length,
        )

        account_capabilities_first_comment.additional_properties = d
        return account_capabilities_first_comment

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
