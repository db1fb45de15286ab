from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.connect_link_status_enum import ConnectLinkStatusEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.branding import Branding
    from ..models.link_account import LinkAccount


T = TypeVar("T", bound="ConnectLink")


@_attrs_define
class ConnectLink:
    """
    Attributes:
        id (UUID):
        url (str): The page to send your customer to. Needs no login.
        status (ConnectLinkStatusEnum):
        redirect_url (str): Where the browser goes after each connection.
        expires_at (datetime.datetime):
        branding (Branding | None):
        accounts (list[LinkAccount]): Accounts connected through the link, oldest first.
        created_at (datetime.datetime):
        platforms (Any | Unset): The platforms the page offers, in this order.
        revoked_at (datetime.datetime | None | Unset):
    """

    id: UUID
    url: str
    status: ConnectLinkStatusEnum
    redirect_url: str
    expires_at: datetime.datetime
    branding: Branding | None
    accounts: list[LinkAccount]
    created_at: datetime.datetime
    platforms: Any | Unset = UNSET
    revoked_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.branding import Branding

        id = str(self.id)

        url = self.url

        status = self.status.value

        redirect_url = self.redirect_url

        expires_at = self.expires_at.isoformat()

        branding: dict[str, Any] | None
        if isinstance(self.branding, Branding):
            branding = self.branding.to_dict()
        else:
            branding = self.branding

        accounts = []
        for accounts_item_data in self.accounts:
            accounts_item = accounts_item_data.to_dict()
            accounts.append(accounts_item)

        created_at = self.created_at.isoformat()

        platforms = self.platforms

        revoked_at: None | str | Unset
        if isinstance(self.revoked_at, Unset):
            revoked_at = UNSET
        elif isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "url": url,
                "status": status,
                "redirect_url": redirect_url,
                "expires_at": expires_at,
                "branding": branding,
                "accounts": accounts,
                "created_at": created_at,
            }
        )
        if platforms is not UNSET:
            field_dict["platforms"] = platforms
        if revoked_at is not UNSET:
            field_dict["revoked_at"] = revoked_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.branding import Branding
        from ..models.link_account import LinkAccount

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        url = d.pop("url")

        status = ConnectLinkStatusEnum(d.pop("status"))

        redirect_url = d.pop("redirect_url")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        def _parse_branding(data: object) -> Branding | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                branding_type_1 = Branding.from_dict(data)

                return branding_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Branding | None, data)

        branding = _parse_branding(d.pop("branding"))

        accounts = []
        _accounts = d.pop("accounts")
        for accounts_item_data in _accounts:
            accounts_item = LinkAccount.from_dict(accounts_item_data)

            accounts.append(accounts_item)

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        platforms = d.pop("platforms", UNSET)

        def _parse_revoked_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revoked_at_type_0 = datetime.datetime.fromisoformat(data)

                return revoked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        revoked_at = _parse_revoked_at(d.pop("revoked_at", UNSET))

        connect_link = cls(
            id=id,
            url=url,
            status=status,
            redirect_url=redirect_url,
            expires_at=expires_at,
            branding=branding,
            accounts=accounts,
            created_at=created_at,
            platforms=platforms,
            revoked_at=revoked_at,
        )

        connect_link.additional_properties = d
        return connect_link

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
