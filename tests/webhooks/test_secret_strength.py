"""A secret a caller chooses, on create and on rotation, is refused when its key is guessable
(`WEAK_WEBHOOK_SECRET`): all-same bytes, short repeats, counting, hex or decimal text. Random
keys of every allowed size always pass."""

from __future__ import annotations

import base64
import secrets

import pytest

from tests.webhooks.helpers import PUBLISHED, subscribe
from webhooks import signing
from webhooks.models import Subscription

pytestmark = pytest.mark.django_db

PUBLIC_HTTPS = "https://93.184.215.14/hooks/social"


def _whsec(key: bytes) -> str:
    return "whsec_" + base64.b64encode(key).decode()


WEAK = {
    "24 zero bytes": bytes(24),
    "32 bytes of 0xff": b"\xff" * 32,
    "a two-byte pattern": b"ab" * 16,
    "an 8-byte block four times": secrets.token_bytes(8) * 4,
    "counting": bytes(range(24)),
    "counting in tens": bytes(range(0, 240, 10)),
    "24 hex digits (96 bits)": secrets.token_hex(12).encode(),
    "32 decimal digits (106 bits)": "".join(secrets.choice("0123456789") for _ in range(32)).encode(),
    "two values at random": bytes(secrets.choice(b"\x00\x01") for _ in range(64)),
}


def _assert_weak(response):
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("invalid_request", "WEAK_WEBHOOK_SECRET")
    assert "predictable" in error["message"]


@pytest.mark.parametrize("key", WEAK.values(), ids=WEAK.keys())
def test_a_weak_secret_is_refused_on_create(api, owner, key):
    body = {"url": PUBLIC_HTTPS, "events": [PUBLISHED], "secret": _whsec(key)}

    response = api.as_(owner.key).post("/api/v1/webhooks", body, format="json")

    _assert_weak(response)
    assert not Subscription.objects.exists()


@pytest.mark.parametrize("key", WEAK.values(), ids=WEAK.keys())
def test_a_weak_secret_is_refused_on_rotation_and_the_old_one_stays(api, owner, key):
    subscription = subscribe(owner.team, PUBLIC_HTTPS)
    url = f"/api/v1/webhooks/{subscription.pk}/rotate-secret"

    response = api.as_(owner.key).post(url, {"secret": _whsec(key)}, format="json")

    _assert_weak(response)
    assert Subscription.objects.get(pk=subscription.pk).secret == subscription.secret
    assert _whsec(key) not in response.content.decode()


@pytest.mark.parametrize("size", [24, 32, 48, 64])
def test_random_secrets_of_every_allowed_size_always_pass(size):
    weak = [key for key in (secrets.token_bytes(size) for _ in range(5000)) if signing.secret_is_weak(_whsec(key))]

    assert weak == []


@pytest.mark.parametrize("size", [24, 64])
def test_a_random_secret_of_your_own_is_taken(api, owner, size):
    secret = _whsec(secrets.token_bytes(size))
    body = {"url": PUBLIC_HTTPS, "events": [PUBLISHED], "secret": secret}

    response = api.as_(owner.key).post("/api/v1/webhooks", body, format="json")

    assert response.status_code == 201, response.content
    assert Subscription.objects.get().secret == secret


def test_generated_secrets_pass_the_same_check():
    assert not any(signing.secret_is_weak(signing.new_secret()) for _ in range(1000))
