"""The check of a scheduled publish before its time (`publishing.preflight`): what it finds wrong
with each target as its account, token and media are now, the `post.at_risk` event, the API's
`preflight` field and the dashboard's warnings. Platforms are the sandbox, over real HTTP; time
is moved by scheduling near now."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts import services as account_services
from accounts.models import AccountStatus
from accounts.platforms.base import Credentials
from media import services as media_services
from media.models import MediaUpload
from publishing.preflight import preflight_due
from publishing.tasks import preflight as preflight_task
from sandbox import tokens as sandbox_tokens
from tests.media import files
from webhooks.models import Event

pytestmark = pytest.mark.django_db


# --- helpers ---------------------------------------------------------------------------------


def _in(minutes: float) -> dt.datetime:
    return (timezone.now() + dt.timedelta(minutes=minutes)).replace(microsecond=0)


def _scheduled(api, persona, *accounts, minutes=5, **body):
    payload = {
        "content": "Launch day",
        "targets": [{"account_id": str(a.pk)} for a in accounts],
        "publish_mode": "scheduled",
        "scheduled_at": _in(minutes).isoformat(),
        **body,
    }
    response = api.as_(persona.key).post("/api/v1/publishes", payload, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def _get(api, persona, publish_id):
    response = api.as_(persona.key).get(f"/api/v1/publishes/{publish_id}")
    assert response.status_code == 200
    return response.json()["data"]


def _at_risk_events(team):
    return list(Event.objects.filter(team=team, type="post.at_risk"))


def _codes(preflight):
    return [(p["platform"], p["code"]) for p in preflight["problems"]]


def _page(client, persona, path):
    client.force_login(persona.user)
    response = client.get(path, {"team": str(persona.team.pk)})
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def image(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return lambda team: files.stored_upload(team, files.image(), "image/png", "launch.png")


# --- what it finds -----------------------------------------------------------------------------


def test_a_disconnected_account_puts_the_publish_at_risk_once(api, owner, accounts, sandbox):
    publish = _scheduled(api, owner, accounts.x, accounts.bluesky)
    account_services.account_disconnect(account=accounts.x)

    assert preflight_due() == 1
    assert preflight_due() == 1  # at risk: checked again each run, the same problem told once

    preflight = _get(api, owner, publish["id"])["preflight"]
    assert preflight["at_risk"] is True
    assert _codes(preflight) == [("x", "ACCOUNT_DISCONNECTED")]
    assert preflight["problems"][0]["account_id"] == str(accounts.x.pk)
    assert preflight["scheduled_at"] == publish["scheduled_at"]
    events = _at_risk_events(owner.team)
    assert len(events) == 1
    assert events[0].data["publish_id"] == publish["id"]
    assert events[0].data["status"] == "scheduled"
    assert [p["code"] for p in events[0].data["problems"]] == ["ACCOUNT_DISCONNECTED"]
    assert {t["platform"] for t in events[0].data["targets"]} == {"x", "bluesky"}


def test_a_deleted_media_file_puts_the_publish_at_risk(api, owner, accounts, sandbox, image):
    media_id = image(owner.team)
    publish = _scheduled(api, owner, accounts.bluesky, media_ids=[media_id])
    media_services.media_delete(upload=MediaUpload.objects.get(pk=media_id))

    preflight_due()

    preflight = _get(api, owner, publish["id"])["preflight"]
    assert _codes(preflight) == [("bluesky", "MEDIA_NOT_FOUND")]
    assert media_id in preflight["problems"][0]["message"]
    assert len(_at_risk_events(owner.team)) == 1


def test_a_token_expiring_before_the_time_without_a_refresh_token_is_a_problem(api, owner, accounts, sandbox):
    publish = _scheduled(api, owner, accounts.x, minutes=8)
    account = accounts.x
    account.refresh_token, account.token_expires_at = "", timezone.now() + dt.timedelta(minutes=4)
    account.save()

    preflight_due()

    preflight = _get(api, owner, publish["id"])["preflight"]
    assert _codes(preflight) == [("x", "TOKEN_EXPIRES")]
    assert "re-authorize" in preflight["problems"][0]["message"]
    assert len(_at_risk_events(owner.team)) == 1


def test_a_refused_token_refresh_is_a_problem_and_expires_the_account(api, owner, accounts, sandbox):
    publish = _scheduled(api, owner, accounts.x)
    account = accounts.x
    account.refresh_token, account.token_expires_at = "not-a-refresh-token", timezone.now() + dt.timedelta(minutes=1)
    account.save()

    preflight_due()

    assert _codes(_get(api, owner, publish["id"])["preflight"]) == [("x", "TOKEN_REFRESH_REFUSED")]
    account.refresh_from_db()
    assert account.status == AccountStatus.EXPIRED


def test_a_token_that_can_be_renewed_is_renewed_now_and_is_no_problem(api, owner, accounts, sandbox):
    publish = _scheduled(api, owner, accounts.x)
    account = accounts.x
    account.token_expires_at = timezone.now() + dt.timedelta(minutes=1)
    account.save()
    old_token = account.access_token

    preflight_due()

    preflight = _get(api, owner, publish["id"])["preflight"]
    assert preflight["at_risk"] is False
    account.refresh_from_db()
    assert account.access_token != old_token
    assert account.token_expires_at > timezone.now() + dt.timedelta(hours=1)
    assert _at_risk_events(owner.team) == []


def test_a_token_the_platform_refuses_on_a_live_read_is_a_problem(api, owner, accounts, sandbox, image):
    publish = _scheduled(api, owner, accounts.tiktok, media_ids=[image(owner.team)])
    account = accounts.tiktok
    account.access_token = sandbox_tokens.issue("tiktok", account.external_id, lifetime_seconds=-60)
    account.save()

    preflight_due()

    assert _codes(_get(api, owner, publish["id"])["preflight"]) == [("tiktok", "TOKEN_REFUSED")]
    account.refresh_from_db()
    assert account.status == AccountStatus.EXPIRED


def test_a_post_the_create_would_refuse_now_is_a_problem(api, owner, accounts, sandbox):
    publish = _scheduled(api, owner, accounts.x)
    # Stored before a rule tightened, or by an older version: the create's rules run again.
    accounts.x.targets.update(content="x" * 400)

    preflight_due()

    preflight = _get(api, owner, publish["id"])["preflight"]
    assert [code for _, code in _codes(preflight)] == ["TEXT_TOO_LONG"]


# --- what it leaves alone ----------------------------------------------------------------------


def test_a_healthy_publish_is_checked_without_an_event(api, owner, accounts, sandbox):
    publish = _scheduled(api, owner, accounts.x, accounts.bluesky)

    assert preflight_task.delay().get() == 1

    preflight = _get(api, owner, publish["id"])["preflight"]
    assert preflight == {**preflight, "at_risk": False, "problems": [], "scheduled_at": publish["scheduled_at"]}
    assert _at_risk_events(owner.team) == []
    assert preflight_due() == 0  # checked once for its time


def test_a_publish_outside_the_window_is_not_checked(api, owner, accounts, sandbox, settings):
    settings.PREFLIGHT_SECONDS = 600
    publish = _scheduled(api, owner, accounts.x, minutes=30)
    account_services.account_disconnect(account=accounts.x)

    assert preflight_due() == 0

    assert _get(api, owner, publish["id"])["preflight"] is None
    assert _at_risk_events(owner.team) == []


def test_a_rescheduled_publish_is_checked_again_for_its_new_time(api, owner, accounts, sandbox):
    publish = _scheduled(api, owner, accounts.x)
    preflight_due()
    account_services.account_disconnect(account=accounts.x)
    new_time = _in(7)

    response = api.as_(owner.key).post(
        f"/api/v1/publishes/{publish['id']}/reschedule", {"scheduled_at": new_time.isoformat()}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["data"]["preflight"] is None  # the check was for the old time

    assert preflight_due() == 1
    preflight = _get(api, owner, publish["id"])["preflight"]
    assert _codes(preflight) == [("x", "ACCOUNT_DISCONNECTED")]
    assert len(_at_risk_events(owner.team)) == 1


def test_a_problem_fixed_in_time_clears_the_warning(api, owner, accounts, sandbox, client):
    publish = _scheduled(api, owner, accounts.x)
    account = accounts.x
    account_services.account_disconnect(account=account)
    preflight_due()

    account_services.account_connect(
        team=owner.team,
        platform="x",
        credentials=Credentials(
            access_token=sandbox_tokens.issue("x", account.external_id, lifetime_seconds=86400),
            refresh_token=sandbox_tokens.issue("x", account.external_id, lifetime_seconds=86400, kind="sbr"),
            expires_at=timezone.now() + dt.timedelta(days=1),
            external_id=account.external_id,
        ),
        sandbox=True,
    )
    assert preflight_due() == 1

    assert _get(api, owner, publish["id"])["preflight"]["at_risk"] is False
    assert f'id="at-risk-{publish["id"]}"' not in _page(client, owner, "/dashboard/home/")
    assert len(_at_risk_events(owner.team)) == 1


# --- the dashboard -------------------------------------------------------------------------------


def test_home_lists_publishes_at_risk_with_their_problems_and_a_link(api, owner, accounts, sandbox, client):
    at_risk = _scheduled(api, owner, accounts.x, content="Disconnected one")
    healthy = _scheduled(api, owner, accounts.bluesky, content="Healthy one")
    account_services.account_disconnect(account=accounts.x)
    preflight_due()

    page = _page(client, owner, "/dashboard/home/")

    section = page.split('id="at-risk"', 1)[1].split("</section>", 1)[0]
    assert f'id="at-risk-{at_risk["id"]}"' in section
    assert f"/dashboard/publishes/{at_risk['id']}/?team={owner.team.pk}#at-risk" in section
    assert "is disconnected; connect it again first." in section
    assert "Healthy one" not in section
    assert healthy["id"] not in section


def test_home_has_no_at_risk_section_when_nothing_is(api, owner, accounts, sandbox, client):
    _scheduled(api, owner, accounts.x)
    preflight_due()

    assert 'id="at-risk"' not in _page(client, owner, "/dashboard/home/")


def test_the_publish_page_warns_with_the_problems(api, owner, accounts, sandbox, client, image):
    media_id = image(owner.team)
    publish = _scheduled(api, owner, accounts.x, accounts.bluesky, media_ids=[media_id])
    account_services.account_disconnect(account=accounts.x)
    media_services.media_delete(upload=MediaUpload.objects.get(pk=media_id))
    preflight_due()

    page = _page(client, owner, f"/dashboard/publishes/{publish['id']}/")

    box = page.split('<section class="at-risk" id="at-risk"', 1)[1].split("</section>", 1)[0]
    assert "is disconnected; connect it again first." in box
    assert "Media no longer in the library" in box
    assert "(ACCOUNT_DISCONNECTED)" in box
    assert "(MEDIA_NOT_FOUND)" in box
    assert f"/dashboard/publishes/{publish['id']}/edit/" in box


def test_a_healthy_publish_page_shows_no_warning(api, owner, accounts, sandbox, client):
    publish = _scheduled(api, owner, accounts.x)
    preflight_due()

    assert 'id="at-risk"' not in _page(client, owner, f"/dashboard/publishes/{publish['id']}/")
