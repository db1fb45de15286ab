"""The two statements of a delivery attempt on PostgreSQL: claim-and-load, and record-a-success.

Every attempt claims its delivery and loads its subscription and event before sending, and most
attempts then record a success. Through the ORM that is seven round trips (an UPDATE, a SELECT
joining three tables, then BEGIN, three writes and COMMIT) plus query compilation, which at
hundreds of deliveries a second costs more than the statements themselves. On PostgreSQL each
step is one statement with data-modifying CTEs: atomic on its own, one round trip, no
compilation. Every value is a bound parameter. Other databases (SQLite in development) take
the ORM path in `services`; the tests check that both paths leave the same rows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, TypeVar

from django.db import connection, models

from webhooks.models import Delivery, DeliveryState, Event, Subscription

M = TypeVar("M", bound=models.Model)

_CLAIM_SQL = """
WITH claimed AS (
    UPDATE webhooks_delivery
    SET state = %(sending)s, claimed_at = %(now)s, attempts = attempts + 1
    WHERE id = %(delivery_id)s AND state = %(pending)s AND next_attempt_at <= %(now)s
    RETURNING id, attempts, subscription_id, event_id
)
SELECT claimed.id, claimed.attempts, s.id, s.url, s.secret, s.disabled_at, e.id, e.team_id, e.type, e.created_at,
    e.data
FROM claimed
JOIN webhooks_subscription s ON s.id = claimed.subscription_id
JOIN webhooks_event e ON e.id = claimed.event_id
"""
_SUBSCRIPTION_FIELDS = ("id", "url", "secret", "disabled_at")
_EVENT_FIELDS = ("id", "team", "type", "created_at", "data")

_SUCCESS_SQL = """
WITH attempt AS (
    INSERT INTO webhooks_deliveryattempt
        (id, created_at, updated_at, delivery_id, number, status_code, error, duration_ms)
    VALUES (%(attempt_id)s, %(now)s, %(now)s, %(delivery_id)s, %(number)s, %(status)s, '', %(duration_ms)s)
), health AS (
    UPDATE webhooks_subscription
    SET last_success_at = %(now)s, consecutive_failures = 0, failed_deliveries_in_row = 0
    WHERE id = %(subscription_id)s
)
UPDATE webhooks_delivery
SET state = %(succeeded)s, delivered_at = %(now)s, next_attempt_at = NULL, last_status_code = %(status)s,
    last_error = '', last_duration_ms = %(duration_ms)s
WHERE id = %(delivery_id)s
"""


def claim(delivery_id: str, now: dt.datetime) -> Delivery | None:
    """Claim the delivery if it is pending and due (the one gate against sending it twice) and
    return it with its subscription and event; None when it is not claimable."""
    params: dict[str, Any] = {
        "delivery_id": delivery_id,
        "now": now,
        "sending": DeliveryState.SENDING.value,
        "pending": DeliveryState.PENDING.value,
    }
    with connection.cursor() as cursor:
        cursor.execute(_CLAIM_SQL, params)
        row = cursor.fetchone()
    return None if row is None else _claimed(row)


def _claimed(row: Sequence[Any]) -> Delivery:
    subscription = _loaded(Subscription, _SUBSCRIPTION_FIELDS, row[2:6])
    event = _loaded(Event, _EVENT_FIELDS, row[6:11])
    delivery = _loaded(
        Delivery,
        ("id", "attempts", "state", "subscription", "event"),
        (row[0], row[1], DeliveryState.SENDING.value, subscription.pk, event.pk),
    )
    delivery.subscription, delivery.event = subscription, event
    return delivery


def _loaded(model: type[M], names: Sequence[str], values: Sequence[Any]) -> M:
    """An instance as the ORM loads one: each field's from_db_value applied (the secret is
    decrypted, JSON parsed); fields not selected are deferred, so reading one loads it."""
    by_name = {_concrete_field(model, name).attname: value for name, value in zip(names, values, strict=True)}
    fields = [field for field in model._meta.concrete_fields if field.attname in by_name]  # from_db wants this order
    converted = [
        field.from_db_value(by_name[field.attname], None, connection)
        if hasattr(field, "from_db_value")
        else by_name[field.attname]
        for field in fields
    ]
    return model.from_db(connection.alias, [field.attname for field in fields], converted)


def _concrete_field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field):
        raise TypeError(f"{model.__name__}.{name} is not a column")
    return field


def record_success(delivery: Delivery, attempt_id: Any, status: int, duration_ms: int, now: dt.datetime) -> None:
    """Log the attempt, mark the delivery succeeded and reset the subscription's failure counts."""
    params: dict[str, Any] = {
        "attempt_id": attempt_id,
        "now": now,
        "delivery_id": delivery.pk,
        "number": delivery.attempts,
        "status": status,
        "duration_ms": duration_ms,
        "subscription_id": delivery.subscription_id,
        "succeeded": DeliveryState.SUCCEEDED.value,
    }
    with connection.cursor() as cursor:
        cursor.execute(_SUCCESS_SQL, params)
