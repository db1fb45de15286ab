from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.webhook_delivery_status_enum import WebhookDeliveryStatusEnum
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.delivery_attempt import DeliveryAttempt
    from ..models.webhook_delivery_detail_payload import WebhookDeliveryDetailPayload


T = TypeVar("T", bound="WebhookDeliveryDetail")


@_attrs_define
class WebhookDeliveryDetail:
    """One event's delivery to the webhook, as its latest attempt left it.

    Attributes:
        id (UUID):
        webhook_id (UUID):
        event_id (UUID):
        event_type (str):
        status (WebhookDeliveryStatusEnum): * `pending` - Pending
            * `sending` - Sending
            * `succeeded` - Succeeded
            * `failed` - Failed
            * `cancelled` - Cancelled
        attempt (int): Attempts made so far (a redelivery starts a new series at 1).
        response_status_code (int | None): The receiver's HTTP status at the latest attempt.
        duration_ms (int | None):
        error (str): Why the latest attempt failed; empty otherwise.
        created_at (datetime.datetime):
        attempts (list[DeliveryAttempt]): Every attempt, oldest first.
        payload (WebhookDeliveryDetailPayload): The event exactly as it is sent (before signing).
        next_attempt_at (datetime.datetime | None | Unset):
        delivered_at (datetime.datetime | None | Unset):
    """

    id: UUID
    webhook_id: UUID
    event_id: UUID
    event_type: str
    status: WebhookDeliveryStatusEnum
    attempt: int
    response_status_code: int | None
    duration_ms: int | None
    error: str
    created_at: datetime.datetime
    attempts: list[DeliveryAttempt]
    payload: WebhookDeliveryDetailPayload
    next_attempt_at: datetime.datetime | None | Unset = UNSET
    delivered_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        webhook_id = str(self.webhook_id)

        event_id = str(self.event_id)

        event_type = self.event_type

        status = self.status.value

        attempt = self.attempt

        response_status_code: int | None
        response_status_code = self.response_status_code

        duration_ms: int | None
        duration_ms = self.duration_ms

        error = self.error

        created_at = self.created_at.isoformat()

        attempts = []
        for attempts_item_data in self.attempts:
            attempts_item = attempts_item_data.to_dict()
            attempts.append(attempts_item)

        payload = self.payload.to_dict()

        next_attempt_at: None | str | Unset
        if isinstance(self.next_attempt_at, Unset):
            next_attempt_at = UNSET
        elif isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        delivered_at: None | str | Unset
        if isinstance(self.delivered_at, Unset):
            delivered_at = UNSET
        elif isinstance(self.delivered_at, datetime.datetime):
            delivered_at = self.delivered_at.isoformat()
        else:
            delivered_at = self.delivered_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "webhook_id": webhook_id,
                "event_id": event_id,
                "event_type": event_type,
                "status": status,
                "attempt": attempt,
                "response_status_code": response_status_code,
                "duration_ms": duration_ms,
                "error": error,
                "created_at": created_at,
                "attempts": attempts,
                "payload": payload,
            }
        )
        if next_attempt_at is not UNSET:
            field_dict["next_attempt_at"] = next_attempt_at
        if delivered_at is not UNSET:
            field_dict["delivered_at"] = delivered_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.delivery_attempt import DeliveryAttempt
        from ..models.webhook_delivery_detail_payload import (
            WebhookDeliveryDetailPayload,
        )

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        webhook_id = UUID(d.pop("webhook_id"))

        event_id = UUID(d.pop("event_id"))

        event_type = d.pop("event_type")

        status = WebhookDeliveryStatusEnum(d.pop("status"))

        attempt = d.pop("attempt")

        def _parse_response_status_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        response_status_code = _parse_response_status_code(
            d.pop("response_status_code")
        )

        def _parse_duration_ms(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        duration_ms = _parse_duration_ms(d.pop("duration_ms"))

        error = d.pop("error")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        attempts = []
        _attempts = d.pop("attempts")
        for attempts_item_data in _attempts:
            attempts_item = DeliveryAttempt.from_dict(attempts_item_data)

            attempts.append(attempts_item)

        payload = WebhookDeliveryDetailPayload.from_dict(d.pop("payload"))

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at", UNSET))

        def _parse_delivered_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                delivered_at_type_0 = datetime.datetime.fromisoformat(data)

                return delivered_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        delivered_at = _parse_delivered_at(d.pop("delivered_at", UNSET))

        webhook_delivery_detail = cls(
            id=id,
            webhook_id=webhook_id,
            event_id=event_id,
            event_type=event_type,
            status=status,
            attempt=attempt,
            response_status_code=response_status_code,
            duration_ms=duration_ms,
            error=error,
            created_at=created_at,
            attempts=attempts,
            payload=payload,
            next_attempt_at=next_attempt_at,
            delivered_at=delivered_at,
        )

        webhook_delivery_detail.additional_properties = d
        return webhook_delivery_detail

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
