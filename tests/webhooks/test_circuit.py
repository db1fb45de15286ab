"""The circuit breaker: after WEBHOOK_CIRCUIT_TIMEOUTS attempts in a row that time out or cannot
connect, a webhook's deliveries wait (pending, no attempt counted, nothing lost) until the
circuit half-opens; then one delivery is the probe: a success closes the circuit and the waiting
deliveries go out, a failure opens it again for twice as long. Connections are refused by a
real port that is not listening, then accepted by a real receiver on loopback."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connections
from django.utils import timezone

from tests.webhooks.helpers import attempt, delivery_of, emit, make_due, subscribe
from tests.webhooks.receiver import Answer
from webhooks import services
from webhooks.models import Delivery, DeliveryAttempt, Subscription

pytestmark = pytest.mark.django_db

MINUTE = dt.timedelta(seconds=60)


@pytest.fixture(autouse=True)
def _circuit(settings, no_retry_delay):
    settings.WEBHOOK_CIRCUIT_TIMEOUTS = 3
    settings.WEBHOOK_CIRCUIT_COOLDOWN_SECONDS = 60.0


def _refused(team, down_receiver, count):
    """`count` events, each attempted once against the receiver that refuses connections."""
    deliveries = [delivery_of(emit(team)) for _ in range(count)]
    return [attempt(delivery) for delivery in deliveries]


def _opened(owner, down_receiver):
    """A webhook whose circuit has just opened, with three deliveries failed once each."""
    subscription = subscribe(owner.team, down_receiver.url)
    before = timezone.now()
    failed = _refused(owner.team, down_receiver, 3)
    subscription.refresh_from_db()
    assert before + MINUTE <= subscription.circuit_open_until <= timezone.now() + MINUTE
    return subscription, failed


def _half_open(subscription):
    """The cool-down has passed (the clock is the one thing a test cannot wait for)."""
    Subscription.objects.filter(pk=subscription.pk).update(circuit_open_until=timezone.now() - dt.timedelta(seconds=1))


def test_the_circuit_opens_after_three_refused_connections_in_a_row(api, owner, down_receiver):
    subscription, failed = _opened(owner, down_receiver)

    assert [(d.state, d.attempts) for d in failed] == [("pending", 1)] * 3
    assert subscription.consecutive_timeouts == 3
    assert subscription.disabled_at is None
    shown = api.as_(owner.key).get(f"/api/v1/webhooks/{subscription.pk}").json()["data"]
    assert shown["circuit_open_until"] is not None
    assert shown["disabled"] is False


def test_while_open_due_deliveries_wait_without_an_attempt(owner, down_receiver):
    subscription, failed = _opened(owner, down_receiver)
    down_receiver.start()  # even a receiver back up is left alone until the circuit half-opens

    fresh = delivery_of(emit(owner.team))
    waited = [attempt(d) for d in [fresh, *failed]]  # the failed ones' retries are due (no delay)

    assert [(d.state, d.attempts) for d in waited] == [("pending", 0), ("pending", 1), ("pending", 1), ("pending", 1)]
    assert {d.next_attempt_at for d in waited} == {subscription.circuit_open_until}
    assert DeliveryAttempt.objects.filter(delivery__subscription=subscription).count() == 3
    assert down_receiver.posts == []
    assert services.deliveries_sweep() == []  # nothing is due before the circuit half-opens
    assert Subscription.objects.get(pk=subscription.pk).disabled_at is None


def test_a_successful_probe_closes_the_circuit_and_the_waiting_deliveries_go_out(owner, down_receiver):
    subscription, failed = _opened(owner, down_receiver)
    waiting = [attempt(delivery_of(emit(owner.team))) for _ in range(2)]
    down_receiver.start()

    _half_open(subscription)
    make_due(failed[0])
    attempt(failed[0])  # the probe: it succeeds, and the others are sent at once

    subscription.refresh_from_db()
    assert (subscription.circuit_open_until, subscription.circuit_opens, subscription.consecutive_timeouts) == (
        None,
        0,
        0,
    )
    assert Delivery.objects.get(pk=failed[0].pk).state == "succeeded"
    assert [Delivery.objects.get(pk=d.pk).state for d in waiting] == ["succeeded", "succeeded"]
    services.deliveries_sweep()  # the other two failed ones come due on their own schedule
    assert set(Delivery.objects.filter(subscription=subscription).values_list("state", flat=True)) == {"succeeded"}
    assert len(down_receiver.posts) == 5  # every event, once: nothing lost


def test_a_failed_probe_opens_the_circuit_again_for_twice_as_long(owner, down_receiver):
    subscription, failed = _opened(owner, down_receiver)
    waiting = attempt(delivery_of(emit(owner.team)))

    _half_open(subscription)
    make_due(failed[0])
    before = timezone.now()
    probe = attempt(failed[0])

    subscription.refresh_from_db()
    assert before + 2 * MINUTE <= subscription.circuit_open_until <= timezone.now() + 2 * MINUTE
    assert subscription.circuit_opens == 2
    assert (probe.state, probe.attempts) == ("pending", 2)
    assert (Delivery.objects.get(pk=waiting.pk).state, Delivery.objects.get(pk=waiting.pk).attempts) == (
        "pending",
        0,
    )


def test_an_answer_of_any_status_resets_the_count(owner, down_receiver):
    subscription = subscribe(owner.team, down_receiver.url)
    _refused(owner.team, down_receiver, 2)
    down_receiver.start()
    down_receiver.answer(Answer(500, close=True))
    assert attempt(delivery_of(emit(owner.team))).last_status_code == 500
    down_receiver.stop()
    _refused(owner.team, down_receiver, 2)

    subscription.refresh_from_db()
    assert (subscription.consecutive_timeouts, subscription.circuit_open_until) == (2, None)


@pytest.mark.django_db(transaction=True)
def test_only_one_delivery_is_the_probe(owner, down_receiver):
    subscription, failed = _opened(owner, down_receiver)
    down_receiver.start()
    _half_open(subscription)
    for delivery in failed:
        make_due(delivery)
    seen_during_probe = []

    def another_comes_due() -> None:  # in the receiver's thread, while the probe is in flight
        seen_during_probe.append(attempt(failed[1]))
        connections.close_all()

    down_receiver.answer(Answer(200, before=another_comes_due))
    attempt(failed[0])

    (other,) = seen_during_probe
    assert (other.state, other.attempts) == ("pending", 1)  # it waited: one request reached the receiver
    assert len(down_receiver.posts) == 2  # the probe, then the one that waited for it
    assert Delivery.objects.get(pk=failed[1].pk).state == "succeeded"
