from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.weekday_enum import WeekdayEnum

T = TypeVar("T", bound="ScheduleSlot")


@_attrs_define
class ScheduleSlot:
    """
    Attributes:
        day (WeekdayEnum): * `mon` - mon
            * `tue` - tue
            * `wed` - wed
            * `thu` - thu
            * `fri` - fri
            * `sat` - sat
            * `sun` - sun
        time (str): Wall-clock time in the schedule's zone, `HH:MM` (00:00 to 23:59).
    """

    day: WeekdayEnum
    time: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        day = self.day.value

        time = self.time

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "day": day,
                "time": time,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        day = WeekdayEnum(d.pop("day"))

        time = d.pop("time")

        schedule_slot = cls(
            day=day,
            time=time,
        )

        schedule_slot.additional_properties = d
        return schedule_slot

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
