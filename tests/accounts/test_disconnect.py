"""DELETE /api/v1/accounts/{id}: the token revoked at the platform, the account out of listings
and of new posts, scheduled posts to it failing at release, its published history kept."""

from __future__ import annotations

import datetime as dt

import pytest
import requests
from django.utils import timezone

from accounts.models import AccountStatus, SocialAccount
from demo.seed import sandbox_account
from publishing.release import release_due
from tests.factories import SocialAccountFactory

pytestmark = pytest.mark.django_db


def _publish(api, key, account, **body):
    payload = {"content": "Hello", "targets": [{"account_id": str(account.pk)}], **body}
    return api.as_(key).post("/api/v1/publishes", payload, format="json")


def _post_with(sandbox, token):
    return requests.post(
        f"{sandbox.url}/api.x.com/2/tweets",
        json={"text": "still mine?"},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )


def test_disconnecting_forgets_the_tokens_and_leaves_the_listing(api, owner, sandbox):
    account = sandbox_account(owner.team, "x")

    response = api.as_(owner.key).delete(f"/api/v1/accounts/{account.pk}")

    assert response.status_code == 200
    body = response.json()
    assert (body["data"]["id"], body["data"]["status"]) == (str(account.pk), "disconnected")
    assert body["already_disconnected"] is False
    account.refresh_from_db()
    assert (account.access_token, account.refresh_token, account.token_expires_at) == ("", "", None)
    assert api.as_(owner.key).get("/api/v1/accounts").json()["data"] == []
    listed = api.as_(owner.key).get("/api/v1/accounts?status=disconnected").json()["data"]
    assert [a["id"] for a in listed] == [str(account.pk)]
    assert api.as_(owner.key).get(f"/api/v1/accounts/{account.pk}").json()["data"]["status"] == "disconnected"


def test_the_token_is_revoked_at_the_platform(api, owner, sandbox):
    account = sandbox_account(owner.team, "x")
    token = account.access_token

    assert _post_with(sandbox, token).status_code == 201  # the token works before

    body = api.as_(owner.key).delete(f"/api/v1/accounts/{account.pk}").json()

    assert body["token_revoked"] is True
    assert _post_with(sandbox, token).status_code == 401


def test_disconnecting_again_changes_nothing(api, owner, sandbox):
    account = sandbox_account(owner.team, "x")
    api.as_(owner.key).delete(f"/api/v1/accounts/{account.pk}")

    again = api.as_(owner.key).delete(f"/api/v1/accounts/{account.pk}")

    assert again.status_code == 200
    assert again.json()["already_disconnected"] is True
    assert again.json()["token_revoked"] is None


def test_another_teams_account_is_not_found(api, owner, outsider):
    theirs = SocialAccountFactory(team=outsider.team)

    response = api.as_(owner.key).delete(f"/api/v1/accounts/{theirs.pk}")

    assert response.status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == AccountStatus.ACTIVE


def test_disconnecting_needs_accounts_write(api, owner):
    account = SocialAccountFactory(team=owner.team)

    response = api.as_(owner.key_with("accounts:read")).delete(f"/api/v1/accounts/{account.pk}")

    assert response.status_code == 403
    account.refresh_from_db()
    assert account.status == AccountStatus.ACTIVE


def test_a_publish_naming_a_disconnected_account_is_a_400(api, owner, sandbox):
    account = sandbox_account(owner.team, "x")
    api.as_(owner.key).delete(f"/api/v1/accounts/{account.pk}")

    response = _publish(api, owner.key, account)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "ACCOUNT_DISCONNECTED"


def test_a_scheduled_post_to_it_fails_at_release_and_the_published_history_stays(api, owner, sandbox, eager_tasks):
    account = sandbox_account(owner.team, "x")
    published = _publish(api, owner.key, account).json()["data"]
    when = (timezone.now() + dt.timedelta(hours=1)).replace(microsecond=0)
    scheduled = _publish(api, owner.key, account, publish_mode="scheduled", scheduled_at=when.isoformat())
    scheduled = scheduled.json()["data"]

    api.as_(owner.key).delete(f"/api/v1/accounts/{account.pk}")
    release_due(now=when + dt.timedelta(seconds=1))

    failed = api.as_(owner.key).get(f"/api/v1/publishes/{scheduled['id']}").json()["data"]
    assert failed["status"] == "failed"
    assert failed["targets"][0]["error"]["code"] == "ACCOUNT_DISCONNECTED"
    kept = api.as_(owner.key).get(f"/api/v1/publishes/{published['id']}").json()["data"]
    assert kept["status"] == "published"
    assert kept["targets"][0]["account_id"] == str(account.pk)
    assert len(sandbox.posts("x")) == 1


def test_a_disconnected_account_no_longer_counts_against_the_plan(api, owner):
    account = SocialAccountFactory(team=owner.team)
    assert api.as_(owner.key).get("/api/v1/usage").json()["data"]["usage"]["social_accounts"] == 1

    api.as_(owner.key).delete(f"/api/v1/accounts/{account.pk}")

    assert api.as_(owner.key).get("/api/v1/usage").json()["data"]["usage"]["social_accounts"] == 0


def test_the_dashboards_disconnect_is_the_same_disconnection(client, owner, sandbox):
    account = sandbox_account(owner.team, "x")
    client.force_login(owner.user)

    client.post(f"/dashboard/accounts/{account.pk}/disconnect/")

    account.refresh_from_db()
    assert account.status == AccountStatus.DISCONNECTED
    page = client.get(f"/dashboard/?team={owner.team.pk}").content.decode()
    assert f"/dashboard/accounts/{account.pk}/" not in page  # no longer among the team's accounts
    assert SocialAccount.objects.filter(pk=account.pk).exists()
