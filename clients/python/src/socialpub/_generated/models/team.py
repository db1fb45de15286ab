from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Team")


@_attrs_define
class Team:
    """
    Attributes:
        id (UUID):
        name (str):
        is_default (bool): The owner's selected default team, protected from deletion.
        time_zone (str): IANA name of the zone the dashboard shows the team's times in (set there). Every time the API
            reads or answers is UTC whatever it is.
        plan (str):
        created_at (datetime.datetime):
        approval_required (bool | Unset): Publishes from members wait for an owner or admin to approve them.
    """

    id: UUID
    name: str
    is_default: bool
    time_zone: str
    plan: str
    created_at: datetime.datetime
    approval_required: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        name = self.name

        is_default = self.is_default

        time_zone = self.time_zone

        plan = self.plan

        created_at = self.created_at.isoformat()

        approval_required = self.approval_required

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "is_default": is_default,
                "time_zone": time_zone,
                "plan": plan,
                "created_at": created_at,
            }
        )
        if approval_required is not UNSET:
            field_dict["approval_required"] = approval_required

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        name = d.pop("name")

        is_default = d.pop("is_default")

        time_zone = d.pop("time_zone")

        plan = d.pop("plan")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        approval_required = d.pop("approval_required", UNSET)

        team = cls(
            id=id,
            name=name,
            is_default=is_default,
            time_zone=time_zone,
            plan=plan,
            created_at=created_at,
            approval_required=approval_required,
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
