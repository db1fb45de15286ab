"""Small steps the webhook tests share. They call the services as production code does."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils import timezone

from teams.models import Team
from webhooks import services, signing
from webhooks.models import Delivery, Event, Subscription

DEFAULT_DELAYS = [60, 300, 1800, 7200, 43200]  # spec §6: 1 min, 5 min, 30 min, 2 h, 12 h
PUBLISHED = "post.published"


def subscribe(team: Team, url: str, events: Iterable[str] = (PUBLISHED,), **kwargs: Any) -> Subscription:
    return services.subscription_create(team=team, url=url, events=list(events), **kwargs)


def emit(team: Team, event_type: str = PUBLISHED, data: dict[str, Any] | None = None) -> Event:
    """Emit inside a transaction. In a `django_db` test its on_commit callback never runs (the
    test's transaction never commits): a lost queue message, unless the test captures it."""
    with transaction.atomic():
        return services.emit(team=team, event_type=event_type, data=data or {"publish_id": "p-1"})


def delivery_of(event: Event, subscription: Subscription | None = None) -> Delivery:
    deliveries = Delivery.objects.filter(event=event)
    if subscription is not None:
        deliveries = deliveries.filter(subscription=subscription)
    return deliveries.get()


def attempt(delivery: Delivery) -> Delivery:
    services.delivery_attempt(delivery_id=str(delivery.pk))
    return Delivery.objects.get(pk=delivery.pk)


def make_due(delivery: Delivery) -> None:
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now() - dt.timedelta(seconds=1))


def exhaust(delivery: Delivery) -> Delivery:
    """Every remaining attempt, back to back (with WEBHOOK_RETRY_DELAYS at zero)."""
    for _ in range(services.MAX_ATTEMPTS):
        services.delivery_attempt(delivery_id=str(delivery.pk))
    return Delivery.objects.get(pk=delivery.pk)


def due_deliveries(team: Team, count: int, **fields: Any) -> list[Delivery]:
    """`count` deliveries of one new subscription, each of its own event, written in bulk and
    due a second ago unless `fields` say otherwise; nothing is queued."""
    subscription = Subscription.objects.create(
        team=team, url="https://hooks.example/in", events=[PUBLISHED], secret=signing.new_secret()
    )
    events = Event.objects.bulk_create(Event(team=team, type=PUBLISHED) for _ in range(count))
    due = timezone.now() - dt.timedelta(seconds=1)
    return Delivery.objects.bulk_create(
        Delivery(subscription=subscription, event=event, **{"next_attempt_at": due, **fields}) for event in events
    )
