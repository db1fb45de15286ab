from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TeamDeletedMoved")


@_attrs_define
class TeamDeletedMoved:
    """
    Attributes:
        accounts (int): Accounts now in the destination team.
        merged_accounts (int): Accounts the destination already had: folded into its account.
        publishes (int): Publishes, with targets and schedules.
        media (int):
    """

    accounts: int
    merged_accounts: int
    publishes: int
    media: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        accounts = self.accounts

        merged_accounts = self.merged_accounts

        publishes = self.publishes

        media = self.media

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "accounts": accounts,
                "merged_accounts": merged_accounts,
                "publishes": publishes,
                "media": media,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        accounts = d.pop("accounts")

        merged_accounts = d.pop("merged_accounts")

        publishes = d.pop("publishes")

        media = d.pop("media")

        team_deleted_moved = cls(
            accounts=accounts,
            merged_accounts=merged_accounts,
            publishes=publishes,
            media=media,
        )

        team_deleted_moved.additional_properties = d
        return team_deleted_moved

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
