"""The totals the analytics list sorts by (`PostTotals`), and the team's per platform the
dashboard shows (`PlatformTotals`), always hold what the targets and their metrics add up to:
right after a target is published (before any sync), after each sync (a withdrawn like
included), on every platform and over all of them, while syncs and deliveries of one team run
at once; and the migration that made the tables fills them in for publishes published before."""

from __future__ import annotations

import importlib
import threading
from typing import Any

import pytest
from django.apps import apps
from django.db import connection, transaction
from django.db.models import Count, F, Max, Min, Sum

from analytics import services, totals
from analytics.models import PlatformTotals, PostMetrics, PostTotals
from publishing import readback
from publishing.models import Publish, Target, TargetState

pytestmark = pytest.mark.django_db


def _kept() -> dict[tuple[str, str], tuple[Any, ...]]:
    return {
        (str(t.publish_id), t.platform): (
            t.first_published_at,
            t.views,
            t.likes,
            t.comments,
            t.shares,
            t.views_reported,
            t.last_sync_at,
        )
        for t in PostTotals.objects.all()
    }


def _added_up() -> dict[tuple[str, str], tuple[Any, ...]]:
    """The same sums, read from the published targets and their metrics."""
    sums = {
        "first": Min("published_at"),
        **{name: Sum(f"metrics__{name}") for name in ("views", "likes", "comments", "shares")},
        "views_reported": Count("metrics__views"),
        "synced": Max("metrics__last_sync_at"),
    }
    published = Target.objects.filter(state=TargetState.PUBLISHED)
    overall = published.values("publish_id").annotate(**sums).order_by()
    per_platform = published.values("publish_id", "platform").annotate(**sums).order_by()
    return {
        (str(row["publish_id"]), row.get("platform", "")): (
            row["first"],
            *(row[name] or 0 for name in ("views", "likes", "comments", "shares")),
            row["views_reported"],
            row["synced"],
        )
        for row in [*overall, *per_platform]
    }


_TEAM_COLUMNS = ("posts", "views", "likes", "comments", "shares", "views_reported", "last_sync_at")


def _team_kept() -> dict[tuple[str, str], tuple[Any, ...]]:
    rows = PlatformTotals.objects.exclude(posts=0, last_sync_at=None)
    return {(str(t.team_id), t.platform): tuple(getattr(t, name) for name in _TEAM_COLUMNS) for t in rows}


def _team_added_up() -> dict[tuple[str, str], tuple[Any, ...]]:
    """Each team's sums per platform, read from its published targets and their metrics."""
    rows = (
        Target.objects.filter(state=TargetState.PUBLISHED)
        .values("publish__team_id", "platform")
        .annotate(
            posts=Count("publish", distinct=True),
            **{name: Sum(f"metrics__{name}") for name in ("views", "likes", "comments", "shares")},
            views_reported=Count("metrics__views"),
            last_sync_at=Max("metrics__last_sync_at"),
        )
        .order_by()
    )
    return {
        (str(row["publish__team_id"]), row["platform"]): (
            *(row[name] or 0 for name in _TEAM_COLUMNS[:-1]),
            row["last_sync_at"],
        )
        for row in rows
    }


def test_totals_hold_the_sums_after_publishing_and_after_each_sync(hot_path, posts, accounts):
    both = posts.publish(accounts.x, accounts.bluesky, content="On two networks")
    posts.publish(accounts.x, content="On one")
    assert {(both, ""), (both, "x"), (both, "bluesky")} <= set(_kept())
    assert _kept() == _added_up()  # listed at once, with zeros

    posts.set_metrics(both, "x", views=120, likes=7, comments=2, shares=1)
    posts.set_metrics(both, "bluesky", likes=5, comments=1)
    services.metrics_sync()
    assert _kept() == _added_up()
    assert _kept()[(both, "")][1:5] == (120, 12, 3, 1)

    assert _team_kept() == _team_added_up()

    posts.set_metrics(both, "x", views=300, likes=6)  # a like withdrawn
    services.metrics_refresh(publish=Target.objects.get(publish_id=both, platform="x").publish)
    services.metrics_sync()
    assert _kept() == _added_up()
    assert _kept()[(both, "x")][1:3] == (300, 6)
    assert _team_kept() == _team_added_up()
    x = _team_kept()[(str(Publish.objects.get(pk=both).team_id), "x")]
    assert x[:3] == (2, 300, 6)  # two posts on X, one with its views and likes read


def test_a_post_its_read_back_found_is_listed_with_its_totals(posts, accounts, sandbox):
    sandbox.outcomes("x", "timeout")  # the post is made, its answer lost
    publish_id = posts.publish(accounts.x, content="Answer lost")
    target = Target.objects.get(publish_id=publish_id)
    assert target.state == TargetState.UNKNOWN
    assert (publish_id, "") not in _kept()

    readback.check(target_id=target.pk)

    target.refresh_from_db()
    assert target.state == TargetState.PUBLISHED
    assert _kept()[(publish_id, "x")] == _added_up()[(publish_id, "x")]
    assert _team_kept() == _team_added_up()
    assert Publish.objects.get(pk=publish_id).published_at == target.published_at  # on the calendar


def test_the_migration_fills_in_every_published_publish(posts, accounts):
    first = posts.publish(accounts.x, accounts.bluesky, content="Before the table")
    posts.set_metrics(first, "x", views=40, likes=4)
    services.metrics_sync()
    posts.publish(accounts.linkedin, content="Another one")
    posts.publish(accounts.x, content="A draft", publish_mode="draft")
    before, team_before = _kept(), _team_kept()
    PostTotals.objects.all().delete()
    PlatformTotals.objects.all().delete()

    migration = importlib.import_module("analytics.migrations.0002_post_totals")
    migration.fill(apps, None)

    assert _kept() == before == _added_up()
    assert _team_kept() == team_before == _team_added_up()
    assert len(team_before) == 3  # X, Bluesky and LinkedIn
    assert len(before) == 5  # two publishes: over all and per platform; the draft has none


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_syncs_and_deliveries_of_one_team_at_once_keep_its_sums(hot_path, posts, accounts):
    """Rewrites of one team's posts in eight transactions at once, some of every post (as a
    sync writes them) and some of one (as the engine does): none waits on another for ever,
    and the team's sums per platform are what its posts add up to."""
    published = [posts.publish(accounts.x, accounts.bluesky, content=f"Post {i}") for i in range(6)]
    services.metrics_sync()
    PostMetrics.objects.filter(target__publish_id__in=published).update(likes=F("likes") + 3, views=11)
    barrier = threading.Barrier(8)
    failures: list[BaseException] = []

    def rewrite(ids: list[str]) -> None:
        try:
            barrier.wait()
            with transaction.atomic():
                totals.lock(ids)
                totals.refresh(ids)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            failures.append(exc)
        finally:
            connection.close()

    work = [published, published[::-1], published[2:], published[:3], *([one] for one in published[:4])]
    threads = [threading.Thread(target=rewrite, args=(ids,)) for ids in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert _kept() == _added_up()
    assert _team_kept() == _team_added_up()
    assert _team_kept()[(str(Publish.objects.get(pk=published[0]).team_id), "x")][:3] == (6, 66, 18)
