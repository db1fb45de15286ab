"""The admin's delivery and subscription actions, through the changelist as staff use them."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.webhooks.helpers import attempt, delivery_of, emit, exhaust, subscribe
from webhooks import services
from webhooks.models import Delivery, DeliveryAttempt, Subscription

pytestmark = pytest.mark.django_db


def _action(client, model, action, pks):
    return client.post(
        reverse(f"admin:webhooks_{model}_changelist"),
        {"action": action, "_selected_action": [str(pk) for pk in pks]},
        follow=True,
    )


def test_send_again_queues_a_new_attempt_that_reaches_the_receiver(
    staff_client, owner, receiver, no_retry_delay, django_capture_on_commit_callbacks
):
    subscribe(owner.team, receiver.url)
    receiver.always(500)
    delivery = exhaust(delivery_of(emit(owner.team)))
    assert delivery.state == "failed"
    receiver.always(200)

    with django_capture_on_commit_callbacks(execute=True):
        response = _action(staff_client, "delivery", "send_again", [delivery.pk])

    assert response.status_code == 200
    assert "Queued 1" in response.content.decode()
    assert len(receiver.posts) == 7
    assert receiver.posts[-1].body == receiver.posts[0].body
    delivery.refresh_from_db()
    assert delivery.state == "succeeded"
    assert DeliveryAttempt.objects.filter(delivery=delivery, status_code=200).count() == 1


def test_send_again_of_a_delivered_event_sends_it_once_more(
    staff_client, owner, receiver, django_capture_on_commit_callbacks
):
    subscribe(owner.team, receiver.url)
    delivery = attempt(delivery_of(emit(owner.team)))

    with django_capture_on_commit_callbacks(execute=True):
        _action(staff_client, "delivery", "send_again", [delivery.pk])

    assert len(receiver.posts) == 2
    assert receiver.posts[0].headers["webhook-id"] == receiver.posts[1].headers["webhook-id"]


def test_enable_lets_a_disabled_subscription_get_deliveries_again(staff_client, owner, receiver):
    subscription = subscribe(owner.team, receiver.url)
    receiver.answer(410)
    attempt(delivery_of(emit(owner.team)))
    assert Subscription.objects.get(pk=subscription.pk).disabled_at is not None

    _action(staff_client, "subscription", "enable", [subscription.pk])
    event = emit(owner.team)
    attempt(delivery_of(event))

    subscription.refresh_from_db()
    assert (subscription.disabled_at, subscription.disabled_reason) == (None, "")
    assert Delivery.objects.get(event=event).state == "succeeded"
    assert len(receiver.posts) == 2


def test_the_change_page_shows_neither_secret_after_a_rotation(staff_client, owner):
    subscription = subscribe(owner.team, "https://93.184.215.14/hook")
    old = subscription.secret
    new = services.subscription_rotate_secret(subscription=subscription).secret

    page = staff_client.get(reverse("admin:webhooks_subscription_change", args=[subscription.pk]))

    assert page.status_code == 200
    body = page.content.decode()
    assert "Previous secret expires at" in body
    assert old not in body
    assert new not in body
