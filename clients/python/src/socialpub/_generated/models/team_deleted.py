from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.team_deleted_moved import TeamDeletedMoved
    from ..models.team_deleted_removed import TeamDeletedRemoved


T = TypeVar("T", bound="TeamDeleted")


@_attrs_define
class TeamDeleted:
    """
    Attributes:
        deleted_team_id (UUID):
        destination_team_id (UUID):
        moved (TeamDeletedMoved):
        removed (TeamDeletedRemoved):
        revoked_keys (int): User keys whose active team was the deleted team, the calling key included.
    """

    deleted_team_id: UUID
    destination_team_id: UUID
    moved: TeamDeletedMoved
    removed: TeamDeletedRemoved
    revoked_keys: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        deleted_team_id = str(self.deleted_team_id)

        destination_team_id = str(self.destination_team_id)

        moved = self.moved.to_dict()

        removed = self.removed.to_dict()

        revoked_keys = self.revoked_keys

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "deleted_team_id": deleted_team_id,
                "destination_team_id": destination_team_id,
                "moved": moved,
                "removed": removed,
                "revoked_keys": revoked_keys,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.team_deleted_moved import TeamDeletedMoved
        from ..models.team_deleted_removed import TeamDeletedRemoved

        d = dict(src_dict)
        deleted_team_id = UUID(d.pop("deleted_team_id"))

        destination_team_id = UUID(d.pop("destination_team_id"))

        moved = TeamDeletedMoved.from_dict(d.pop("moved"))

        removed = TeamDeletedRemoved.from_dict(d.pop("removed"))

        revoked_keys = d.pop("revoked_keys")

        team_deleted = cls(
            deleted_team_id=deleted_team_id,
            destination_team_id=destination_team_id,
            moved=moved,
            removed=removed,
            revoked_keys=revoked_keys,
        )

        team_deleted.additional_properties = d
        return team_deleted

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
