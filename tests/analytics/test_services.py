"""The metrics sync against the sandbox over real HTTP: what it reads, what it keeps when a
platform fails, what it skips, and when each post is due again."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.platforms.registry import client_for
from accounts.services import account_mark_expired
from analytics import services
from analytics.models import MetricsSample, PostMetrics
from analytics.tasks import sync
from config import lanes
from config.celery import app
from publishing.models import Target

pytestmark = pytest.mark.django_db


def test_sync_reads_each_platforms_values(posts, accounts):
    publish_id = posts.publish(accounts.x, accounts.bluesky, accounts.linkedin)
    posts.set_metrics(publish_id, "x", views=100, likes=10, comments=2, shares=3)
    posts.set_metrics(publish_id, "bluesky", views=999, likes=5, comments=1, shares=4)
    posts.set_metrics(publish_id, "linkedin", views=50, likes=7, comments=3, shares=1)

    assert services.metrics_sync() == 3

    x = PostMetrics.objects.get(target=posts.target(publish_id, "x"))
    assert (x.views, x.likes, x.comments, x.shares) == (100, 10, 2, 3)
    assert x.extra["impression_count"] == 100
    assert x.last_sync_at is not None
    assert x.sync_error == ""
    bluesky = PostMetrics.objects.get(target=posts.target(publish_id, "bluesky"))
    # Bluesky reports no views at all.
    assert (bluesky.views, bluesky.likes, bluesky.comments, bluesky.shares) == (None, 5, 1, 4)
    linkedin = PostMetrics.objects.get(target=posts.target(publish_id, "linkedin"))
    assert (linkedin.likes, linkedin.comments) == (7, 3)
    assert MetricsSample.objects.count() == 3


def test_a_second_sync_appends_a_sample_and_updates_the_values(posts, accounts):
    publish_id = posts.publish(accounts.x)
    posts.set_metrics(publish_id, "x", views=10, likes=1)
    first = timezone.now()
    services.metrics_sync(now=first)
    posts.set_metrics(publish_id, "x", views=25, likes=4)

    services.metrics_sync(now=first + dt.timedelta(hours=1))

    metrics = PostMetrics.objects.get(target=posts.target(publish_id, "x"))
    assert (metrics.views, metrics.likes) == (25, 4)
    assert metrics.last_sync_at == first + dt.timedelta(hours=1)
    samples = MetricsSample.objects.filter(target=metrics.target).order_by("taken_at")
    assert [(s.views, s.likes) for s in samples] == [(10, 1), (25, 4)]


def test_a_second_run_at_once_finds_nothing_due(posts, accounts):
    posts.publish(accounts.x)
    now = timezone.now()

    assert services.metrics_sync(now=now) == 1
    assert services.metrics_sync(now=now) == 0
    assert MetricsSample.objects.count() == 1


def test_newer_posts_are_due_sooner_than_old_ones(posts, accounts, settings):
    settings.ANALYTICS_SYNC_SECONDS = 900
    now = timezone.now()
    fresh, recent, old = (posts.publish(accounts.x, content=f"post {i}") for i in range(3))
    Target.objects.filter(publish_id=recent).update(published_at=now - dt.timedelta(days=3))
    Target.objects.filter(publish_id=old).update(published_at=now - dt.timedelta(days=30))

    services.metrics_sync(now=now)

    def due(publish_id):
        return PostMetrics.objects.get(target__publish_id=publish_id).next_sync_at - now

    assert due(fresh) < dt.timedelta(seconds=900)
    assert due(recent) == dt.timedelta(hours=1)
    assert due(old) == dt.timedelta(days=1)
    # One tick later only the fresh post is read again.
    assert services.metrics_sync(now=now + dt.timedelta(seconds=900)) == 1
    assert MetricsSample.objects.filter(target__publish_id=fresh).count() == 2


def test_an_expired_account_is_skipped_and_shown_while_others_sync(posts, accounts):
    publish_id = posts.publish(accounts.x, accounts.bluesky)
    posts.set_metrics(publish_id, "bluesky", likes=8)
    posts.set_metrics(publish_id, "x", likes=99)
    account_mark_expired(account=accounts.x, reason="The token was revoked.")

    assert services.metrics_sync() == 1

    x = PostMetrics.objects.get(target=posts.target(publish_id, "x"))
    assert x.last_sync_at is None
    assert x.likes == 0
    assert "expired" in x.sync_error.lower()
    assert "re-authorize" in x.sync_error
    bluesky = PostMetrics.objects.get(target=posts.target(publish_id, "bluesky"))
    assert (bluesky.likes, bluesky.sync_error) == (8, "")


def test_a_post_gone_from_the_platform_keeps_its_old_values(posts, accounts, sandbox):
    publish_id = posts.publish(accounts.x, accounts.bluesky)
    posts.set_metrics(publish_id, "x", views=40, likes=4)
    posts.set_metrics(publish_id, "bluesky", likes=2)
    now = timezone.now()
    services.metrics_sync(now=now)
    # The post disappears from the platform; the other platform still answers.
    posts.set_metrics(publish_id, "bluesky", likes=6)
    with sandbox.state.lock:
        sandbox.state.posts = [p for p in sandbox.state.posts if p.platform != "x"]

    services.metrics_sync(now=now + dt.timedelta(hours=1))

    x = PostMetrics.objects.get(target=posts.target(publish_id, "x"))
    assert (x.views, x.likes, x.last_sync_at) == (40, 4, now)
    assert x.sync_error
    assert PostMetrics.objects.get(target=posts.target(publish_id, "bluesky")).likes == 6


def test_a_refused_token_expires_the_account_and_stops_its_reads(posts, accounts):
    from accounts.models import SocialAccount

    publish_id = posts.publish(accounts.x)
    SocialAccount.objects.filter(pk=accounts.x.pk).update(access_token="not-a-valid-token")

    assert services.metrics_sync() == 0

    assert SocialAccount.objects.get(pk=accounts.x.pk).status == "expired"
    metrics = PostMetrics.objects.get(target=posts.target(publish_id, "x"))
    assert "re-authorize" in metrics.sync_error
    assert metrics.last_sync_at is None


def test_unpublished_targets_get_no_metrics(posts, accounts, sandbox):
    sandbox.outcomes("bluesky", "error")
    posts.publish(accounts.x, accounts.bluesky)
    posts.publish(accounts.x, publish_mode="draft")

    services.metrics_sync()

    assert list(PostMetrics.objects.values_list("target__platform", flat=True)) == ["x"]


def test_reads_are_batched_as_the_platform_allows(posts, accounts, monkeypatch):
    monkeypatch.setattr(client_for("x"), "metrics_batch_size", 2)
    for i in range(5):
        posts.publish(accounts.x, content=f"batch {i}")
    lookups = []

    def count(response, *args, **kwargs):
        if "/2/tweets?" in response.url:
            lookups.append(response.url.split("ids=")[1].split("&")[0].count("%2C") + 1)

    hooks = services.client_for("x").session.hooks["response"]
    hooks.append(count)
    try:
        assert services.metrics_sync() == 5
    finally:
        hooks.remove(count)

    assert lookups == [2, 2, 1]


def test_an_unreachable_platform_keeps_the_old_values(posts, accounts, settings):
    publish_id = posts.publish(accounts.x)
    posts.set_metrics(publish_id, "x", views=12, likes=3)
    now = timezone.now()
    services.metrics_sync(now=now)
    settings.SANDBOX_URL = "http://127.0.0.1:9"  # nothing listens there: the connection is refused

    assert services.metrics_sync(now=now + dt.timedelta(hours=1)) == 0

    metrics = PostMetrics.objects.get(target=posts.target(publish_id, "x"))
    assert (metrics.views, metrics.likes, metrics.last_sync_at) == (12, 3, now)
    assert "CONNECTION_FAILED" in metrics.sync_error
    assert metrics.next_sync_at > now + dt.timedelta(hours=1)


def test_an_accounts_reads_per_run_are_capped_and_the_rest_waits(posts, accounts, monkeypatch):
    monkeypatch.setattr(services, "CALLS_PER_ACCOUNT_RUN", 2)
    monkeypatch.setattr(client_for("x"), "metrics_batch_size", 1)
    for i in range(3):
        posts.publish(accounts.x, content=f"capped {i}")
    posts.publish(accounts.bluesky)
    now = timezone.now()

    assert services.metrics_sync(now=now) == 3  # two of x, one of bluesky
    assert services.metrics_sync(now=now + dt.timedelta(seconds=1)) == 1


def test_the_sync_task_hands_each_team_its_own_task_on_the_analytics_queue(posts, accounts):
    publish_id = posts.publish(accounts.x)
    posts.set_metrics(publish_id, "x", views=7)

    assert {app.amqp.router.route({}, name)["queue"].name for name in ("analytics.sync", "analytics.sync_team")} == {
        "analytics"
    }
    assert sync.delay().get() == 1  # one team
    assert PostMetrics.objects.get(target=posts.target(publish_id, "x")).views == 7


def test_a_team_already_syncing_is_not_synced_beside_itself(posts, accounts):
    publish_id = posts.publish(accounts.x)
    team_id = str(accounts.x.team_id)

    with lanes.team_share("analytics", team_id, lease_seconds=60):
        assert services.metrics_sync_team(team_id=team_id) == 0
    assert services.metrics_sync_team(team_id=team_id) == 0  # no row yet: the beat job makes them
    services.metrics_sync_fan_out()
    assert PostMetrics.objects.get(target=posts.target(publish_id, "x")).last_sync_at is not None


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_row_another_run_holds_is_skipped(posts, accounts):
    import threading

    from django.db import connection, transaction

    held, other = posts.publish(accounts.x, content="held"), posts.publish(accounts.x, content="other")
    now = timezone.now()
    services.metrics_sync(now=now)
    row = PostMetrics.objects.get(target__publish_id=held)
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:  # another worker in the middle of its claim
        try:
            with transaction.atomic():
                PostMetrics.objects.select_for_update().get(pk=row.pk)
                locked.set()
                release.wait(30)
        finally:
            connection.close()

    thread = threading.Thread(target=hold)
    thread.start()
    assert locked.wait(30)
    try:
        synced = services.metrics_sync(now=now + dt.timedelta(hours=1))
    finally:
        release.set()
        thread.join()

    assert synced == 1
    assert MetricsSample.objects.filter(target__publish_id=other).count() == 2
    assert MetricsSample.objects.filter(target__publish_id=held).count() == 1
