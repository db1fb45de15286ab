"""The totals the analytics list sorts by (`PostTotals`) always hold what the targets and
their metrics add up to: right after a target is published (before any sync), after each
sync, on every platform and over all of them; and the migration that made the table fills it
in for publishes published before it."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps
from django.db.models import Max, Min, Sum

from analytics import services
from analytics.models import PostTotals
from publishing import readback
from publishing.models import Publish, Target, TargetState

pytestmark = pytest.mark.django_db


def _kept() -> dict[tuple[str, str], tuple[Any, ...]]:
    return {
        (str(t.publish_id), t.platform): (t.first_published_at, t.views, t.likes, t.comments, t.shares, t.last_sync_at)
        for t in PostTotals.objects.all()
    }


def _added_up() -> dict[tuple[str, str], tuple[Any, ...]]:
    """The same sums, read from the published targets and their metrics."""
    sums = {
        "first": Min("published_at"),
        **{name: Sum(f"metrics__{name}") for name in ("views", "likes", "comments", "shares")},
        "synced": Max("metrics__last_sync_at"),
    }
    published = Target.objects.filter(state=TargetState.PUBLISHED)
    overall = published.values("publish_id").annotate(**sums).order_by()
    per_platform = published.values("publish_id", "platform").annotate(**sums).order_by()
    return {
        (str(row["publish_id"]), row.get("platform", "")): (
            row["first"],
            *(row[name] or 0 for name in ("views", "likes", "comments", "shares")),
            row["synced"],
        )
        for row in [*overall, *per_platform]
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

    posts.set_metrics(both, "x", views=300, likes=9)
    services.metrics_refresh(publish=Target.objects.get(publish_id=both, platform="x").publish)
    services.metrics_sync()
    assert _kept() == _added_up()
    assert _kept()[(both, "x")][1:3] == (300, 9)


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
    assert Publish.objects.get(pk=publish_id).published_at == target.published_at  # on the calendar


def test_the_migration_fills_in_every_published_publish(posts, accounts):
    first = posts.publish(accounts.x, accounts.bluesky, content="Before the table")
    posts.set_metrics(first, "x", views=40, likes=4)
    services.metrics_sync()
    posts.publish(accounts.linkedin, content="Another one")
    posts.publish(accounts.x, content="A draft", publish_mode="draft")
    before = _kept()
    PostTotals.objects.all().delete()

    migration = importlib.import_module("analytics.migrations.0002_post_totals")
    migration.fill(apps, None)

    assert _kept() == before == _added_up()
    assert len(before) == 5  # two publishes: over all and per platform; the draft has none
