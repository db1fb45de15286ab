"""Each published publish's metrics summed (`PostTotals`), written from its published targets
and their latest metrics: when a target is published (`publishing.listeners`) and when a sync
reads metrics (`analytics.services`).

A publish's rows are rewritten whole from what is committed, so a write that raced another
is put right by the next one for the same publish. On PostgreSQL the rewrite is one fixed
statement (the engine runs it under the publish's lock, after each target published); the
ORM twin, which every database has, reads the sums and then upserts them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db.models import Max, Min, Sum
from django.utils import timezone

from analytics.models import PostTotals
from config.db import fixed_statements, run
from publishing.models import Target, TargetState
from teams.models import Team

_SUMMED = ("views", "likes", "comments", "shares")

# One row over every platform and one per platform (GROUPING SETS), in one lock order.
_REFRESH_SQL = f"""
INSERT INTO analytics_posttotals
    (id, created_at, updated_at, team_id, publish_id, platform, first_published_at, views, likes, comments, shares,
     last_sync_at)
SELECT gen_random_uuid(), %(now)s, %(now)s, p.team_id, p.id, COALESCE(t.platform, ''), MIN(t.published_at),
    COALESCE(SUM(m.views), 0), COALESCE(SUM(m.likes), 0), COALESCE(SUM(m.comments), 0), COALESCE(SUM(m.shares), 0),
    MAX(m.last_sync_at)
FROM publishing_publish p
JOIN publishing_target t ON t.publish_id = p.id AND t.state = '{TargetState.PUBLISHED.value}'
LEFT JOIN analytics_postmetrics m ON m.target_id = t.id
WHERE p.id = ANY(%(ids)s)
GROUP BY GROUPING SETS ((p.team_id, p.id, t.platform), (p.team_id, p.id))
ORDER BY p.id, 6
ON CONFLICT (publish_id, platform) DO UPDATE
SET first_published_at = EXCLUDED.first_published_at, views = EXCLUDED.views, likes = EXCLUDED.likes,
    comments = EXCLUDED.comments, shares = EXCLUDED.shares, last_sync_at = EXCLUDED.last_sync_at,
    updated_at = EXCLUDED.updated_at
"""  # noqa: S608 - names from the models' metadata, values bound


def refresh(publish_ids: Iterable[Any]) -> None:
    """Rewrite the totals of these publishes: one statement on PostgreSQL, two elsewhere."""
    ids = set(publish_ids)
    if not ids:
        return
    if fixed_statements():
        run(_REFRESH_SQL, {"ids": sorted(ids, key=str), "now": timezone.now()})
    else:
        write(ids, targets=Target, totals_model=PostTotals)


def write(publish_ids: Iterable[Any], *, targets: Any, totals_model: Any) -> None:
    """`refresh` through the ORM, with the models given: the migration that made the table
    fills it in with its own historical models."""
    ids = set(publish_ids)
    if not ids:
        return
    per_platform = (
        targets.objects.filter(publish_id__in=ids, state=TargetState.PUBLISHED)
        .values("publish_id", "publish__team_id", "platform")
        .annotate(
            first=Min("published_at"),
            synced=Max("metrics__last_sync_at"),
            **{name: Sum(f"metrics__{name}") for name in _SUMMED},
        )
        .order_by()
    )
    totals: dict[tuple[Any, str], Any] = {}
    for row in per_platform:
        for platform in ("", row["platform"]):
            _add(totals, totals_model, row, platform)
    rows = sorted(totals.values(), key=lambda t: (str(t.publish_id), t.platform))  # one lock order
    totals_model.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["publish", "platform"],
        update_fields=["first_published_at", *_SUMMED, "last_sync_at", "updated_at"],
    )


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
    for name in _SUMMED:
        setattr(found, name, getattr(found, name) + (row[name] or 0))


def move_to_team(*, source: Team, target: Team) -> Mapping[str, int]:
    """The totals follow their publishes into the team they move to."""
    PostTotals.objects.filter(team=source).update(team=target, updated_at=timezone.now())
    return {}
