"""The webhook secret is shown once, at creation: never again by the API, never in logs, never in
the errors stored on deliveries, never in the admin, and never in plain text in the database."""

from __future__ import annotations

import logging

import pytest
from django.db import connection
from django.urls import reverse

from tests.webhooks.helpers import PUBLISHED, attempt, delivery_of, emit, subscribe
from tests.webhooks.receiver import Answer
from webhooks.models import Delivery, DeliveryAttempt, Subscription

pytestmark = pytest.mark.django_db


def _forms(secret):
    """The secret as shown, and its key part (what a leak of the decoded form would start from)."""
    return [secret, secret.removeprefix("whsec_")]


def _create(api, key, url):
    response = api.as_(key).post("/api/v1/webhooks", {"url": url, "events": [PUBLISHED]}, format="json")
    assert response.status_code == 201
    return response.json()["data"]


def test_the_secret_is_in_no_api_response_after_create(api, owner, receiver):
    created = _create(api, owner.key, receiver.url)
    receiver.answer(500)
    attempt(delivery_of(emit(owner.team)))

    responses = [
        api.get("/api/v1/webhooks"),
        api.get(f"/api/v1/webhooks/{created['id']}"),  # no such operation: 404/405, still no secret
        api.post("/api/v1/webhooks", {"url": receiver.url, "events": ["post.nope"]}, format="json"),
        api.delete(f"/api/v1/webhooks/{created['id']}"),
        api.get("/api/v1/webhooks"),
    ]

    assert responses[0].status_code == 200
    assert responses[3].status_code == 200
    for response in responses:
        body = response.content.decode()
        assert all(form not in body for form in _forms(created["secret"])), response.request


def test_the_secret_never_reaches_the_logs_or_the_stored_errors(api, owner, receiver, down_receiver, caplog):
    caplog.set_level(logging.DEBUG)
    secrets = []
    for url in (receiver.url, f"{receiver.base}/redirect", f"{receiver.base}/gone", down_receiver.url):
        secrets += _forms(_create(api, owner.key, url)["secret"])
    receiver.answer(500, Answer(302, {"Location": f"{receiver.base}/elsewhere"}), 410)
    event = emit(owner.team, data={"publish_id": "p-1"})

    for delivery in Delivery.objects.filter(event=event).order_by("subscription__created_at"):
        attempt(delivery)

    assert Delivery.objects.filter(event=event, state="pending").count() == 3  # 500, 302, down
    assert Delivery.objects.get(event=event, state="failed").last_status_code == 410
    stored = [
        *Delivery.objects.values_list("last_error", flat=True),
        *DeliveryAttempt.objects.values_list("error", flat=True),
        *Subscription.objects.values_list("last_failure_reason", flat=True),
        *Subscription.objects.values_list("disabled_reason", flat=True),
    ]
    logged = caplog.text + "".join(record.getMessage() for record in caplog.records)
    for secret in secrets:
        assert secret not in logged
        assert all(secret not in text for text in stored)


def test_the_secret_is_encrypted_at_rest(owner, settings):
    settings.SSRF_ALLOW_PRIVATE = True
    subscription = subscribe(owner.team, "http://127.0.0.1:9/hook")

    table, pk = Subscription._meta.db_table, Subscription._meta.pk.get_db_prep_value(subscription.pk, connection)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT secret FROM {table} WHERE id = %s", [pk])  # noqa: S608 - our own table name
        rows = cursor.fetchall()

    ((raw,),) = rows
    assert raw
    assert all(form not in raw for form in _forms(subscription.secret))
    assert Subscription.objects.get(pk=subscription.pk).secret == subscription.secret


def test_the_admin_never_displays_the_secret(staff_client, owner, receiver):
    subscription = subscribe(owner.team, receiver.url)
    delivery = attempt(delivery_of(emit(owner.team)))
    pages = [
        reverse("admin:webhooks_subscription_changelist"),
        reverse("admin:webhooks_subscription_change", args=[subscription.pk]),
        reverse("admin:webhooks_delivery_changelist"),
        reverse("admin:webhooks_delivery_change", args=[delivery.pk]),
        reverse("admin:webhooks_event_change", args=[delivery.event_id]),
    ]

    for page in pages:
        response = staff_client.get(page)
        assert response.status_code == 200
        assert all(form not in response.content.decode() for form in _forms(subscription.secret)), page
