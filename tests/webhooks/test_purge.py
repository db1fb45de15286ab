"""The delivery history is kept WEBHOOK_DELIVERY_RETENTION_SECONDS (30 days), then purged:
final deliveries with their attempt logs, and events none of whose deliveries is left. What is
still being delivered stays, however old."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from tests.webhooks.helpers import attempt, delivery_of, emit, subscribe
from webhooks import services, tasks
from webhooks.models import Delivery, DeliveryAttempt, Event

pytestmark = pytest.mark.django_db


def _age(event: Event, days: float) -> None:
    then = timezone.now() - dt.timedelta(days=days)
    Event.objects.filter(pk=event.pk).update(created_at=then)
    Delivery.objects.filter(event=event).update(created_at=then)


def test_old_final_deliveries_go_with_their_attempts_and_events(owner, receiver):
    subscribe(owner.team, receiver.url)
    old, recent = emit(owner.team), emit(owner.team)
    attempt(delivery_of(old))
    attempt(delivery_of(recent))
    _age(old, days=31)
    _age(recent, days=29)

    assert tasks.purge_deliveries() == 2  # the old delivery, then its event

    assert not Event.objects.filter(pk=old.pk).exists()
    assert not DeliveryAttempt.objects.filter(delivery__event=old).exists()
    assert delivery_of(recent).state == "succeeded"


def test_a_delivery_still_retrying_is_kept_with_its_event(owner, down_receiver):
    subscribe(owner.team, down_receiver.url)
    event = emit(owner.team)
    assert attempt(delivery_of(event)).state == "pending"  # the receiver refused: a retry is due later
    _age(event, days=45)

    assert services.deliveries_purge() == 0

    assert delivery_of(event).attempts == 1


def test_events_no_subscription_matched_are_purged_too(owner, settings):
    settings.WEBHOOK_DELIVERY_RETENTION_SECONDS = 3600
    unsent = emit(owner.team)  # no subscription: no delivery
    _age(unsent, days=1)

    assert services.deliveries_purge() == 1
    assert not Event.objects.filter(pk=unsent.pk).exists()
