"""Reads of post analytics: publishes with their published targets' metrics summed, sorted
and paged by the database; the same sums per platform; a post's samples over time; an
account's daily totals and its recent posts."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.db.models import (
    Exists,
    F,
    Max,
    Min,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce, TruncDate

from accounts.models import SocialAccount
from analytics.chart import METRICS, Moment
from analytics.models import MetricsSample, PlatformTotals, PostTotals
from config.pagination import Keyed
from publishing.models import Publish, Target, TargetState
from teams.models import Team

SORTS = ("published_at", "total_views", "total_likes", "total_comments", "total_shares")
ORDERS = ("asc", "desc")
TOTALS = {"total_views": "views", "total_likes": "likes", "total_comments": "comments", "total_shares": "shares"}


def _counted(platforms: Sequence[str]) -> Q:
    """The targets whose metrics count: published ones, of the platforms asked for."""
    counted = Q(targets__state=TargetState.PUBLISHED)
    return counted & Q(targets__platform__in=platforms) if platforms else counted


def analytics_posts(
    *, team: Team, platforms: Sequence[str] = (), sort: str = "published_at", order: str = "desc"
) -> QuerySet[Publish]:
    """The team's publishes with at least one published target (of `platforms`, when given),
    each annotated with `first_published_at`, the `total_*` sums and `last_sync_at`; each
    carries its counted targets, with their metrics, as `published_targets`.

    Over every platform or one, the sums are the publish's `PostTotals` row for it, sorted and
    paged by that row's index; over several platforms they are summed as the list is read."""
    targets = Target.objects.filter(state=TargetState.PUBLISHED).select_related("metrics").order_by("created_at", "id")
    if platforms:
        targets = targets.filter(platform__in=platforms)
    prefetch = Prefetch("targets", queryset=targets, to_attr="published_targets")
    if len(platforms) > 1:
        return _summed_while_read(team, platforms, sort, order).prefetch_related(prefetch)
    kept = {"first_published_at": "first_published_at", "last_sync_at": "last_sync_at", **TOTALS}
    query = (
        Publish.objects.filter(totals__team=team, totals__platform=platforms[0] if platforms else "")
        .annotate(**{name: F(f"totals__{column}") for name, column in kept.items()})
        .prefetch_related(prefetch)
    )
    column = f"totals__{kept['first_published_at' if sort == 'published_at' else sort]}"
    return query.order_by(column, "id") if order == "asc" else query.order_by(f"-{column}", "-id")


def _summed_while_read(team: Team, platforms: Sequence[str], sort: str, order: str) -> QuerySet[Publish]:
    """`analytics_posts` over several platforms: each publish's targets on them summed."""
    published = Target.objects.filter(publish=OuterRef("pk"), state=TargetState.PUBLISHED, platform__in=platforms)
    counted = _counted(platforms)
    query = (
        Publish.objects.filter(team=team)
        .filter(Exists(published))
        .annotate(
            first_published_at=Min("targets__published_at", filter=counted),
            last_sync_at=Max("targets__metrics__last_sync_at", filter=counted),
            **{
                name: Coalesce(Sum(f"targets__metrics__{field}", filter=counted), Value(0))
                for name, field in TOTALS.items()
            },
        )
    )
    key = "first_published_at" if sort == "published_at" else sort
    if order == "asc":
        return query.order_by(F(key).asc(nulls_first=True), "id")
    return query.order_by(F(key).desc(nulls_last=True), "-id")


def analytics_listing(
    *, team: Team, platforms: Sequence[str] = (), sort: str = "published_at", order: str = "desc"
) -> Keyed | QuerySet[Publish]:
    """`analytics_posts` as a list to page. Over every platform or one, its order and count are
    the `PostTotals` index's alone (`Keyed`): a page reads its twenty keys, then those posts."""
    rows = analytics_posts(team=team, platforms=platforms, sort=sort, order=order)
    if len(platforms) > 1:
        return rows
    column = "first_published_at" if sort == "published_at" else TOTALS[sort]
    keys = PostTotals.objects.filter(team=team, platform=platforms[0] if platforms else "")
    keys = keys.order_by(column, "publish_id") if order == "asc" else keys.order_by(f"-{column}", "-publish_id")
    return Keyed(rows=rows, keys=keys.values_list("publish_id", flat=True))


def analytics_platform_totals(*, team: Team, platforms: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The team's published targets' metrics summed per platform: for each platform with a
    published target (of `platforms`, when given), `posts`, the `total_*` sums,
    `views_reported` (targets whose views were read) and `last_sync_at`. One row a platform
    (`PlatformTotals`), however long the team's history."""
    rows = PlatformTotals.objects.filter(team=team, posts__gt=0)
    if platforms:
        rows = rows.filter(platform__in=platforms)
    fields = {name: F(field) for name, field in TOTALS.items()}
    listed = rows.values("platform", "posts", "views_reported", "last_sync_at", **fields).order_by("platform")
    return [dict(row) for row in listed]


def metrics_samples(*, publish: Publish) -> QuerySet[MetricsSample]:
    """The samples of the publish's published targets, oldest first (a sync run's samples share
    their `taken_at`)."""
    return MetricsSample.objects.filter(target__publish=publish, target__state=TargetState.PUBLISHED).order_by(
        "taken_at", "target_id"
    )


def account_daily_totals(*, account: SocialAccount, since: dt.date) -> list[Moment]:
    """The account's published posts' totals at the end of each day from `since` (UTC), one
    moment a day at its midnight: the sum over its targets of each one's reading of that day.

    The database reduces the samples to one row per target and day (its highest reading of the
    day: the counts only grow, but for a withdrawn like), so the rows read here are bounded by
    posts times days of the span, never by the number of syncs. A target not read on a day
    counts with its last reading before, as the post's chart carries it forward."""
    rows = (
        MetricsSample.objects.filter(
            target__account=account,
            target__state=TargetState.PUBLISHED,
            taken_at__gte=dt.datetime.combine(since, dt.time(), tzinfo=dt.UTC),
        )
        .annotate(day=TruncDate("taken_at", tzinfo=dt.UTC))
        .values("target_id", "day")
        .annotate(**{metric: Max(metric) for metric in METRICS})
        .order_by("day")
    )
    latest: dict[Any, dict[str, Any]] = {}
    by_day: dict[dt.date, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_day[row["day"]].append(dict(row))
    moments = []
    for day, readings in by_day.items():
        latest.update((row["target_id"], row) for row in readings)
        values: dict[str, int | None] = {m: sum(row[m] or 0 for row in latest.values()) for m in METRICS}
        if all(row["views"] is None for row in latest.values()):
            values["views"] = None
        moments.append(Moment(taken_at=dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC), values=values))
    return moments


def account_recent_targets(*, account: SocialAccount, limit: int) -> QuerySet[Target]:
    """The account's most recently published targets, with their publish and latest metrics."""
    return (
        Target.objects.filter(account=account, state=TargetState.PUBLISHED)
        .select_related("publish", "metrics")
        .order_by(F("published_at").desc(nulls_last=True), "-id")[:limit]
    )
