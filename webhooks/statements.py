"""The two statements of a delivery attempt on PostgreSQL: claim-and-load, and record-a-success.

Every attempt claims its delivery and loads its subscription and event before sending, and most
attempts then record a success. Through the ORM that is seven round trips (an UPDATE, a SELECT
joining three tables, then BEGIN, three writes and COMMIT) plus query compilation, which at
hundreds of deliveries a second costs more than the statements themselves. On PostgreSQL each
step is one statement with data-modifying CTEs: atomic on its own, one round trip, no
compilation. Every value is a bound parameter. Other databases (SQLite in development), and
PostgreSQL with DB_FIXED_STATEMENTS off, take the ORM path in `services`; the tests check that
both paths leave the same rows.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any

from django.db import connection

from config import jobs
from config.db import loaded, run
from webhooks.models import Delivery, DeliveryState, Event, Subscription

# The claim is `config.jobs.claim` written out (its ORM twin is `services._claim_with_orm`'s).
_CLAIMED = jobs.claim_sql(
    Delivery,
    from_state=DeliveryState.PENDING,
    to_state=DeliveryState.SENDING,
    due_field="next_attempt_at",
    changes={"claimed_at": "%(now)s", "attempts": "attempts + 1"},
    returning=("id", "attempts", "subscription_id", "event_id"),
)
_CLAIM_SQL = f"""
WITH claimed AS ({_CLAIMED})
SELECT claimed.id, claimed.attempts, s.id, s.url, s.secret, s.previous_secret, s.previous_secret_expires_at,
    s.disabled_at, s.circuit_open_until, s.circuit_opens, e.id, e.team_id, e.type, e.created_at, e.data
FROM claimed
JOIN webhooks_subscription s ON s.id = claimed.subscription_id
JOIN webhooks_event e ON e.id = claimed.event_id
"""  # noqa: S608 - the states are constants, values bound
_SUBSCRIPTION_FIELDS = (
    "id",
    "url",
    "secret",
    "previous_secret",
    "previous_secret_expires_at",
    "disabled_at",
    "circuit_open_until",
    "circuit_opens",
)
_EVENT_FIELDS = ("id", "team", "type", "created_at", "data")

_SUCCESS_SQL = """
WITH attempt AS (
    INSERT INTO webhooks_deliveryattempt
        (id, created_at, updated_at, delivery_id, number, status_code, error, duration_ms)
    VALUES (%(attempt_id)s, %(now)s, %(now)s, %(delivery_id)s, %(number)s, %(status)s, '', %(duration_ms)s)
), health AS (
    UPDATE webhooks_subscription
    SET last_success_at = %(now)s, consecutive_failures = 0, failed_deliveries_in_row = 0,
        consecutive_timeouts = 0, circuit_open_until = NULL, circuit_opens = 0
    WHERE id = %(subscription_id)s
)
UPDATE webhooks_delivery
SET state = %(succeeded)s, delivered_at = %(now)s, next_attempt_at = NULL, last_status_code = %(status)s,
    last_error = '', last_duration_ms = %(duration_ms)s
WHERE id = %(delivery_id)s
"""


_EVENT_SQL = """
WITH event AS (
    INSERT INTO webhooks_event (id, created_at, updated_at, team_id, type, data)
    VALUES (%(id)s, %(now)s, %(now)s, %(team_id)s, %(type)s, %(data)s)
)
SELECT id, events FROM webhooks_subscription WHERE team_id = %(team_id)s AND disabled_at IS NULL
"""


def record_event(event: Event) -> list[tuple[Any, list[str]]]:
    """Insert the event (id and times set) and return the team's enabled subscriptions as
    (id, event types), in one statement."""
    params: dict[str, Any] = {
        "id": event.pk,
        "now": event.created_at,
        "team_id": event.team_id,
        "type": event.type,
        "data": Event._meta.get_field("data").get_db_prep_value(event.data, connection),
    }
    rows = run(_EVENT_SQL, params)
    return [(pk, json.loads(types) if isinstance(types, str) else types) for pk, types in rows]


def claim(delivery_id: str, now: dt.datetime) -> Delivery | None:
    """Claim the delivery if it is pending and due (the one gate against sending it twice) and
    return it with its subscription and event; None when it is not claimable."""
    found = run(_CLAIM_SQL, {"pk": delivery_id, "now": now})
    return _claimed(found[0]) if found else None


def _claimed(row: Sequence[Any]) -> Delivery:
    subscription = loaded(Subscription, _SUBSCRIPTION_FIELDS, row[2:10])
    event = loaded(Event, _EVENT_FIELDS, row[10:15])
    delivery = loaded(
        Delivery,
        ("id", "attempts", "state", "subscription", "event"),
        (row[0], row[1], DeliveryState.SENDING.value, subscription.pk, event.pk),
    )
    delivery.subscription, delivery.event = subscription, event
    return delivery


def record_success(delivery: Delivery, attempt_id: Any, status: int, duration_ms: int, now: dt.datetime) -> None:
    """Log the attempt, mark the delivery succeeded and reset the subscription's failure counts
    (closing its circuit)."""
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
    run(_SUCCESS_SQL, params)
