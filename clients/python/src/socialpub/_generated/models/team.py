from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Team")


@_attrs_define
class Team:
    """
    Attributes:
        id (UUID):
        name (str):
        is_default (bool): The owner's selected default team, protected from deletion.
        approval_required (bool): Publishes from members wait for an owner or admin to approve them.
        block_duplicates (bool): Refuse (409 DUPLICATE_CONTENT) a post whose text an account already got within the
            window, instead of only warning.
        duplicate_window_hours (int): Hours before and after a post within which the same text to the same account is a
            duplicate.
        time_zone (str): IANA name of the zone the dashboard shows the team's times in (set there). Every time the API
            reads or answers is UTC whatever it is.
        plan (str):
        created_at (datetime.datetime):
    """

    id: UUID
    name: str
    is_default: bool
    approval_required: bool
    block_duplicates: bool
    duplicate_window_hours: int
    time_zone: str
    plan: str
    created_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        name = self.name

        is_default = self.is_default

        approval_required = self.approval_required

        block_duplicates = self.block_duplicates

        duplicate_window_hours = self.duplicate_window_hours

        time_zone = self.time_zone

        plan = self.plan

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "is_default": is_default,
                "approval_required": approval_required,
                "block_duplicates": block_duplicates,
                "duplicate_window_hours": duplicate_window_hours,
                "time_zone": time_zone,
                "plan": plan,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        name = d.pop("name")

        is_default = d.pop("is_default")

        approval_required = d.pop("approval_required")

        block_duplicates = d.pop("block_duplicates")

        duplicate_window_hours = d.pop("duplicate_window_hours")

        time_zone = d.pop("time_zone")

        plan = d.pop("plan")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        team = cls(
            id=id,
            name=name,
            is_default=is_default,
            approval_required=approval_required,
            block_duplicates=block_duplicates,
            duplicate_window_hours=duplicate_window_hours,
            time_zone=time_zone,
            plan=plan,
            created_at=created_at,
        )

        team.additional_properties = d
        return team

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
