from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.subscription_created_health import SubscriptionCreatedHealth


T = TypeVar("T", bound="SubscriptionCreated")


@_attrs_define
class SubscriptionCreated:
    """
    Attributes:
        id (UUID):
        url (str):
        disabled (bool): True once deliveries have stopped; see disabled_reason.
        health (SubscriptionCreatedHealth):
        circuit_open_until (datetime.datetime | None): Set while the webhook's circuit is open: its receiver timed out
            or refused connections on several attempts in a row, so its deliveries wait (pending, no attempt counted) until
            then, when one is tried as a probe. A success closes the circuit (null again) and the waiting deliveries go out;
            a failure opens it again, for twice as long.
        previous_secret_expires_at (datetime.datetime | None): After a secret rotation: until when the replaced secret
            still signs beside the new one; null when no replaced secret signs.
        created_at (datetime.datetime):
        secret (str): Shown once: store it to verify signatures.
        events (Any | Unset):
        disabled_at (datetime.datetime | None | Unset):
        disabled_reason (str | Unset):
    """

    id: UUID
    url: str
    disabled: bool
    health: SubscriptionCreatedHealth
    circuit_open_until: datetime.datetime | None
    previous_secret_expires_at: datetime.datetime | None
    created_at: datetime.datetime
    secret: str
    events: Any | Unset = UNSET
    disabled_at: datetime.datetime | None | Unset = UNSET
    disabled_reason: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        url = self.url

        disabled = self.disabled

        health = self.health.to_dict()

        circuit_open_until: None | str
        if isinstance(self.circuit_open_until, datetime.datetime):
            circuit_open_until = self.circuit_open_until.isoformat()
        else:
            circuit_open_until = self.circuit_open_until

        previous_secret_expires_at: None | str
        if isinstance(self.previous_secret_expires_at, datetime.datetime):
            previous_secret_expires_at = self.previous_secret_expires_at.isoformat()
        else:
            previous_secret_expires_at = self.previous_secret_expires_at

        created_at = self.created_at.isoformat()

        secret = self.secret

        events = self.events

        disabled_at: None | str | Unset
        if isinstance(self.disabled_at, Unset):
            disabled_at = UNSET
        elif isinstance(self.disabled_at, datetime.datetime):
            disabled_at = self.disabled_at.isoformat()
        else:
            disabled_at = self.disabled_at

        disabled_reason = self.disabled_reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "url": url,
                "disabled": disabled,
                "health": health,
                "circuit_open_until": circuit_open_until,
                "previous_secret_expires_at": previous_secret_expires_at,
                "created_at": created_at,
                "secret": secret,
            }
        )
        if events is not UNSET:
            field_dict["events"] = events
        if disabled_at is not UNSET:
            field_dict["disabled_at"] = disabled_at
        if disabled_reason is not UNSET:
            field_dict["disabled_reason"] = disabled_reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.subscription_created_health import SubscriptionCreatedHealth

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        url = d.pop("url")

        disabled = d.pop("disabled")

        health = SubscriptionCreatedHealth.from_dict(d.pop("health"))

        def _parse_circuit_open_until(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                circuit_open_until_type_0 = datetime.datetime.fromisoformat(data)

                return circuit_open_until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        circuit_open_until = _parse_circuit_open_until(d.pop("circuit_open_until"))

        def _parse_previous_secret_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                previous_secret_expires_at_type_0 = datetime.datetime.fromisoformat(
                    data
                )

                return previous_secret_expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        previous_secret_expires_at = _parse_previous_secret_expires_at(
            d.pop("previous_secret_expires_at")
        )

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        secret = d.pop("secret")

        events = d.pop("events", UNSET)

        def _parse_disabled_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                disabled_at_type_0 = datetime.datetime.fromisoformat(data)

                return disabled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        disabled_at = _parse_disabled_at(d.pop("disabled_at", UNSET))

        disabled_reason = d.pop("disabled_reason", UNSET)

        subscription_created = cls(
            id=id,
            url=url,
            disabled=disabled,
            health=health,
            circuit_open_until=circuit_open_until,
            previous_secret_expires_at=previous_secret_expires_at,
            created_at=created_at,
            secret=secret,
            events=events,
            disabled_at=disabled_at,
            disabled_reason=disabled_reason,
        )

        subscription_created.additional_properties = d
        return subscription_created

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
