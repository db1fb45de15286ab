from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.account import Account


T = TypeVar("T", bound="AccountDisconnectedResponse")


@_attrs_define
class AccountDisconnectedResponse:
    """
    Attributes:
        data (Account):
        already_disconnected (bool): True when it was disconnected before.
        token_revoked (bool | None): True when the platform confirmed the token revoked; false when it has no call for
            it or refused (the account is disconnected here either way); null when there was no token to revoke.
    """

    data: Account
    already_disconnected: bool
    token_revoked: bool | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data.to_dict()

        already_disconnected = self.already_disconnected

        token_revoked: bool | None
        token_revoked = self.token_revoked

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "already_disconnected": already_disconnected,
                "token_revoked": token_revoked,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.account import Account

        d = dict(src_dict)
        data = Account.from_dict(d.pop("data"))

        already_disconnected = d.pop("already_disconnected")

        def _parse_token_revoked(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        token_revoked = _parse_token_revoked(d.pop("token_revoked"))

        account_disconnected_response = cls(
            data=data,
            already_disconnected=already_disconnected,
            token_revoked=token_revoked,
        )

        account_disconnected_response.additional_properties = d
        return account_disconnected_response

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
