"""When a subscription stops getting deliveries: 410 Gone at once, or 5 events in a row whose
every attempt failed. A success in between resets the count."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.webhooks.helpers import attempt, delivery_of, emit, exhaust, subscribe
from webhooks import services
from webhooks.models import Delivery, Subscription

pytestmark = pytest.mark.django_db


def _shown(api, owner):
    (shown,) = api.as_(owner.key).get("/api/v1/webhooks").json()["data"]
    return shown


def test_410_disables_at_once_and_cancels_its_other_pending_deliveries(api, owner, receiver):
    subscription = subscribe(owner.team, receiver.url)
    other = subscribe(owner.team, f"{receiver.base}/other")
    first, second = emit(owner.team), emit(owner.team)
    receiver.answer(410)

    gone = attempt(delivery_of(first, subscription))

    assert (gone.state, gone.attempts, gone.next_attempt_at, gone.last_status_code) == ("failed", 1, None, 410)
    assert delivery_of(second, subscription).state == "cancelled"
    assert delivery_of(second, subscription).next_attempt_at is None
    subscription.refresh_from_db()
    assert subscription.disabled_at is not None
    assert "410" in subscription.disabled_reason
    # The other subscription of the team is not touched.
    assert Subscription.objects.get(pk=other.pk).disabled_at is None
    assert delivery_of(second, other).state == "pending"


def test_a_disabled_subscription_gets_no_new_deliveries_and_nothing_more_is_sent(api, owner, receiver):
    subscription = subscribe(owner.team, receiver.url)
    pending = emit(owner.team)
    receiver.answer(410)
    attempt(delivery_of(emit(owner.team)))

    later = emit(owner.team)
    services.deliveries_sweep()
    services.delivery_attempt(delivery_id=str(delivery_of(pending).pk))

    assert not Delivery.objects.filter(event=later).exists()
    assert len(receiver.posts) == 1
    assert Delivery.objects.filter(subscription=subscription, state="cancelled").count() == 1


def test_the_api_shows_a_disabled_subscription_with_its_reason(api, owner, receiver):
    subscribe(owner.team, receiver.url)
    receiver.answer(410)
    attempt(delivery_of(emit(owner.team)))

    shown = _shown(api, owner)

    assert shown["disabled"] is True
    assert shown["disabled_at"] is not None
    assert "410" in shown["disabled_reason"]
    assert shown["health"]["last_failure_reason"] == "HTTP 410"


def test_a_retry_already_due_is_not_sent_once_the_subscription_is_disabled(owner, receiver, no_retry_delay):
    """A delivery that was in flight while the 410 came back (so it was not cancelled, and its
    failure put it back to pending) is cancelled at its next attempt, not sent."""
    subscription = subscribe(owner.team, receiver.url)
    receiver.answer(500, 410)
    retrying = attempt(delivery_of(emit(owner.team)))
    attempt(delivery_of(emit(owner.team)))  # 410: disables; `retrying` was pending, so cancelled
    Delivery.objects.filter(pk=retrying.pk).update(state="pending", next_attempt_at=timezone.now())

    services.delivery_attempt(delivery_id=str(retrying.pk))

    assert Subscription.objects.get(pk=subscription.pk).disabled_at is not None
    assert Delivery.objects.get(pk=retrying.pk).state == "cancelled"
    assert len(receiver.posts) == 2


def test_five_events_in_a_row_that_failed_every_attempt_disable_it(api, owner, receiver, no_retry_delay):
    subscription = subscribe(owner.team, receiver.url)
    receiver.always(500)

    for _ in range(services.DISABLE_AFTER_FAILED_DELIVERIES - 1):
        assert exhaust(delivery_of(emit(owner.team))).state == "failed"
    assert Subscription.objects.get(pk=subscription.pk).disabled_at is None
    assert _shown(api, owner)["disabled"] is False

    assert exhaust(delivery_of(emit(owner.team))).state == "failed"

    shown = _shown(api, owner)
    assert shown["disabled"] is True
    assert str(services.DISABLE_AFTER_FAILED_DELIVERIES) in shown["disabled_reason"]
    assert len(receiver.posts) == services.DISABLE_AFTER_FAILED_DELIVERIES * services.MAX_ATTEMPTS
    later = emit(owner.team)
    assert not Delivery.objects.filter(event=later).exists()


def test_a_success_in_between_resets_the_count(owner, receiver, no_retry_delay):
    subscription = subscribe(owner.team, receiver.url)

    for answer in [500] * 4 + [200] + [500] * 4:
        receiver.always(answer)
        exhaust(delivery_of(emit(owner.team)))

    subscription.refresh_from_db()
    assert subscription.disabled_at is None
    assert subscription.failed_deliveries_in_row == 4
    assert Delivery.objects.filter(state="failed").count() == 8
    assert Delivery.objects.filter(state="succeeded").count() == 1


def test_a_delivery_that_succeeds_on_a_retry_counts_as_a_success(owner, receiver, no_retry_delay):
    subscription = subscribe(owner.team, receiver.url)
    receiver.always(500)
    for _ in range(services.DISABLE_AFTER_FAILED_DELIVERIES - 1):
        exhaust(delivery_of(emit(owner.team)))

    receiver.answer(500, 500, 500, 500, 500, 200)  # the sixth and last attempt succeeds
    assert exhaust(delivery_of(emit(owner.team))).state == "succeeded"
    exhaust(delivery_of(emit(owner.team)))

    subscription.refresh_from_db()
    assert subscription.disabled_at is None
    assert subscription.failed_deliveries_in_row == 1
