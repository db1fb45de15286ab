"""Team A's objects for the isolation matrix: one of each kind an operation's path can name,
each in the state its operations accept (so that only the team check stands between another
team's key and a 2xx), plus the keys of team B that try to reach them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User

from accounts import connect_links
from accounts.models import ConnectLink, PostingSchedule, SocialAccount
from demo.seed import sandbox_account
from media.models import MediaUpload
from publishing.models import Publish
from teams import services
from teams.models import SCOPES, ApiKey, Role, Team
from tests.config.test_outbound import fake_dns  # noqa: F401 - the fixture, shared with test_ssrf
from tests.conftest import Api, Persona
from tests.media import files
from webhooks import services as webhook_services
from webhooks.models import Delivery, Subscription


@dataclass(frozen=True)
class TeamA:
    """Ids by kind: `ids["publish_draft"]`, `ids["account"]`, ... and every one of them in `all_ids`."""

    team: Team
    owner: Any
    ids: dict[str, str]

    @property
    def all_ids(self) -> set[str]:
        return set(self.ids.values())


def _created(api: Api, key: str, **body: Any) -> str:
    response = api.as_(key).post("/api/v1/publishes", body, format="json")
    assert response.status_code == 201, response.json()
    return str(response.json()["data"]["id"])


@pytest.fixture
def team_a(
    api: Api, owner: Persona, member: Persona, sandbox: Any, settings: Any, tmp_path: Any, eager_tasks: None
) -> TeamA:
    """Team A (approval required) with two sandbox accounts, a ready and an unconfirmed upload
    (bytes stored, so confirm would pass), a webhook, a second team of its owner, and publishes
    in the states the operations act on: a draft, a scheduled one, a partial one (one target
    failed, so retry and analytics apply) and one a member submitted, pending approval."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.SSRF_ALLOW_PRIVATE = True  # the webhook URL below resolves without DNS
    team = owner.team
    services.team_set_approval(team=team, user=owner.user, required=True)
    x, bluesky = sandbox_account(team, "x"), sandbox_account(team, "bluesky")
    targets = [{"account_id": str(x.pk)}, {"account_id": str(bluesky.pk)}]
    sandbox.outcomes("bluesky", "error")
    partial = _created(api, owner.key, content="Half", targets=targets)
    status = api.as_(owner.key).get(f"/api/v1/publishes/{partial}").json()["data"]["status"]
    assert status == "partial"
    second = services.team_create(name="Acme Two", owner=owner.user)
    hook = webhook_services.subscription_create(team=team, url="http://127.0.0.1:9/hook", events=["post.failed"])
    ids = {
        "team": str(team.pk),
        "second_team": str(second.pk),
        "account": str(x.pk),
        "account_bluesky": str(bluesky.pk),
        "media_ready": files.stored_upload(team, files.image(), "image/png", "photo.png"),
        "media_unconfirmed": files.stored_upload(team, files.image(), "image/png", "later.png", confirmed=False),
        "team_key": str(services.api_key_create(user=owner.user, name="CI", scopes=["posts:read"], team=team)[0].pk),
        "webhook": str(hook.pk),
        "connect_link": str(connect_links.link_create(team=team, redirect_url="http://localhost:9/done").pk),
        "webhook_delivery": str(webhook_services.subscription_send_test(subscription=hook).pk),
        "publish_partial": partial,
        "publish_draft": _created(api, owner.key, content="A draft", targets=targets, publish_mode="draft"),
        "publish_scheduled": _created(
            api, owner.key, content="Later", targets=targets, scheduled_at="2099-01-01T00:00:00Z"
        ),
        "publish_pending": _created(api, member.key, content="May I?", targets=targets),
    }
    return TeamA(team=Team.objects.get(pk=team.pk), owner=owner.user, ids=ids)


def snapshot(team_a: TeamA) -> dict[str, Any]:
    """What a user of team A would see change if another team's request got through."""
    team = team_a.team
    publishes = Publish.objects.filter(team=team).order_by("pk")
    return {
        "teams": sorted(team_a.owner.memberships.values_list("team_id", "team__name", "is_default")),
        "team_keys": sorted(
            ApiKey.objects.filter(team=team).values_list("pk", "name", "scopes", "expires_at", "revoked_at")
        ),
        "publishes": [(p.pk, p.status, p.approval_status, p.content, p.scheduled_at, p.updated_at) for p in publishes],
        "media": sorted(MediaUpload.objects.filter(team=team).values_list("pk", "state")),
        "accounts": sorted(SocialAccount.objects.filter(team=team).values_list("pk", "status", "access_token")),
        "connect_links": sorted(ConnectLink.objects.filter(team=team).values_list("pk", "revoked_at")),
        "posting_schedules": sorted(
            PostingSchedule.objects.filter(account__team=team).values_list("account_id", "time_zone", "slots")
        ),
        "webhooks": sorted(
            Subscription.objects.filter(team=team).values_list("pk", "url", "secret", "previous_secret", "disabled_at")
        ),
        "webhook_deliveries": sorted(
            Delivery.objects.filter(subscription__team=team).values_list("pk", "state", "attempts", "next_attempt_at")
        ),
    }


@dataclass(frozen=True)
class Foreign:
    """A key of team B that names team A's objects: a team key or a user key."""

    label: str
    key: str


@pytest.fixture(params=["team key of team B's owner", "user key of a team B member"])
def foreign(request: pytest.FixtureRequest, outsider: Persona) -> Foreign:
    if request.param.startswith("team key"):
        return Foreign(request.param, outsider.key)
    user = User.objects.create_user(username="b-member")
    # An admin, so that approve and reject could only be refused for the team, not the role.
    services.membership_add(team=outsider.team, user=user, role=Role.ADMIN)
    _, key = services.api_key_create(user=user, name="user key", scopes=SCOPES)
    return Foreign(request.param, key)
