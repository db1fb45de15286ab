"""Each published publish's metrics summed (`PostTotals`), and each team's per platform
(`PlatformTotals`), written from the published targets and their latest metrics: when a target
is published (`publishing.listeners`) and when a sync reads metrics (`analytics.services`).

A publish's rows are rewritten whole from what is committed, under its lock, and what that
changed is added to its team's platform rows, so neither read costs more as history grows. On
PostgreSQL the rewrite is one fixed statement (the engine runs it under the publish's lock,
after each target published); the ORM twin, which every database has, reads the sums and the
rows as they were, then upserts them and adds the change."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db.models import Count, Max, Min, Sum
from django.utils import timezone

from analytics.models import PlatformTotals, PostTotals
from config.db import fixed_statements, run
from publishing.models import Publish, Target, TargetState
from teams.models import Team

_SUMMED = ("views", "likes", "comments", "shares")
_COUNTED = (*_SUMMED, "views_reported")

# The publishes' rows rewritten (one over every platform and one per platform, GROUPING SETS,
# in one lock order), and what that changed on each platform added to the team's
# PlatformTotals: `old` reads the rows as they were, since every part of one statement sees the
# same snapshot. The caller holds the publishes' locks, so no other rewrite of them interleaves.
_REFRESH_SQL = f"""
WITH old AS (
    SELECT team_id, platform, views, likes, comments, shares, views_reported
    FROM analytics_posttotals WHERE publish_id = ANY(%(ids)s) AND platform <> ''
), new AS (
    INSERT INTO analytics_posttotals
        (id, created_at, updated_at, team_id, publish_id, platform, first_published_at, views, likes, comments,
         shares, views_reported, last_sync_at)
    SELECT gen_random_uuid(), %(now)s, %(now)s, p.team_id, p.id, COALESCE(t.platform, ''), MIN(t.published_at),
        COALESCE(SUM(m.views), 0), COALESCE(SUM(m.likes), 0), COALESCE(SUM(m.comments), 0),
        COALESCE(SUM(m.shares), 0), COUNT(m.views), MAX(m.last_sync_at)
    FROM publishing_publish p
    JOIN publishing_target t ON t.publish_id = p.id AND t.state = '{TargetState.PUBLISHED.value}'
    LEFT JOIN analytics_postmetrics m ON m.target_id = t.id
    WHERE p.id = ANY(%(ids)s)
    GROUP BY GROUPING SETS ((p.team_id, p.id, t.platform), (p.team_id, p.id))
    ORDER BY p.id, 6
    ON CONFLICT (publish_id, platform) DO UPDATE
    SET first_published_at = EXCLUDED.first_published_at, views = EXCLUDED.views, likes = EXCLUDED.likes,
        comments = EXCLUDED.comments, shares = EXCLUDED.shares, views_reported = EXCLUDED.views_reported,
        last_sync_at = EXCLUDED.last_sync_at, updated_at = EXCLUDED.updated_at
    RETURNING team_id, platform, views, likes, comments, shares, views_reported, last_sync_at
), change AS (
    SELECT team_id, platform, SUM(posts) AS posts, SUM(views) AS views, SUM(likes) AS likes,
        SUM(comments) AS comments, SUM(shares) AS shares, SUM(views_reported) AS views_reported,
        MAX(last_sync_at) AS last_sync_at
    FROM (
        SELECT team_id, platform, 1 AS posts, views, likes, comments, shares, views_reported, last_sync_at
        FROM new WHERE platform <> ''
        UNION ALL
        SELECT team_id, platform, -1, -views, -likes, -comments, -shares, -views_reported, NULL FROM old
    ) AS rows
    GROUP BY team_id, platform
    HAVING SUM(posts) <> 0 OR SUM(views) <> 0 OR SUM(likes) <> 0 OR SUM(comments) <> 0 OR SUM(shares) <> 0
        OR SUM(views_reported) <> 0 OR MAX(last_sync_at) IS NOT NULL
)
INSERT INTO analytics_platformtotals
    (id, created_at, updated_at, team_id, platform, posts, views, likes, comments, shares, views_reported,
     last_sync_at)
SELECT gen_random_uuid(), %(now)s, %(now)s, team_id, platform, posts, views, likes, comments, shares,
    views_reported, last_sync_at
FROM change
ORDER BY team_id, platform
ON CONFLICT (team_id, platform) DO UPDATE
SET posts = analytics_platformtotals.posts + EXCLUDED.posts, views = analytics_platformtotals.views + EXCLUDED.views,
    likes = analytics_platformtotals.likes + EXCLUDED.likes,
    comments = analytics_platformtotals.comments + EXCLUDED.comments,
    shares = analytics_platformtotals.shares + EXCLUDED.shares,
    views_reported = analytics_platformtotals.views_reported + EXCLUDED.views_reported,
    last_sync_at = GREATEST(analytics_platformtotals.last_sync_at, EXCLUDED.last_sync_at),
    updated_at = EXCLUDED.updated_at
"""  # noqa: S608 - names from the models' metadata, values bound


def refresh(publish_ids: Iterable[Any]) -> None:
    """Rewrite the totals of these publishes, whose locks the caller holds (the engine's, or
    `lock`): one statement on PostgreSQL, a few elsewhere."""
    ids = set(publish_ids)
    if not ids:
        return
    if fixed_statements():
        run(_REFRESH_SQL, {"ids": sorted(ids, key=str), "now": timezone.now()})
    else:
        write(ids, targets=Target, totals_model=PostTotals, platform_totals_model=PlatformTotals)


def lock(publish_ids: Iterable[Any]) -> None:
    """Take the publishes' locks, in the engine's order (by id), for a `refresh` outside it."""
    list(Publish.objects.select_for_update().filter(pk__in=set(publish_ids)).order_by("pk").values_list("pk"))


def write(
    publish_ids: Iterable[Any], *, targets: Any, totals_model: Any, platform_totals_model: Any | None = None
) -> None:
    """`refresh` through the ORM, with the models given: the migration that made the tables
    fills them in with its own historical models (and sums the platforms' rows once, at the
    end: `recount`)."""
    ids = set(publish_ids)
    if not ids:
        return
    per_platform = (
        targets.objects.filter(publish_id__in=ids, state=TargetState.PUBLISHED)
        .values("publish_id", "publish__team_id", "platform")
        .annotate(
            first=Min("published_at"),
            synced=Max("metrics__last_sync_at"),
            views_reported=Count("metrics__views"),
            **{name: Sum(f"metrics__{name}") for name in _SUMMED},
        )
        .order_by()
    )
    totals: dict[tuple[Any, str], Any] = {}
    for row in per_platform:
        for platform in ("", row["platform"]):
            _add(totals, totals_model, row, platform)
    old = list(
        totals_model.objects.filter(publish_id__in=ids).exclude(platform="").values("team_id", "platform", *_COUNTED)
    )
    rows = sorted(totals.values(), key=lambda t: (str(t.publish_id), t.platform))  # one lock order
    totals_model.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["publish", "platform"],
        update_fields=["first_published_at", *_COUNTED, "last_sync_at", "updated_at"],
    )
    if platform_totals_model is not None:
        _add_changes(platform_totals_model, old=old, new=[row for row in rows if row.platform])


def _add(totals: dict[tuple[Any, str], Any], totals_model: Any, row: dict[str, Any], platform: str) -> None:
    key = (row["publish_id"], platform)
    found = totals.get(key)
    if found is None:
        found = totals[key] = totals_model(
            team_id=row["publish__team_id"],
            publish_id=row["publish_id"],
            platform=platform,
            first_published_at=row["first"],
            last_sync_at=row["synced"],
        )
    else:
        found.first_published_at = min(found.first_published_at, row["first"])
        found.last_sync_at = max(filter(None, (found.last_sync_at, row["synced"])), default=None)
    for name in _COUNTED:
        setattr(found, name, getattr(found, name) + (row[name] or 0))


def _add_changes(platform_totals_model: Any, *, old: list[dict[str, Any]], new: list[Any]) -> None:
    """Add to each team's platform row what the rewrite changed on it (as `_REFRESH_SQL` does)."""
    changes: dict[tuple[Any, str], dict[str, Any]] = {}
    after = [{"team_id": r.team_id, "platform": r.platform, **{n: getattr(r, n) for n in _COUNTED}} for r in new]
    for sign, rows in ((-1, old), (1, after)):
        for row in rows:
            change = changes.setdefault((row["team_id"], row["platform"]), {"posts": 0, **dict.fromkeys(_COUNTED, 0)})
            change["posts"] += sign
            for name in _COUNTED:
                change[name] += sign * row[name]
    synced = {(r.team_id, r.platform): r.last_sync_at for r in new if r.last_sync_at is not None}
    for key, change in sorted(changes.items(), key=lambda item: (str(item[0][0]), item[0][1])):  # one lock order
        if any(change.values()) or key in synced:
            _add_to(platform_totals_model, *key, change=change, synced=synced.get(key))


def _add_to(platform_totals_model: Any, team_id: Any, platform: str, *, change: dict[str, int], synced: Any) -> None:
    platform_totals_model.objects.bulk_create(
        [platform_totals_model(team_id=team_id, platform=platform)], ignore_conflicts=True
    )
    found = platform_totals_model.objects.select_for_update().get(team_id=team_id, platform=platform)
    for name, value in change.items():
        setattr(found, name, getattr(found, name) + value)
    found.last_sync_at = max(filter(None, (found.last_sync_at, synced)), default=None)
    found.updated_at = timezone.now()
    found.save()


def recount(team_ids: Iterable[Any], *, totals_model: Any, platform_totals_model: Any) -> None:
    """Sum the teams' platform rows anew from their `PostTotals` (the migration that made the
    table fills it so, and staff put a team right with it after changing rows by hand). The
    rows are locked first: a rewrite committed before is in the sums, and one after adds its
    change to them."""
    teams = set(team_ids)
    current = platform_totals_model.objects.select_for_update().filter(team_id__in=teams)
    list(current.order_by("team_id", "platform").values_list("pk"))
    sums = (
        totals_model.objects.filter(team_id__in=teams)
        .exclude(platform="")
        .values("team_id", "platform")
        .annotate(posts=Count("id"), synced=Max("last_sync_at"), **{name: Sum(name) for name in _COUNTED})
        .order_by("team_id", "platform")
    )
    summed = [
        platform_totals_model(
            team_id=row["team_id"],
            platform=row["platform"],
            posts=row["posts"],
            last_sync_at=row["synced"],
            **{name: row[name] or 0 for name in _COUNTED},
        )
        for row in sums
    ]
    current.update(posts=0, last_sync_at=None, **dict.fromkeys(_COUNTED, 0))
    platform_totals_model.objects.bulk_create(
        summed,
        update_conflicts=True,
        unique_fields=["team", "platform"],
        update_fields=["posts", "last_sync_at", *_COUNTED, "updated_at"],
    )


def move_to_team(*, source: Team, target: Team) -> Mapping[str, int]:
    """The totals follow their publishes into the team they move to: the per-post rows change
    team, and the source's platform rows are added to the target's."""
    PostTotals.objects.filter(team=source).update(team=target, updated_at=timezone.now())
    moved = PlatformTotals.objects.filter(team=source).order_by("platform")
    for row in list(moved.values("platform", "posts", "last_sync_at", *_COUNTED)):
        synced, platform = row.pop("last_sync_at"), row.pop("platform")
        _add_to(PlatformTotals, target.pk, platform, change=row, synced=synced)
    moved.delete()
    return {}
