from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.schedule_slot import ScheduleSlot


T = TypeVar("T", bound="PostingSchedule")


@_attrs_define
class PostingSchedule:
    """
    Attributes:
        timezone (str): IANA time zone name of the slots.
        slots (list[ScheduleSlot]): The weekly slots, Monday first, then by time.
        next_free_slots (list[datetime.datetime]): The next 10 slot instants (UTC) not taken by a scheduled publish to
            this account. A slot the clocks skip that day (daylight saving time) is left out; a repeated one counts once.
    """

    timezone: str
    slots: list[ScheduleSlot]
    next_free_slots: list[datetime.datetime]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        timezone = self.timezone

        slots = []
        for slots_item_data in self.slots:
            slots_item = slots_item_data.to_dict()
            slots.append(slots_item)

        next_free_slots = []
        for next_free_slots_item_data in self.next_free_slots:
            next_free_slots_item = next_free_slots_item_data.isoformat()
            next_free_slots.append(next_free_slots_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "timezone": timezone,
                "slots": slots,
                "next_free_slots": next_free_slots,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.schedule_slot import ScheduleSlot

        d = dict(src_dict)
        timezone = d.pop("timezone")

        slots = []
        _slots = d.pop("slots")
        for slots_item_data in _slots:
            slots_item = ScheduleSlot.from_dict(slots_item_data)

            slots.append(slots_item)

        next_free_slots = []
        _next_free_slots = d.pop("next_free_slots")
        for next_free_slots_item_data in _next_free_slots:
            next_free_slots_item = datetime.datetime.fromisoformat(
                next_free_slots_item_data
            )

            next_free_slots.append(next_free_slots_item)

        posting_schedule = cls(
            timezone=timezone,
            slots=slots,
            next_free_slots=next_free_slots,
        )

        posting_schedule.additional_properties = d
        return posting_schedule

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
