"""The webhook tooling of the API: a signed test event, the delivery log, redelivery, secret
rotation with its day of overlap, and re-enabling. Each request goes through the API as a
client would; deliveries reach a real receiver on loopback."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import secrets

import pytest
from django.utils import timezone
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from tests.webhooks.helpers import PUBLISHED, attempt, emit, subscribe
from webhooks import services
from webhooks.models import Delivery, DeliveryState, Subscription

pytestmark = pytest.mark.django_db


def _url(subscription: Subscription, tail: str = "") -> str:
    return f"/api/v1/webhooks/{subscription.pk}{tail}"


def _sha256(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def test_a_test_event_is_sent_signed_and_shows_in_the_delivery_log(
    api, owner, receiver, django_capture_on_commit_callbacks
):
    subscription = subscribe(owner.team, receiver.url)

    with django_capture_on_commit_callbacks(execute=True):
        sent = api.as_(owner.key).post(_url(subscription, "/test"))

    assert sent.status_code == 202, sent.content
    delivery = sent.json()["data"]
    assert (delivery["event_type"], delivery["status"], delivery["attempt"]) == ("webhook.test", "pending", 0)
    (post,) = receiver.posts
    envelope = Webhook(subscription.secret).verify(post.body, post.headers)
    assert (envelope["id"], envelope["type"]) == (delivery["event_id"], "webhook.test")
    assert post.headers["x-service-signature"] == _sha256(subscription.secret, post.body)

    log = api.as_(owner.key).get(_url(subscription, "/deliveries")).json()
    (entry,) = log["data"]
    assert entry["id"] == delivery["id"]
    assert (entry["status"], entry["attempt"], entry["response_status_code"]) == ("succeeded", 1, 200)
    assert entry["duration_ms"] is not None
    assert entry["error"] == ""
    assert log["pagination"]["total_count"] == 1


def test_a_disabled_webhook_gets_no_test_event_until_it_is_enabled(
    api, owner, receiver, django_capture_on_commit_callbacks
):
    subscription = subscribe(owner.team, receiver.url)
    Subscription.objects.filter(pk=subscription.pk).update(
        disabled_at=timezone.now(), disabled_reason="The receiver answered 410 Gone.", failed_deliveries_in_row=5
    )

    refused = api.as_(owner.key).post(_url(subscription, "/test"))
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "WEBHOOK_DISABLED"

    enabled = api.as_(owner.key).post(_url(subscription, "/enable"))
    assert enabled.status_code == 200, enabled.content
    assert (enabled.json()["data"]["disabled"], enabled.json()["data"]["disabled_reason"]) == (False, "")
    assert enabled.json()["data"]["health"]["consecutive_failures"] == 0
    with django_capture_on_commit_callbacks(execute=True):
        assert api.as_(owner.key).post(_url(subscription, "/test")).status_code == 202
    assert len(receiver.posts) == 1
    assert api.as_(owner.key).get(_url(subscription)).json()["data"]["disabled"] is False


def test_the_delivery_log_pages_filters_and_shows_each_attempt(api, owner, receiver, no_retry_delay):
    subscription = subscribe(owner.team, receiver.url)
    receiver.answer(500, 200)
    first = attempt(Delivery.objects.get(event=emit(owner.team)))  # 500: retried later
    attempt(first)  # its retry: 200
    for _ in range(2):
        emit(owner.team)  # never attempted: pending

    key = owner.key
    page = api.as_(key).get(_url(subscription, "/deliveries?page_size=2")).json()
    assert [d["status"] for d in page["data"]] == ["pending", "pending"]  # newest first
    assert page["pagination"] == {
        "page": 1,
        "page_size": 2,
        "total_count": 3,
        "total_count_exact": True,
        "total_pages": 2,
        "next_page": 2,
        "previous_page": None,
    }
    succeeded = api.as_(key).get(_url(subscription, "/deliveries?status=succeeded")).json()["data"]
    assert [(d["id"], d["attempt"], d["response_status_code"]) for d in succeeded] == [(str(first.pk), 2, 200)]
    assert api.as_(key).get(_url(subscription, "/deliveries?event_type=webhook.test")).json()["data"] == []

    bad = api.as_(key).get(_url(subscription, "/deliveries?status=lost"))
    assert bad.status_code == 400
    assert bad.json()["error"]["type"] == "invalid_request"

    detail = api.as_(key).get(_url(subscription, f"/deliveries/{first.pk}")).json()["data"]
    assert [(a["number"], a["status_code"], a["error"]) for a in detail["attempts"]] == [
        (1, 500, "HTTP 500"),
        (2, 200, ""),
    ]
    assert (detail["payload"]["id"], detail["payload"]["type"]) == (str(first.event_id), PUBLISHED)


def test_redeliver_sends_the_same_event_again_now(api, owner, receiver, django_capture_on_commit_callbacks):
    subscription = subscribe(owner.team, receiver.url)
    receiver.answer(410)
    failed = attempt(Delivery.objects.get(event=emit(owner.team)))
    assert failed.state == DeliveryState.FAILED  # and 410 disabled the webhook
    refused = api.as_(owner.key).post(_url(subscription, f"/deliveries/{failed.pk}/redeliver"))
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "WEBHOOK_DISABLED")

    services.subscription_enable(subscription=subscription)
    with django_capture_on_commit_callbacks(execute=True):
        redelivered = api.as_(owner.key).post(_url(subscription, f"/deliveries/{failed.pk}/redeliver"))

    assert redelivered.status_code == 202, redelivered.content
    assert redelivered.json()["data"]["status"] == "pending"
    first, again = receiver.posts
    assert again.headers["webhook-id"] == first.headers["webhook-id"] == str(failed.event_id)
    assert again.body == first.body
    failed.refresh_from_db()
    assert (failed.state, failed.last_status_code) == (DeliveryState.SUCCEEDED, 200)
    detail = api.as_(owner.key).get(_url(subscription, f"/deliveries/{failed.pk}")).json()["data"]
    assert [(a["number"], a["status_code"]) for a in detail["attempts"]] == [(1, 410), (1, 200)]  # a new series


def test_a_delivery_under_way_or_of_another_webhook_is_not_redelivered(api, owner, receiver):
    subscription = subscribe(owner.team, receiver.url)
    sibling = subscribe(owner.team, f"{receiver.base}/sibling")
    delivery = Delivery.objects.get(event=emit(owner.team), subscription=subscription)
    Delivery.objects.filter(pk=delivery.pk).update(state=DeliveryState.SENDING, claimed_at=timezone.now())

    in_flight = api.as_(owner.key).post(_url(subscription, f"/deliveries/{delivery.pk}/redeliver"))
    elsewhere = api.as_(owner.key).post(_url(sibling, f"/deliveries/{delivery.pk}/redeliver"))
    detail_elsewhere = api.as_(owner.key).get(_url(sibling, f"/deliveries/{delivery.pk}"))

    assert (in_flight.status_code, in_flight.json()["error"]["code"]) == (409, "DELIVERY_IN_FLIGHT")
    assert (elsewhere.status_code, elsewhere.json()["error"]["code"]) == (404, "DELIVERY_NOT_FOUND")
    assert detail_elsewhere.status_code == 404
    assert Delivery.objects.get(pk=delivery.pk).state == DeliveryState.SENDING


def test_after_a_rotation_both_secrets_sign_for_a_day_then_only_the_new_one(api, owner, receiver):
    subscription = subscribe(owner.team, receiver.url)
    old = subscription.secret

    rotated = api.as_(owner.key).post(_url(subscription, "/rotate-secret"), {}, format="json")

    assert rotated.status_code == 200, rotated.content
    data = rotated.json()["data"]
    new = data["secret"]
    assert new.startswith("whsec_")
    assert new != old
    expires = dt.datetime.fromisoformat(data["previous_secret_expires_at"])
    assert dt.timedelta(hours=23, minutes=59) < expires - timezone.now() <= dt.timedelta(hours=24)
    shown = api.as_(owner.key).get(_url(subscription)).json()["data"]
    assert shown["previous_secret_expires_at"] == data["previous_secret_expires_at"]
    assert "secret" not in shown

    attempt(Delivery.objects.get(event=emit(owner.team)))
    (during,) = receiver.posts
    assert Webhook(new).verify(during.body, during.headers)  # any Standard Webhooks library, either secret
    assert Webhook(old).verify(during.body, during.headers)
    assert during.headers["webhook-signature"].count("v1,") == 2
    assert during.headers["x-service-signature"] == _sha256(new, during.body)
    assert during.headers["x-service-signature-previous"] == _sha256(old, during.body)

    Subscription.objects.filter(pk=subscription.pk).update(previous_secret_expires_at=timezone.now())
    attempt(Delivery.objects.get(event=emit(owner.team)))
    after = receiver.posts[1]
    assert Webhook(new).verify(after.body, after.headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(old).verify(after.body, after.headers)
    assert "x-service-signature-previous" not in after.headers
    assert api.as_(owner.key).get(_url(subscription)).json()["data"]["previous_secret_expires_at"] is None

    services.deliveries_purge()  # the expired secret is not kept either
    assert Subscription.objects.get(pk=subscription.pk).previous_secret == ""


def test_a_rotation_takes_your_own_secret_and_refuses_a_bad_one(api, owner):
    subscription = subscribe(owner.team, "https://93.184.215.14/hook")
    mine = "whsec_" + base64.b64encode(secrets.token_bytes(30)).decode()

    assert (
        api.as_(owner.key)
        .post(_url(subscription, "/rotate-secret"), {"secret": mine}, format="json")
        .json()["data"]["secret"]
        == mine
    )
    again = api.as_(owner.key).post(_url(subscription, "/rotate-secret"), {"secret": mine}, format="json")
    bad = api.as_(owner.key).post(_url(subscription, "/rotate-secret"), {"secret": "hunter2"}, format="json")

    assert (again.status_code, again.json()["error"]["code"]) == (400, "INVALID_WEBHOOK_SECRET")
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "INVALID_WEBHOOK_SECRET")
    assert "hunter2" not in bad.content.decode()
    subscription.refresh_from_db()
    assert subscription.secret == mine


def test_a_read_key_reads_the_log_but_changes_nothing(api, owner, receiver):
    subscription = subscribe(owner.team, receiver.url)
    delivery = Delivery.objects.get(event=emit(owner.team))
    reader = owner.key_with("webhooks:read")

    assert api.as_(reader).get(_url(subscription, "/deliveries")).status_code == 200
    assert api.as_(reader).get(_url(subscription, f"/deliveries/{delivery.pk}")).status_code == 200
    for tail in ("/test", "/rotate-secret", "/enable", f"/deliveries/{delivery.pk}/redeliver"):
        response = api.as_(reader).post(_url(subscription, tail), {}, format="json")
        assert (response.status_code, response.json()["error"]["type"]) == (403, "authorization_error"), tail
    assert Subscription.objects.get(pk=subscription.pk).secret == subscription.secret
    assert receiver.posts == []
