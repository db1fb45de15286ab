"""Posts found gone from their platform, end to end over real HTTP to the sandbox: published,
taken down there (`POST /_sandbox/posts/remove`, as the owner would in the network's app), then
the metrics sync reads them back and marks the target removed by the platform, fires
`post.removed` once, stops reading it, and the API and the dashboard show it. A read that fails
says nothing about the post: the target stays as it was."""

from __future__ import annotations

import datetime as dt

import pytest
import requests
from django.test import Client
from django.utils import timezone

from accounts.platforms.interface import PlatformClient
from accounts.platforms.registry import client_for
from analytics import services
from analytics.models import MetricsSample, PostMetrics
from publishing.models import Target
from tests.media import files
from webhooks.models import Event

pytestmark = pytest.mark.django_db

BOARD = "549755885175"  # every sandbox Pinterest account's board
LATER = dt.timedelta(hours=1)
TEXT_ONLY = ("x", "linkedin")


def _reads_back(platform):
    return type(client_for(platform)).exists is not PlatformClient.exists


def _once_it_reads_back(platform):
    reason = f"the {platform} client cannot read a post back yet"
    return pytest.param(platform, marks=pytest.mark.skipif(not _reads_back(platform), reason=reason))


@pytest.fixture
def pulled(live_server, settings, tmp_path):
    """Pinterest and TikTok pull the media from this service over real HTTP."""
    settings.PUBLIC_BASE_URL = live_server.url
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return live_server


def _published(posts, owner, accounts, platform):
    """A publish of one target on `platform`, published on the sandbox; the target."""
    account = getattr(accounts, platform)
    if platform in TEXT_ONLY:
        return posts.target(posts.publish(account, content="Soon gone"), platform)
    image = files.stored_upload(owner.team, files.image("JPEG"), "image/jpeg", "photo.jpg")
    body = {"media_ids": [image]}
    if platform == "pinterest":
        target = {"account_id": str(account.pk), "platform_settings": {"boardId": BOARD}}
        body["targets"] = [target]
    publish_id = posts.publish(account, content="Soon gone", **body)
    target = posts.target(publish_id, platform)
    assert target.state == "published", (target.error_code, target.error_message)
    return target


def _remove(sandbox, target):
    body = {"platform": target.platform, "id": target.platform_post_id}
    requests.post(f"{sandbox.url}/_sandbox/posts/remove", json=body, timeout=5).raise_for_status()


def _removals(team):
    return list(Event.objects.filter(team=team, type="post.removed"))


@pytest.mark.parametrize(
    "platform",
    # X leaves a missing post out of its lookup, LinkedIn refuses its analytics (403): both
    # reach the read-back, as Pinterest's 404 and TikTok's query without it do.
    [_once_it_reads_back("x"), _once_it_reads_back("linkedin"), "pinterest", "tiktok"],
)
def test_a_post_removed_on_its_platform_is_marked_once_and_no_longer_read(
    posts, owner, accounts, sandbox, pulled, platform
):
    target = _published(posts, owner, accounts, platform)
    now = timezone.now()
    assert services.metrics_sync(now=now) == 1
    _remove(sandbox, target)

    assert services.metrics_sync(now=now + LATER) == 0

    target.refresh_from_db()
    assert (target.state, target.removed_by, target.removed_at) == ("published", "platform", now + LATER)
    [event] = _removals(owner.team)
    assert event.data["removed_by"] == "platform"
    [row] = event.data["targets"]
    assert (row["id"], row["removed_by"], row["platform_post_id"]) == (
        str(target.pk),
        "platform",
        target.platform_post_id,
    )
    assert row["removed_at"].startswith((now + LATER).strftime("%Y-%m-%dT%H:%M"))
    metrics = PostMetrics.objects.get(target=target)
    assert metrics.last_sync_at == now  # the last values read stay
    assert "no longer has this post" in metrics.sync_error
    # A second sync neither reads it again nor says it again.
    requests_before = len(sandbox.state.requests)
    assert services.metrics_sync(now=now + 30 * LATER) == 0
    assert len(sandbox.state.requests) == requests_before
    assert len(_removals(owner.team)) == 1
    assert MetricsSample.objects.filter(target=target).count() == 1


def test_the_api_and_the_dashboard_show_a_removed_target(api, owner, posts, accounts, sandbox, pulled):
    target = _published(posts, owner, accounts, "pinterest")
    kept = posts.target(posts.publish(accounts.bluesky, content="Still there"), "bluesky")
    _remove(sandbox, target)

    services.metrics_sync()

    [shown] = api.as_(owner.key).get(f"/api/v1/publishes/{target.publish_id}").json()["data"]["targets"]
    assert shown["removed_by"] == "platform"
    assert shown["removed_at"] is not None
    assert shown["removal_error"] is None
    [other] = api.as_(owner.key).get(f"/api/v1/publishes/{kept.publish_id}").json()["data"]["targets"]
    assert (other["removed_at"], other["removed_by"], other["removal_error"]) == (None, None, None)
    browser = Client()
    browser.force_login(owner.user)
    team = f"?team={owner.team.pk}"
    detail = browser.get(f"/dashboard/publishes/{target.publish_id}/{team}").content.decode()
    assert f'id="removed-{target.pk}"' in detail
    assert "Removed from Pinterest on " in detail
    assert "(by the platform)" in detail
    assert "View post" not in detail
    assert 'class="status removed"' in browser.get(f"/dashboard/publishes/{team}").content.decode()
    home = browser.get(f"/dashboard/home/{team}").content.decode()
    assert f'id="removed-{target.pk}"' in home
    assert f'id="removed-{kept.pk}"' not in home


def test_an_unreachable_platform_does_not_mark_anything_removed(posts, owner, accounts, sandbox, pulled, settings):
    target = _published(posts, owner, accounts, "pinterest")
    now = timezone.now()
    services.metrics_sync(now=now)
    _remove(sandbox, target)
    settings.SANDBOX_URL = "http://127.0.0.1:9"  # nothing listens there: the connection is refused

    services.metrics_sync(now=now + LATER)

    target.refresh_from_db()
    assert (target.removed_at, target.removed_by) == (None, "")
    assert _removals(owner.team) == []
    assert "CONNECTION_FAILED" in PostMetrics.objects.get(target=target).sync_error


def test_a_read_back_without_an_answer_is_not_a_removal_and_the_next_one_decides(
    posts, owner, accounts, sandbox, pulled, monkeypatch
):
    target = _published(posts, owner, accounts, "pinterest")
    now = timezone.now()
    services.metrics_sync(now=now)
    _remove(sandbox, target)
    session = client_for("pinterest").session
    real = session.request

    def pin_read_times_out(method, url, **kwargs):
        # The analytics read answers (404: no such pin); the read-back of the pin gets nothing.
        if method == "GET" and url.split("?")[0].endswith(f"/pins/{target.platform_post_id}"):
            raise requests.ReadTimeout()
        return real(method, url, **kwargs)

    monkeypatch.setattr(session, "request", pin_read_times_out)
    services.metrics_sync(now=now + LATER)

    target.refresh_from_db()
    assert target.removed_at is None
    assert _removals(owner.team) == []
    assert PostMetrics.objects.get(target=target).sync_error == services.NOT_RETURNED

    monkeypatch.setattr(session, "request", real)
    services.metrics_sync(now=now + 30 * LATER)

    target.refresh_from_db()
    assert target.removed_by == "platform"
    assert len(_removals(owner.team)) == 1


def test_a_post_still_there_is_not_removed(posts, owner, accounts, sandbox, pulled):
    target = _published(posts, owner, accounts, "tiktok")
    now = timezone.now()

    services.metrics_sync(now=now)
    services.metrics_sync(now=now + LATER)

    assert Target.objects.get(pk=target.pk).removed_at is None
    assert _removals(owner.team) == []
    assert MetricsSample.objects.filter(target=target).count() == 2
