from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.events_enum import EventsEnum
from ..types import UNSET, Unset

T = TypeVar("T", bound="SubscriptionCreateRequest")


@_attrs_define
class SubscriptionCreateRequest:
    """
    Attributes:
        url (str): https URL that receives POSTed events.
        events (list[EventsEnum]): The events to receive. Publishing: `post.published` (to all or some platforms),
            `post.failed`, `post.pending_approval`, `post.approved`, `post.rejected`, `post.removed` (a published post taken
            down by unpublish, or found gone from its platform), `post.at_risk` (a scheduled post's checks before its time
            found a problem). Accounts: `account.connected` (connected or re-authorized), `account.disconnected`,
            `account.expired` (a platform refused the token and it could not be renewed: re-authorize it),
            `account.expiring` (a token that cannot be renewed expires within 7 days; once per account per expiry).
        secret (str | Unset): Optional: your own `whsec_<base64 of 24-64 bytes>` secret. Generated when omitted.
    """

    url: str
    events: list[EventsEnum]
    secret: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        secret = self.secret

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "url": url,
                "events": events,
            }
        )
        if secret is not UNSET:
            field_dict["secret"] = secret

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        url = d.pop("url")

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = EventsEnum(events_item_data)

            events.append(events_item)

        secret = d.pop("secret", UNSET)

        subscription_create_request = cls(
            url=url,
            events=events,
            secret=secret,
        )

        subscription_create_request.additional_properties = d
        return subscription_create_request

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
