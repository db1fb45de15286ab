"""Deliveries reuse keep-alive connections per receiver: many deliveries over one connection, a
receiver that closes connections loses nothing and gets nothing twice unasked, and a pooled
connection never lets a delivery past the address policy. Also: the PostgreSQL statements of
the delivery path leave the same rows as the portable ORM path."""

from __future__ import annotations

import pytest
from django.db import connections

from tests.webhooks.helpers import attempt, delivery_of, emit, make_due, subscribe
from tests.webhooks.receiver import Answer
from webhooks import services
from webhooks.models import Delivery, DeliveryAttempt, Subscription

pytestmark = pytest.mark.django_db


def _pending(owner, url, count):
    subscribe(owner.team, url)
    return [delivery_of(emit(owner.team, data={"publish_id": f"p-{n}"})) for n in range(count)]


def test_deliveries_to_one_receiver_share_one_connection(owner, receiver):
    deliveries = _pending(owner, receiver.url, 5)

    states = [attempt(delivery).state for delivery in deliveries]

    assert states == ["succeeded"] * 5
    assert [post.connection for post in receiver.posts] == [1] * 5
    assert receiver.connections == 1
    assert "connection" not in receiver.posts[0].headers  # HTTP/1.1 keep-alive, not "close"


def test_a_receiver_that_closes_its_connection_loses_no_delivery(owner, receiver):
    first, second = _pending(owner, receiver.url, 2)
    receiver.answer(Answer(200, close=True))  # closes after answering, without a header saying so

    assert attempt(first).state == "succeeded"
    assert receiver.wait_closed()
    assert attempt(second).state == "succeeded"

    assert [post.connection for post in receiver.posts] == [1, 2]
    assert [post.headers["webhook-id"] for post in receiver.posts] == [str(first.event_id), str(second.event_id)]


def test_a_request_the_receiver_dropped_unanswered_is_sent_again_only_by_the_retry_schedule(owner, receiver):
    first, second = _pending(owner, receiver.url, 2)
    assert attempt(first).state == "succeeded"  # leaves a keep-alive connection in the pool
    receiver.answer(Answer(drop=True))  # reads the request, then closes without answering

    second = attempt(second)

    assert (second.state, second.attempts) == ("pending", 1)
    assert second.last_error.startswith("CONNECTION_FAILED")
    assert [post.headers["webhook-id"] for post in receiver.posts].count(str(second.event_id)) == 1

    make_due(second)
    second = attempt(second)

    assert (second.state, second.attempts) == ("succeeded", 2)
    assert [post.connection for post in receiver.posts] == [1, 1, 2]


def test_a_pooled_connection_does_not_outlive_the_address_policy(owner, receiver, settings):
    first, second = _pending(owner, receiver.url, 2)
    assert attempt(first).state == "succeeded"  # a connection to 127.0.0.1 is now pooled

    settings.SSRF_ALLOW_PRIVATE = False
    second = attempt(second)

    assert second.state == "pending"
    assert second.last_error.startswith("BLOCKED_ADDRESS")
    assert len(receiver.posts) == 1


@pytest.mark.django_db(transaction=True)
def test_a_subscription_deleted_while_a_successful_attempt_is_in_flight_ends_it_quietly(owner, receiver):
    subscription = subscribe(owner.team, receiver.url)
    receiver.answer(500)
    delivery = delivery_of(emit(owner.team))  # committed: its task ran at once, and got a 500

    def delete_it() -> None:  # the receiver's thread, while the attempt waits for the answer
        Subscription.objects.filter(pk=subscription.pk).delete()
        connections.close_all()

    receiver.answer(Answer(200, before=delete_it))
    make_due(delivery)
    services.delivery_attempt(delivery_id=str(delivery.pk))

    assert not Subscription.objects.exists()
    assert not Delivery.objects.exists()
    assert not DeliveryAttempt.objects.exists()
    assert len(receiver.posts) == 2


def _outcome(delivery):
    delivery = Delivery.objects.get(pk=delivery.pk)
    attempts = list(DeliveryAttempt.objects.filter(delivery=delivery).values_list("number", "status_code", "error"))
    return {
        "state": delivery.state,
        "attempts": delivery.attempts,
        "claimed": delivery.claimed_at is not None,
        "delivered": delivery.delivered_at is not None,
        "next_attempt_at": delivery.next_attempt_at,
        "last": (delivery.last_status_code, delivery.last_error, delivery.last_duration_ms),
        "log": attempts,
    }


@pytest.mark.postgres
def test_the_postgresql_statements_and_the_orm_claim_load_and_record_alike(owner, receiver):
    fast, portable = _pending(owner, receiver.url, 2)
    Subscription.objects.update(consecutive_failures=3, failed_deliveries_in_row=2)

    claimed = services._claim(str(fast.pk))  # PostgreSQL: one statement
    loaded = Delivery.objects.select_related("subscription", "event").get(pk=fast.pk)
    services._record_success(claimed, 204, 7)
    health_after_fast = Subscription.objects.values("consecutive_failures", "failed_deliveries_in_row").get()
    Subscription.objects.update(consecutive_failures=3, failed_deliveries_in_row=2)
    services._record_success_with_orm(services._claim_with_orm(str(portable.pk)), 204, 7)

    assert services.envelope(claimed.event) == services.envelope(loaded.event)
    assert (claimed.attempts, claimed.state, claimed.subscription_id) == (1, "sending", loaded.subscription_id)
    assert (claimed.subscription.url, claimed.subscription.secret) == (
        loaded.subscription.url,
        loaded.subscription.secret,
    )
    assert claimed.subscription.disabled_at is None
    assert (
        _outcome(fast)
        == _outcome(portable)
        == {
            "state": "succeeded",
            "attempts": 1,
            "claimed": True,
            "delivered": True,
            "next_attempt_at": None,
            "last": (204, "", 7),
            "log": [(1, 204, "")],
        }
    )
    health = Subscription.objects.values("consecutive_failures", "failed_deliveries_in_row").get()
    assert health_after_fast == health == {"consecutive_failures": 0, "failed_deliveries_in_row": 0}
    assert Subscription.objects.get().last_success_at is not None
    assert services._claim(str(fast.pk)) is None
    assert services._claim_with_orm(str(portable.pk)) is None


@pytest.mark.postgres
def test_a_claimed_delivery_loads_what_the_claim_did_not_select_on_demand(owner, receiver):
    (delivery,) = _pending(owner, receiver.url, 1)

    claimed = services._claim(str(delivery.pk))

    assert claimed.claimed_at is not None  # deferred by the claim, read from the database
    assert claimed.subscription.team_id == owner.team.pk
