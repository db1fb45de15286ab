"""DELETE /api/v1/teams/{team_id}: who may delete, what is checked, and that the content moves
to the destination team with nothing left behind or lost (spec §4 Team operations 3-4)."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone

from accounts.models import SocialAccount
from analytics.models import MetricsSample, PostMetrics
from demo.seed import sandbox_account
from media import services as media_services
from media.models import MediaUpload
from publishing import delivery, inputs, lifecycle
from publishing.models import (
    DeliveryAttempt,
    DeliveryJob,
    IdempotencyKey,
    Publish,
    PublishStatus,
    ScheduledRelease,
    Target,
    TargetState,
)
from publishing.release import release_due
from teams import services
from teams.models import SCOPES, ApiKey, Membership, MonthlyUsage, Role, Team
from tests.factories import SocialAccountFactory
from webhooks.models import Delivery, Event, Subscription

pytestmark = pytest.mark.django_db


# --- helpers ---------------------------------------------------------------------------------


@pytest.fixture
def second(owner):
    """Another team of the owner: the destination."""
    return services.team_create(name="Acme Two", owner=owner.user)


def _delete(api, key, team_id, body):
    return api.as_(key).delete(f"/api/v1/teams/{team_id}", body, format="json")


def _body(destination, name="Acme"):
    return {"destination_team_id": str(destination.pk), "confirmation_name": name}


def _user_key(user, active_team, scopes=SCOPES):
    return services.api_key_create(user=user, name="user key", scopes=scopes, active_team=active_team)[1]


def _team_key(user, team):
    return services.api_key_create(user=user, name="team key", scopes=SCOPES, team=team)[1]


def _error(response, status, code):
    assert response.status_code == status, response.json()
    assert response.json()["error"]["code"] == code


def _publish(team, user, *accounts, mode="immediate", scheduled_at=None):
    return lifecycle.publish_create(
        team=team,
        caller=inputs.Caller(user=user),
        content="Hello",
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(a.pk)) for a in accounts],
        publish_mode=mode,
        scheduled_at=scheduled_at,
    )


def _media(team, user, size):
    return media_services.media_create(
        team=team, user=user, filename="a.png", content_type="image/png", size_bytes=size
    )


MOVED = {
    "accounts": SocialAccount.objects,
    "publishes": Publish.objects,
    "targets": Target.objects,
    "attempts": DeliveryAttempt.objects,
    "jobs": DeliveryJob.objects,
    "releases": ScheduledRelease.objects,
    "media": MediaUpload.objects,
    "metrics": PostMetrics.objects,
    "samples": MetricsSample.objects,
}
TEAM_OF = {
    "accounts": "team",
    "publishes": "team",
    "targets": "publish__team",
    "attempts": "target__publish__team",
    "jobs": "target__publish__team",
    "releases": "publish__team",
    "media": "team",
    "metrics": "target__publish__team",
    "samples": "target__publish__team",
}


def _counts(team):
    return {name: manager.filter(**{TEAM_OF[name]: team}).count() for name, manager in MOVED.items()}


# --- 400: the body -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("Acme Inc", "CONFIRMATION_MISMATCH"),
        ("acme", "CONFIRMATION_MISMATCH"),
        ("ACME", "CONFIRMATION_MISMATCH"),
        (" Acme", "CONFIRMATION_MISMATCH"),
        ("Acme ", "CONFIRMATION_MISMATCH"),
        ("", "VALIDATION_ERROR"),
    ],
)
def test_the_name_must_be_confirmed_exactly(api, owner, second, name, code):
    response = _delete(api, owner.key, owner.team.pk, _body(second, name))

    _error(response, 400, code)
    assert Team.objects.filter(pk=owner.team.pk).exists()


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"confirmation_name": "Acme"},
        {"destination_team_id": "SECOND"},
        {"destination_team_id": "not-a-uuid", "confirmation_name": "Acme"},
        {"destination_team_id": None, "confirmation_name": "Acme"},
    ],
)
def test_missing_or_malformed_fields_are_refused(api, owner, second, body):
    if body.get("destination_team_id") == "SECOND":
        body = {"destination_team_id": str(second.pk)}

    response = _delete(api, owner.key, owner.team.pk, body)

    _error(response, 400, "VALIDATION_ERROR")
    assert Team.objects.filter(pk=owner.team.pk).exists()


def test_the_destination_cannot_be_the_team_itself(api, owner, second):
    response = _delete(api, owner.key, owner.team.pk, _body(owner.team))

    _error(response, 400, "INVALID_DESTINATION")


def test_the_destination_cannot_be_another_owners_team(api, owner, outsider):
    services.team_create(name="Acme Two", owner=owner.user)

    response = _delete(api, owner.key, owner.team.pk, _body(outsider.team))

    _error(response, 400, "INVALID_DESTINATION")
    assert Team.objects.filter(pk=owner.team.pk).exists()


def test_the_destination_cannot_be_a_team_the_owner_only_administers(api, owner, outsider):
    services.membership_add(team=outsider.team, user=owner.user, role=Role.ADMIN)

    response = _delete(api, owner.key, owner.team.pk, _body(outsider.team))

    _error(response, 400, "INVALID_DESTINATION")


def test_an_unknown_destination_is_refused(api, owner, second):
    body = {"destination_team_id": str(uuid.uuid4()), "confirmation_name": "Acme"}

    response = _delete(api, owner.key, owner.team.pk, body)

    _error(response, 400, "INVALID_DESTINATION")


# --- 403 and 404: who ----------------------------------------------------------------------------


@pytest.mark.parametrize("persona", ["admin", "member"])
def test_only_the_owner_can_delete(api, owner, second, persona, request):
    caller = request.getfixturevalue(persona)

    response = _delete(api, caller.key, owner.team.pk, _body(second))

    _error(response, 403, "NOT_TEAM_OWNER")
    assert Team.objects.filter(pk=owner.team.pk).exists()


def test_the_default_team_is_protected(api, owner, second):
    services.team_set_default(user=owner.user, team=owner.team)

    response = _delete(api, owner.key, owner.team.pk, _body(second))

    _error(response, 403, "DEFAULT_TEAM_PROTECTED")
    assert Team.objects.filter(pk=owner.team.pk).exists()


def test_a_team_key_of_another_team_cannot_delete(api, owner, second):
    response = _delete(api, _team_key(owner.user, second), owner.team.pk, _body(second))

    _error(response, 403, "TEAM_MISMATCH")


def test_a_user_key_active_in_another_team_cannot_delete(api, owner, second):
    response = _delete(api, _user_key(owner.user, active_team=second), owner.team.pk, _body(second))

    _error(response, 403, "TEAM_MISMATCH")


def test_a_key_without_teams_write_cannot_delete(api, owner, second):
    key = owner.key_with(*(s for s in SCOPES if s != "teams:write"))

    response = _delete(api, key, owner.team.pk, _body(second))

    _error(response, 403, "MISSING_SCOPE")


@pytest.mark.parametrize("kind", ["team key", "user key"])
def test_a_team_the_user_is_not_in_is_a_team_mismatch(api, owner, outsider, kind):
    key = owner.key if kind == "team key" else _user_key(owner.user, active_team=owner.team)

    response = _delete(api, key, outsider.team.pk, {"destination_team_id": str(owner.team.pk)})

    _error(response, 403, "TEAM_MISMATCH")
    assert Team.objects.filter(pk=outsider.team.pk).exists()


def test_an_unknown_team_is_a_team_mismatch(api, owner, second):
    response = _delete(api, owner.key, uuid.uuid4(), _body(second))

    _error(response, 403, "TEAM_MISMATCH")


def test_without_a_key_the_answer_is_401(api, owner, second):
    response = _delete(api, None, owner.team.pk, _body(second))

    assert response.status_code == 401


# --- the move ----------------------------------------------------------------------------------


def test_everything_moves_to_the_destination_and_nothing_is_lost(api, owner, admin, member, second):
    team = owner.team
    x, bluesky = sandbox_account(team, "x"), sandbox_account(team, "bluesky")
    _media(team, owner.user, 1000)
    _media(team, owner.user, 2000)
    sent = _publish(team, owner.user, x, bluesky)
    delivery.attempt_start(job=DeliveryJob.objects.filter(target__publish=sent).first())
    measured = Target.objects.filter(publish=sent).first()
    PostMetrics.objects.create(
        target=measured, views=10, likes=2, last_sync_at=timezone.now(), next_sync_at=timezone.now()
    )
    MetricsSample.objects.create(target=measured, taken_at=timezone.now(), views=10, likes=2)
    _publish(team, owner.user, x, mode="scheduled", scheduled_at=timezone.now() + dt.timedelta(hours=2))
    _publish(team, owner.user, bluesky, mode="draft")
    # The destination's own content stays where it is.
    _publish(second, owner.user, sandbox_account(second, "x"))
    before = {name: manager.count() for name, manager in MOVED.items()}
    source, destination = _counts(team), _counts(second)
    assert all(source.values()), source

    response = _delete(api, owner.key, team.pk, _body(second))

    assert response.status_code == 200, response.json()
    assert response.json()["data"]["moved"] == {"accounts": 2, "merged_accounts": 0, "publishes": 3, "media": 2}
    assert {name: manager.count() for name, manager in MOVED.items()} == before
    assert _counts(second) == {name: source[name] + destination[name] for name in MOVED}
    assert not Team.objects.filter(pk=team.pk).exists()


def test_the_response_names_what_was_moved_and_removed(api, owner, admin, second):
    response = _delete(api, owner.key, owner.team.pk, _body(second))

    assert response.json()["data"] == {
        "deleted_team_id": str(owner.team.pk),
        "destination_team_id": str(second.pk),
        "moved": {"accounts": 0, "merged_accounts": 0, "publishes": 0, "media": 0},
        "removed": {"team_keys": 2, "webhooks": 0, "memberships": 2},
        "revoked_keys": 0,
    }


def test_keys_webhooks_memberships_and_idempotency_keys_of_the_team_go(api, owner, admin, member, second):
    team = owner.team
    subscription = Subscription.objects.create(team=team, url="https://example.com/hook", events=["post.published"])
    event = Event.objects.create(team=team, type="post.published", data={})
    Delivery.objects.create(subscription=subscription, event=event, next_attempt_at=timezone.now())
    IdempotencyKey.objects.create(team=team, key="k1", body_hash="0" * 64, expires_at=timezone.now())
    admin_user_key = _user_key(admin.user, active_team=team)
    outside_user_key = _user_key(owner.user, active_team=second)

    response = _delete(api, owner.key, team.pk, _body(second))

    assert response.status_code == 200, response.json()
    assert response.json()["data"]["removed"] == {"team_keys": 3, "webhooks": 1, "memberships": 3}
    assert response.json()["data"]["revoked_keys"] == 1
    assert not ApiKey.objects.filter(team_id=team.pk).exists()
    assert not Membership.objects.filter(team_id=team.pk).exists()
    assert not Subscription.objects.exists()
    assert not Delivery.objects.exists()
    assert not Event.objects.exists()
    assert not IdempotencyKey.objects.exists()
    assert api.as_(admin_user_key).get("/api/v1/teams").json()["error"]["code"] == "API_KEY_REVOKED"
    assert api.as_(outside_user_key).get("/api/v1/teams").status_code == 200


@pytest.mark.parametrize("kind", ["team", "user"])
def test_the_key_used_no_longer_authenticates(api, owner, second, kind):
    key = owner.key if kind == "team" else _user_key(owner.user, active_team=owner.team)

    assert _delete(api, key, owner.team.pk, _body(second)).status_code == 200

    response = api.as_(key).get("/api/v1/teams")
    assert response.status_code == 401
    assert response.json()["error"]["type"] == "authentication_error"


def test_a_user_key_deleting_its_active_team_is_revoked_not_moved(api, owner, second):
    key = _user_key(owner.user, active_team=owner.team)

    response = _delete(api, key, owner.team.pk, _body(second))

    assert response.json()["data"]["revoked_keys"] == 1
    revoked = ApiKey.objects.get(kind="user", user=owner.user)
    assert revoked.revoked_at is not None
    assert revoked.active_team_id is None


def test_a_scheduled_publish_keeps_its_schedule_and_is_released_in_the_destination(api, owner, second):
    x = sandbox_account(owner.team, "x")
    due = (timezone.now() + dt.timedelta(hours=3)).replace(microsecond=0)
    scheduled = _publish(owner.team, owner.user, x, mode="scheduled", scheduled_at=due)

    assert _delete(api, owner.key, owner.team.pk, _body(second)).status_code == 200

    release = ScheduledRelease.objects.get(publish=scheduled)
    assert (release.publish.team_id, release.due_at) == (second.pk, due)
    destination_key = _team_key(owner.user, second)
    shown = api.as_(destination_key).get(f"/api/v1/publishes/{scheduled.pk}").json()["data"]
    assert shown["status"] == "scheduled"
    assert release_due(now=due - dt.timedelta(seconds=1)) == 0
    assert release_due(now=due + dt.timedelta(seconds=1)) == 1
    scheduled.refresh_from_db()
    assert scheduled.team_id == second.pk
    assert scheduled.status == PublishStatus.PUBLISHING
    assert list(Target.objects.filter(publish=scheduled).values_list("state", flat=True)) == [TargetState.QUEUED]
    assert DeliveryJob.objects.filter(target__publish=scheduled).count() == 1


def test_usage_of_the_destination_counts_the_moved_accounts_storage_and_posts(api, owner, second):
    _publish(owner.team, owner.user, sandbox_account(owner.team, "x"))
    _publish(owner.team, owner.user, sandbox_account(owner.team, "bluesky"))
    _media(owner.team, owner.user, 1500)
    _publish(second, owner.user, sandbox_account(second, "x"))
    _media(second, owner.user, 500)

    assert _delete(api, owner.key, owner.team.pk, _body(second)).status_code == 200

    usage = api.as_(_team_key(owner.user, second)).get("/api/v1/usage").json()["data"]["usage"]
    assert usage == {"posts_this_month": 3, "social_accounts": 3, "media_storage_bytes": 2000}
    assert not MonthlyUsage.objects.filter(team_id=owner.team.pk).exists()


def test_an_account_the_destination_already_has_is_merged_into_it(api, owner, second):
    x = sandbox_account(owner.team, "x")
    twin = SocialAccountFactory(team=second, platform="x", external_id=x.external_id)
    publish = _publish(owner.team, owner.user, x)

    response = _delete(api, owner.key, owner.team.pk, _body(second))

    assert response.json()["data"]["moved"]["accounts"] == 0
    assert response.json()["data"]["moved"]["merged_accounts"] == 1
    assert not SocialAccount.objects.filter(pk=x.pk).exists()
    assert list(Target.objects.filter(publish=publish).values_list("account_id", flat=True)) == [twin.pk]
    usage = api.as_(_team_key(owner.user, second)).get("/api/v1/usage").json()["data"]["usage"]
    assert usage["social_accounts"] == 1


def test_members_of_the_deleted_team_lose_it_but_keep_their_other_teams(api, owner, member, outsider, second):
    services.membership_add(team=outsider.team, user=member.user, role=Role.MEMBER)

    assert _delete(api, owner.key, owner.team.pk, _body(second)).status_code == 200

    assert list(Membership.objects.filter(user=member.user).values_list("team_id", flat=True)) == [outsider.team.pk]
    assert api.as_(member.key).get("/api/v1/teams").status_code == 401
