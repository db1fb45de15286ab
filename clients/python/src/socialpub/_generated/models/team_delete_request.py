from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TeamDeleteRequest")


@_attrs_define
class TeamDeleteRequest:
    """
    Attributes:
        destination_team_id (UUID): Another team you own; it receives the content.
        confirmation_name (str): The name of the team being deleted, exactly (case and spaces count).
    """

    destination_team_id: UUID
    confirmation_name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        destination_team_id = str(self.destination_team_id)

        confirmation_name = self.confirmation_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "destination_team_id": destination_team_id,
                "confirmation_name": confirmation_name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        destination_team_id = UUID(d.pop("destination_team_id"))

        confirmation_name = d.pop("confirmation_name")

        team_delete_request = cls(
            destination_team_id=destination_team_id,
            confirmation_name=confirmation_name,
        )

        team_delete_request.additional_properties = d
        return team_delete_request

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
