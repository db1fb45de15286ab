from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DeliveryAttempt")


@_attrs_define
class DeliveryAttempt:
    """
    Attributes:
        number (int):
        status_code (int | None):
        error (str):
        duration_ms (int):
        attempted_at (datetime.datetime):
    """

    number: int
    status_code: int | None
    error: str
    duration_ms: int
    attempted_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        number = self.number

        status_code: int | None
        status_code = self.status_code

        error = self.error

        duration_ms = self.duration_ms

        attempted_at = self.attempted_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "number": number,
                "status_code": status_code,
                "error": error,
                "duration_ms": duration_ms,
                "attempted_at": attempted_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        number = d.pop("number")

        def _parse_status_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        status_code = _parse_status_code(d.pop("status_code"))

        error = d.pop("error")

        duration_ms = d.pop("duration_ms")

        attempted_at = datetime.datetime.fromisoformat(d.pop("attempted_at"))

        delivery_attempt = cls(
            number=number,
            status_code=status_code,
            error=error,
            duration_ms=duration_ms,
            attempted_at=attempted_at,
        )

        delivery_attempt.additional_properties = d
        return delivery_attempt

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
