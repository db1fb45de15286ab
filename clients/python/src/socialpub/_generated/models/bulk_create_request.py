from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.create_publish_request import CreatePublishRequest


T = TypeVar("T", bound="BulkCreateRequest")


@_attrs_define
class BulkCreateRequest:
    """
    Attributes:
        publishes (list[CreatePublishRequest]): Create bodies, 1 to 500, as POST /publishes takes one.
        dry_run (bool | Unset): Check every row and answer the verdicts; create nothing. Default: False.
    """

    publishes: list[CreatePublishRequest]
    dry_run: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        publishes = []
        for publishes_item_data in self.publishes:
            publishes_item = publishes_item_data.to_dict()
            publishes.append(publishes_item)

        dry_run = self.dry_run

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "publishes": publishes,
            }
        )
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.create_publish_request import CreatePublishRequest

        d = dict(src_dict)
        publishes = []
        _publishes = d.pop("publishes")
        for publishes_item_data in _publishes:
            publishes_item = CreatePublishRequest.from_dict(publishes_item_data)

            publishes.append(publishes_item)

        dry_run = d.pop("dry_run", UNSET)

        bulk_create_request = cls(
            publishes=publishes,
            dry_run=dry_run,
        )

        bulk_create_request.additional_properties = d
        return bulk_create_request

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
