from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.duplicate_warning import DuplicateWarning
    from ..models.publish import Publish


T = TypeVar("T", bound="PublishCreatedResponse")


@_attrs_define
class PublishCreatedResponse:
    """
    Attributes:
        data (Publish):
        warnings (list[DuplicateWarning]): Targets whose text their account already got within the team's window; []
            when none.
    """

    data: Publish
    warnings: list[DuplicateWarning]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data.to_dict()

        warnings = []
        for warnings_item_data in self.warnings:
            warnings_item = warnings_item_data.to_dict()
            warnings.append(warnings_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "warnings": warnings,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.duplicate_warning import DuplicateWarning
        from ..models.publish import Publish

        d = dict(src_dict)
        data = Publish.from_dict(d.pop("data"))

        warnings = []
        _warnings = d.pop("warnings")
        for warnings_item_data in _warnings:
            warnings_item = DuplicateWarning.from_dict(warnings_item_data)

            warnings.append(warnings_item)

        publish_created_response = cls(
            data=data,
            warnings=warnings,
        )

        publish_created_response.additional_properties = d
        return publish_created_response

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
