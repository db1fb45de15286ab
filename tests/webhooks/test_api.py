"""GET/POST /api/v1/webhooks and DELETE /api/v1/webhooks/{id}: validation, the one-time
secret, scopes, and which team a webhook belongs to."""

from __future__ import annotations

import base64
import secrets
import uuid

import pytest

from teams import services as team_services
from teams.models import SCOPES, Role
from tests.factories import UserFactory
from tests.webhooks.helpers import PUBLISHED, subscribe
from webhooks import services
from webhooks.models import Subscription

pytestmark = pytest.mark.django_db

PUBLIC_HTTPS = "https://93.184.215.14/hooks/social"  # a public address literal: no DNS needed


def _secret(size: int) -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(size)).decode()


def _create(api, key, **fields):
    body = {"url": PUBLIC_HTTPS, "events": [PUBLISHED], **fields}
    return api.as_(key).post("/api/v1/webhooks", body, format="json")


def _assert_400(response, code=None):
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["type"] == "invalid_request"
    if code is not None:
        assert error["code"] == code
    assert not Subscription.objects.exists()


def test_create_returns_201_with_a_one_time_whsec_secret(api, owner):
    response = _create(api, owner.key, events=["post.published", "post.failed"])

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data["url"] == PUBLIC_HTTPS
    assert data["events"] == ["post.published", "post.failed"]
    assert data["disabled"] is False
    assert data["secret"].startswith("whsec_")
    assert len(base64.b64decode(data["secret"].removeprefix("whsec_"), validate=True)) >= 24
    subscription = Subscription.objects.get(pk=data["id"])
    assert subscription.team == owner.team
    assert subscription.secret == data["secret"]


def test_two_webhooks_get_different_secrets(api, owner):
    first = _create(api, owner.key).json()["data"]["secret"]
    second = _create(api, owner.key).json()["data"]["secret"]

    assert first != second


def test_list_shows_health_and_disabled_false_but_never_the_secret(api, owner):
    created = _create(api, owner.key).json()["data"]

    response = api.as_(owner.key).get("/api/v1/webhooks")

    assert response.status_code == 200
    (shown,) = response.json()["data"]
    assert shown["id"] == created["id"]
    assert shown["disabled"] is False
    assert shown["disabled_reason"] == ""
    assert shown["health"] == {
        "last_success_at": None,
        "last_failure_at": None,
        "last_failure_reason": "",
        "consecutive_failures": 0,
    }
    assert "secret" not in shown
    assert created["secret"] not in response.content.decode()


def test_an_http_url_is_accepted_when_private_destinations_are_allowed(api, owner, settings):
    settings.SSRF_ALLOW_PRIVATE = True

    response = _create(api, owner.key, url="http://127.0.0.1:8080/hook")

    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    "url",
    [
        "http://93.184.215.14/hooks/social",  # https is required
        "https://127.0.0.1/hook",
        "https://localhost/hook",
        "https://10.0.0.5/hook",
        "https://192.168.1.20/hook",
        "https://169.254.169.254/latest/meta-data/",
        "https://[::1]/hook",
        "https://93.184.215.14:8443/hook",  # public, but not port 443
        "https://user:pw@93.184.215.14/hook",
    ],
)
def test_unsafe_urls_are_refused_when_private_destinations_are_not_allowed(api, owner, settings, url):
    settings.SSRF_ALLOW_PRIVATE = False

    _assert_400(_create(api, owner.key, url=url), "INVALID_WEBHOOK_URL")


@pytest.mark.parametrize("url", ["not a url", "https://", "hooks.example.com/x", "", "https://exa mple.com/"])
def test_malformed_urls_are_refused(api, owner, url):
    _assert_400(_create(api, owner.key, url=url))


@pytest.mark.parametrize(
    "events", [["post.deleted"], [], ["post.published", "publish.done"], "post.published", None, [1]]
)
def test_unknown_or_missing_events_are_refused(api, owner, events):
    _assert_400(_create(api, owner.key, events=events))


def test_a_missing_events_field_is_refused(api, owner):
    response = api.as_(owner.key).post("/api/v1/webhooks", {"url": PUBLIC_HTTPS}, format="json")

    _assert_400(response)


@pytest.mark.parametrize(
    "secret",
    [
        "",
        "not-a-secret",
        "whsec_",
        "whsec_!!!not-base64!!!",
        _secret(16),  # too short a key
        _secret(65),  # too long a key
        _secret(32).removeprefix("whsec_"),  # no prefix
        "wh" + _secret(32),
    ],
)
def test_a_bad_supplied_secret_is_refused(api, owner, secret):
    _assert_400(_create(api, owner.key, secret=secret))


@pytest.mark.parametrize("size", [24, 32, 64])
def test_a_valid_supplied_secret_is_kept(api, owner, size):
    secret = _secret(size)

    response = _create(api, owner.key, secret=secret)

    assert response.status_code == 201, response.content
    assert response.json()["data"]["secret"] == secret
    assert Subscription.objects.get().secret == secret


def test_duplicate_events_are_stored_once(api, owner):
    response = _create(api, owner.key, events=["post.failed", "post.failed", "post.published"])

    assert response.json()["data"]["events"] == ["post.failed", "post.published"]


def test_a_team_has_at_most_25_webhooks(api, owner, settings):
    settings.SSRF_ALLOW_PRIVATE = True
    for n in range(services.MAX_SUBSCRIPTIONS_PER_TEAM):
        subscribe(owner.team, f"http://127.0.0.1:9/{n}")

    response = _create(api, owner.key)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "TOO_MANY_WEBHOOKS"
    assert Subscription.objects.count() == services.MAX_SUBSCRIPTIONS_PER_TEAM


def test_delete_removes_the_webhook(api, owner):
    created = _create(api, owner.key).json()["data"]

    response = api.as_(owner.key).delete(f"/api/v1/webhooks/{created['id']}")

    assert response.status_code == 200
    assert response.json() == {"data": {"id": created["id"], "deleted": True}}
    assert api.get("/api/v1/webhooks").json() == {"data": []}
    assert not Subscription.objects.exists()


@pytest.mark.parametrize("path", [f"/api/v1/webhooks/{uuid.uuid4()}", "/api/v1/webhooks/not-a-uuid"])
def test_deleting_an_unknown_webhook_is_404(api, owner, path):
    response = api.as_(owner.key).delete(path)

    assert response.status_code == 404
    assert response.json()["error"]["type"] == "not_found"


def test_another_teams_webhook_is_not_listed_and_cannot_be_deleted(api, owner, outsider):
    theirs = _create(api, outsider.key).json()["data"]
    ours = _create(api, owner.key).json()["data"]

    listed = api.as_(owner.key).get("/api/v1/webhooks").json()["data"]
    deleted = api.as_(owner.key).delete(f"/api/v1/webhooks/{theirs['id']}")

    assert [w["id"] for w in listed] == [ours["id"]]
    assert deleted.status_code == 404
    assert deleted.json()["error"]["code"] == "WEBHOOK_NOT_FOUND"
    assert Subscription.objects.filter(pk=theirs["id"], team=outsider.team).exists()


def _operation(api, owner, method):
    if method == "get":
        return api.get("/api/v1/webhooks")
    if method == "post":
        return api.post("/api/v1/webhooks", {"url": PUBLIC_HTTPS, "events": [PUBLISHED]}, format="json")
    subscription = subscribe(owner.team, PUBLIC_HTTPS)
    return api.delete(f"/api/v1/webhooks/{subscription.pk}")


OPERATIONS = [("get", "webhooks:read", 200), ("post", "webhooks:write", 201), ("delete", "webhooks:write", 200)]


@pytest.mark.parametrize(("method", "scope", "success"), OPERATIONS)
def test_each_operation_needs_its_scope(api, owner, method, scope, success):
    without = owner.key_with(*(s for s in SCOPES if s != scope))

    refused = _operation(api.as_(without), owner, method)

    assert refused.status_code == 403
    assert refused.json()["error"]["type"] == "authorization_error"
    assert refused.json()["error"]["code"] == "MISSING_SCOPE"
    assert _operation(api.as_(owner.key_with(scope)), owner, method).status_code == success


@pytest.mark.parametrize(("method", "scope", "success"), OPERATIONS)
def test_each_operation_needs_a_key(api, owner, method, scope, success):
    response = _operation(api.as_(None), owner, method)

    assert response.status_code == 401


def test_a_user_key_creates_the_webhook_in_its_active_team(api, owner, outsider):
    """The outsider's default team is their own; their user key's active team is Acme."""
    team_services.membership_add(team=owner.team, user=outsider.user, role=Role.ADMIN)
    _, user_key = team_services.api_key_create(
        user=outsider.user, name="user key", scopes=["webhooks:read", "webhooks:write"], active_team=owner.team
    )

    created = _create(api, user_key)

    assert created.status_code == 201
    assert Subscription.objects.get(pk=created.json()["data"]["id"]).team == owner.team
    assert [w["id"] for w in api.as_(owner.key).get("/api/v1/webhooks").json()["data"]] == [
        created.json()["data"]["id"]
    ]
    assert api.as_(outsider.key).get("/api/v1/webhooks").json()["data"] == []


def test_a_user_key_without_an_active_team_uses_the_users_team(api, owner):
    user = UserFactory(username="solo")
    team = team_services.team_create(name="Solo", owner=user)
    _, user_key = team_services.api_key_create(user=user, name="user key", scopes=["webhooks:write"])

    created = _create(api, user_key)

    assert Subscription.objects.get(pk=created.json()["data"]["id"]).team == team
