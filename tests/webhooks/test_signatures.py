"""What a receiver gets: the envelope, and two signatures that verify against the raw body,
one with a plain HMAC and one with the Standard Webhooks reference library."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import time

import pytest
from django.utils import timezone
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from tests.webhooks.helpers import PUBLISHED, attempt, delivery_of, emit, make_due, subscribe
from webhooks.models import Event

pytestmark = pytest.mark.django_db

DATA = {"publish_id": "0190f1c2-0000-7000-8000-000000000001", "status": "published", "note": "café, 東京"}


def _plain_hmac(secret: str, raw_body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), raw_body, hashlib.sha256).hexdigest()


@pytest.fixture
def delivered(api, owner, receiver):
    """A webhook made through the API, and one event delivered to it: (secret, event, post)."""
    created = api.as_(owner.key).post("/api/v1/webhooks", {"url": receiver.url, "events": [PUBLISHED]}, format="json")
    secret = created.json()["data"]["secret"]
    event = emit(owner.team, data=DATA)
    attempt(delivery_of(event))
    (post,) = receiver.posts
    return secret, event, post


def test_the_raw_body_verifies_with_a_plain_hmac_of_the_secret(delivered):
    secret, _, post = delivered

    assert post.path == "/hook"
    assert hmac.compare_digest(post.headers["x-service-signature"], _plain_hmac(secret, post.body))


def test_the_raw_body_verifies_with_the_standard_webhooks_library(delivered):
    secret, _, post = delivered

    payload = Webhook(secret).verify(post.body, post.headers)

    assert payload == json.loads(post.body)


def test_a_body_altered_by_one_byte_fails_both_verifications(delivered):
    secret, _, post = delivered
    position = post.body.index(b'"published"') + 1
    altered = post.body[:position] + bytes([post.body[position] ^ 0x01]) + post.body[position + 1 :]

    assert altered != post.body
    assert len(altered) == len(post.body)
    assert not hmac.compare_digest(post.headers["x-service-signature"], _plain_hmac(secret, altered))
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(altered, post.headers)


def test_a_different_secret_fails_both_verifications(delivered, owner, settings):
    secret, _, post = delivered
    other = subscribe(owner.team, "http://127.0.0.1:9/other").secret

    assert other != secret
    assert not hmac.compare_digest(post.headers["x-service-signature"], _plain_hmac(other, post.body))
    with pytest.raises(WebhookVerificationError):
        Webhook(other).verify(post.body, post.headers)


def test_the_envelope_carries_id_type_created_at_team_id_and_data(delivered, owner):
    _, event, post = delivered

    envelope = json.loads(post.body)

    assert set(envelope) == {"id", "type", "created_at", "team_id", "data"}
    assert envelope["id"] == str(event.pk)
    assert envelope["type"] == "post.published"
    assert envelope["team_id"] == str(owner.team.pk)
    assert envelope["data"] == DATA
    assert envelope["created_at"].endswith("Z")
    assert dt.datetime.fromisoformat(envelope["created_at"]) == event.created_at
    assert post.headers["content-type"] == "application/json"
    assert post.headers["webhook-id"] == str(event.pk)


def test_webhook_id_is_the_event_id_on_every_retry_and_the_timestamp_is_per_attempt(owner, receiver):
    """The event is an hour old, so a timestamp taken from it would also fail the library's
    five-minute tolerance: each attempt's own time is what gets signed."""
    subscription = subscribe(owner.team, receiver.url)
    event = emit(owner.team, data=DATA)
    Event.objects.filter(pk=event.pk).update(created_at=timezone.now() - dt.timedelta(hours=1))
    receiver.answer(500, 200)
    delivery = delivery_of(event)
    windows = []

    for _ in range(2):
        before = int(time.time())
        delivery = attempt(delivery)
        windows.append((before, int(time.time())))
        make_due(delivery)

    assert delivery.state == "succeeded"
    first, second = receiver.posts
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == str(event.pk)
    assert first.body == second.body
    assert first.headers["x-service-signature"] == second.headers["x-service-signature"]
    for post, (before, after) in zip(receiver.posts, windows, strict=True):
        assert before <= int(post.headers["webhook-timestamp"]) <= after
        Webhook(subscription.secret).verify(post.body, post.headers)
