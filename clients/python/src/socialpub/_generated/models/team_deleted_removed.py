from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TeamDeletedRemoved")


@_attrs_define
class TeamDeletedRemoved:
    """
    Attributes:
        team_keys (int): Team keys of the deleted team.
        webhooks (int):
        memberships (int):
    """

    team_keys: int
    webhooks: int
    memberships: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        team_keys = self.team_keys

        webhooks = self.webhooks

        memberships = self.memberships

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "team_keys": team_keys,
                "webhooks": webhooks,
                "memberships": memberships,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        team_keys = d.pop("team_keys")

        webhooks = d.pop("webhooks")

        memberships = d.pop("memberships")

        team_deleted_removed = cls(
            team_keys=team_keys,
            webhooks=webhooks,
            memberships=memberships,
        )

        team_deleted_removed.additional_properties = d
        return team_deleted_removed

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
