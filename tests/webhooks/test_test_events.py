"""`subscription_send_test`: a signed `webhook.test` event to one subscription, sent after
commit through the delivery path every event takes. No subscription can choose the type and
`emit` refuses it, so a receiver gets one only when someone asks for it."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone
from standardwebhooks import Webhook

from config.errors import Conflict, NotFound
from tests.webhooks.helpers import attempt, make_due, subscribe
from webhooks import services
from webhooks.models import SUBSCRIBABLE_EVENTS, Delivery, DeliveryAttempt, DeliveryState, Event, Subscription

pytestmark = pytest.mark.django_db

TEST = "webhook.test"


def test_the_test_event_goes_to_the_one_subscription_asked_for(owner, outsider, receiver):
    chosen = subscribe(owner.team, receiver.url)
    sibling = subscribe(owner.team, f"{receiver.base}/sibling", SUBSCRIBABLE_EVENTS)
    subscribe(outsider.team, f"{receiver.base}/theirs", SUBSCRIBABLE_EVENTS)

    delivery = services.subscription_send_test(subscription=chosen)

    assert (delivery.subscription_id, delivery.state) == (chosen.pk, DeliveryState.PENDING)
    assert delivery.event.type == TEST
    assert delivery.event.team_id == owner.team.pk
    assert list(Delivery.objects.values_list("subscription_id", flat=True)) == [chosen.pk]
    assert not sibling.deliveries.exists()


def test_it_is_sent_after_commit_signed_like_every_delivery(owner, receiver, django_capture_on_commit_callbacks):
    subscription = subscribe(owner.team, receiver.url)

    with django_capture_on_commit_callbacks() as callbacks:
        delivery = services.subscription_send_test(subscription=subscription)
    assert receiver.posts == []  # nothing leaves before the commit
    for callback in callbacks:
        callback()

    (post,) = receiver.posts
    envelope = Webhook(subscription.secret).verify(post.body, post.headers)
    assert envelope == json.loads(post.body)
    assert (envelope["id"], envelope["type"]) == (str(delivery.event_id), TEST)
    assert envelope["data"] == {
        "test": True,
        "subscription_id": str(subscription.pk),
        "message": "A test event: nothing happened.",
    }
    delivery.refresh_from_db()
    assert (delivery.state, delivery.last_status_code) == (DeliveryState.SUCCEEDED, 200)
    subscription.refresh_from_db()
    assert subscription.last_success_at is not None


def test_a_failed_test_delivery_is_retried_and_logged_like_any_other(owner, receiver, no_retry_delay):
    subscription = subscribe(owner.team, receiver.url)
    receiver.answer(500, 200)
    delivery = services.subscription_send_test(subscription=subscription)

    delivery = attempt(delivery)
    assert (delivery.state, delivery.last_status_code, delivery.last_error) == ("pending", 500, "HTTP 500")
    make_due(delivery)
    delivery = attempt(delivery)

    assert delivery.state == DeliveryState.SUCCEEDED
    assert list(DeliveryAttempt.objects.filter(delivery=delivery).values_list("number", "status_code")) == [
        (1, 500),
        (2, 200),
    ]


def test_a_disabled_subscription_is_refused(owner):
    subscription = subscribe(owner.team, "https://93.184.215.14/hook")
    Subscription.objects.filter(pk=subscription.pk).update(disabled_at=timezone.now())

    with pytest.raises(Conflict) as refused:
        services.subscription_send_test(subscription=subscription)

    assert refused.value.code == "WEBHOOK_DISABLED"
    assert not Event.objects.exists()


def test_a_deleted_subscription_is_not_found(owner):
    subscription = subscribe(owner.team, "https://93.184.215.14/hook")
    services.subscription_delete(team=owner.team, subscription_id=str(subscription.pk))

    with pytest.raises(NotFound):
        services.subscription_send_test(subscription=subscription)

    assert not Event.objects.exists()


def test_emit_never_fans_out_a_test_event(owner):
    subscribe(owner.team, "https://93.184.215.14/hook", SUBSCRIBABLE_EVENTS)

    with pytest.raises(ValueError, match="unknown event type"):
        services.emit(team=owner.team, event_type=TEST, data={})

    assert not Delivery.objects.exists()


def test_the_api_refuses_a_subscription_to_the_test_event(api, owner):
    response = api.as_(owner.key).post(
        "/api/v1/webhooks", {"url": "https://93.184.215.14/hook", "events": [TEST]}, format="json"
    )

    assert response.status_code == 400
    assert not Subscription.objects.exists()


def test_the_documented_events_are_the_spec_five_the_after_publishing_and_account_events_never_the_test_event(api):
    schema = api.get("/api/v1/openapi.json").json()

    assert schema["components"]["schemas"]["EventsEnum"]["enum"] == [
        "post.published",
        "post.failed",
        "post.pending_approval",
        "post.approved",
        "post.rejected",
        "post.removed",
        "post.at_risk",
        "account.connected",
        "account.disconnected",
        "account.expired",
        "account.expiring",
    ]
