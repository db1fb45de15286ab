from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.warning_code_enum import WarningCodeEnum

T = TypeVar("T", bound="BulkWarning")


@_attrs_define
class BulkWarning:
    """
    Attributes:
        code (WarningCodeEnum): * `DUPLICATE_CONTENT` - DUPLICATE_CONTENT
        account_id (UUID): The target's account, which already got the same text.
        publish_id (UUID): The most recent publish that sent it, or sends it, to that account within the window.
        index (int): The row whose publish it is about, from 0.
    """

    code: WarningCodeEnum
    account_id: UUID
    publish_id: UUID
    index: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code.value

        account_id = str(self.account_id)

        publish_id = str(self.publish_id)

        index = self.index

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "account_id": account_id,
                "publish_id": publish_id,
                "index": index,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        code = WarningCodeEnum(d.pop("code"))

        account_id = UUID(d.pop("account_id"))

        publish_id = UUID(d.pop("publish_id"))

        index = d.pop("index")

        bulk_warning = cls(
            code=code,
            account_id=account_id,
            publish_id=publish_id,
            index=index,
        )

        bulk_warning.additional_properties = d
        return bulk_warning

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
