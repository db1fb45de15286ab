from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.schedule_slot_request import ScheduleSlotRequest


T = TypeVar("T", bound="PostingScheduleInputRequest")


@_attrs_define
class PostingScheduleInputRequest:
    """
    Attributes:
        timezone (str): IANA time zone name, e.g. `Europe/Paris`.
        slots (list[ScheduleSlotRequest]): The weekly slots, at most 168; duplicates are dropped; an empty list clears
            them.
    """

    timezone: str
    slots: list[ScheduleSlotRequest]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        timezone = self.timezone

        slots = []
        for slots_item_data in self.slots:
            slots_item = slots_item_data.to_dict()
            slots.append(slots_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "timezone": timezone,
                "slots": slots,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.schedule_slot_request import ScheduleSlotRequest

        d = dict(src_dict)
        timezone = d.pop("timezone")

        slots = []
        _slots = d.pop("slots")
        for slots_item_data in _slots:
            slots_item = ScheduleSlotRequest.from_dict(slots_item_data)

            slots.append(slots_item)

        posting_schedule_input_request = cls(
            timezone=timezone,
            slots=slots,
        )

        posting_schedule_input_request.additional_properties = d
        return posting_schedule_input_request

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
