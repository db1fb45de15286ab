"""Metrics samples stay bounded per post: every sample of a post's last week, then the last of
each day, and none over a year old; the latest values and the totals are never touched."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db.models import F
from django.utils import timezone

from analytics import services
from analytics.models import MetricsSample
from demo.seed import sandbox_account
from publishing.models import Publish, Target

pytestmark = pytest.mark.django_db


def _target(team, platform: str) -> Target:
    now = timezone.now()
    publish = Publish.objects.create(
        team=team, content="Charted", publish_mode="immediate", status="published", confirmed=True, published_at=now
    )
    account = sandbox_account(team, platform)
    return Target.objects.create(
        publish=publish, account=account, platform=platform, state="published", platform_post_id="1", published_at=now
    )


def _taken(target: Target, *moments: dt.datetime) -> None:
    MetricsSample.objects.bulk_create(
        MetricsSample(target=target, taken_at=at, likes=i) for i, at in enumerate(moments)
    )
    MetricsSample.objects.filter(target=target).update(created_at=F("taken_at"))


def _kept(target: Target) -> list[dt.datetime]:
    return list(MetricsSample.objects.filter(target=target).order_by("taken_at").values_list("taken_at", flat=True))


def test_a_week_old_day_keeps_its_last_sample_and_a_year_old_one_none(owner):
    now = timezone.now()
    x, bluesky = _target(owner.team, "x"), _target(owner.team, "bluesky")
    old_day = (now - dt.timedelta(days=8)).replace(hour=0, minute=0, second=0, microsecond=0)
    that_day = [old_day + dt.timedelta(hours=h) for h in (1, 10, 23)]
    this_week = [now - dt.timedelta(days=2, hours=h) for h in (1, 2, 3)]
    _taken(x, now - dt.timedelta(days=400), *that_day, *this_week)
    _taken(bluesky, *that_day[:2])

    deleted = services.samples_purge(now=now)

    assert _kept(x) == [that_day[-1], *sorted(this_week)]
    assert _kept(bluesky) == [that_day[1]]  # each post keeps its own day's last
    assert deleted == 1 + 2 + 1
    assert services.samples_purge(now=now) == 0  # a second run finds nothing
