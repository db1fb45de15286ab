"""The lists a team reads stay index reads as its history grows: on a seeded history,
PostgreSQL's plan for every statement of each list's page, the calendar's weeks and months,
and post analytics reads the publish, target, metrics and totals tables through their indexes, never
by a sequential scan of the whole table. And the migration that added `Publish.published_at` fills it in from
the targets, as the engine would have."""

from __future__ import annotations

import datetime as dt
import importlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from analytics import totals
from analytics.models import PostMetrics
from analytics.selectors import analytics_posts
from publishing import selectors
from publishing.models import Publish, PublishMode, PublishStatus, Target, TargetState

pytestmark = [pytest.mark.django_db]

SIZE = 4000
ROWS = {
    "publishing_publish": SIZE,
    "publishing_target": 2 * SIZE,
    "analytics_postmetrics": 2 * SIZE,
    "analytics_posttotals": 3 * SIZE,
}
SCANNED = tuple(ROWS)


def _kind(n: int) -> str:
    return {0: "draft", 1: "partial", 2: "partial", 3: "partial", 4: "partial", 5: "partial"}.get(
        n % 100, "scheduled" if n % 100 in (6, 7) else "published"
    )


def _history(team: Any, accounts: Any) -> None:
    """SIZE publishes over the last 500 days, three hours apart, each on X and Bluesky: in a
    hundred, one a draft, five partial (X refused), two scheduled ahead, the rest published
    (one in ten of those since removed from Bluesky); published targets have metrics."""
    now = timezone.now()
    publishes, targets = [], []
    for n in range(SIZE):
        at, kind = now - dt.timedelta(hours=n * 3), _kind(n)
        sent = kind in ("partial", "published")
        publish = Publish(
            team=team,
            content=f"Post {n}",
            publish_mode={"draft": PublishMode.DRAFT, "scheduled": PublishMode.SCHEDULED}.get(
                kind, PublishMode.IMMEDIATE
            ),
            status=kind,
            confirmed=kind != "draft",
            scheduled_at=now + dt.timedelta(hours=n) if kind == "scheduled" else None,
            released_at=at if sent else None,
            completed_at=at if sent else None,
            published_at=at if sent else None,
        )
        publishes.append(publish)
        for account in (accounts.x, accounts.bluesky):
            refused = kind == "partial" and account.platform == "x"
            state = {"draft": TargetState.DRAFT, "scheduled": TargetState.SCHEDULED}.get(
                kind, TargetState.FAILED if refused else TargetState.PUBLISHED
            )
            published = state == TargetState.PUBLISHED
            removed = published and n % 10 == 9 and account.platform == "bluesky"
            targets.append(
                Target(
                    publish=publish,
                    account=account,
                    platform=account.platform,
                    state=state,
                    platform_post_id=f"{account.platform}-{n}" if published else "",
                    published_at=at if published else None,
                    error_code="PLATFORM_ERROR" if refused else "",
                    error_message="Refused." if refused else "",
                    removed_at=at if removed else None,
                    removed_by="platform" if removed else "",
                )
            )
    Publish.objects.bulk_create(publishes, batch_size=1000)
    Target.objects.bulk_create(targets, batch_size=1000)
    PostMetrics.objects.bulk_create(
        [PostMetrics(target=t, likes=n % 50, next_sync_at=now) for n, t in enumerate(targets) if t.published_at],
        batch_size=1000,
    )
    totals.refresh(p.pk for p in publishes)
    with connection.cursor() as cursor:
        for table in SCANNED:
            cursor.execute(f"ANALYZE {table}")


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", ()):
        yield from _nodes(child)


def _wide_reads(read: Callable[[], Any], most: int | None = None) -> list[str]:
    """The plan nodes, over every statement `read` runs, that read more than `most` rows (a
    tenth of the table unless given) of a table of SCANNED: a sequential scan, or an index
    scan that filters most of what it reads away.

    Sequential scans are priced out (`enable_seqscan`): on a small table the planner rightly
    prefers one, but a plan that keeps one even so has no index to serve it, which at a
    million rows is a read of every row."""
    with CaptureQueriesContext(connection) as ran:
        read()
    found = []
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        for statement in ran.captured_queries:
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + statement["sql"])
            [(explained,)] = cursor.fetchall()
            for node in _nodes(explained[0]["Plan"]):
                table = node.get("Relation Name")
                if table not in SCANNED:
                    continue
                rows = node["Actual Rows"] + node.get("Rows Removed by Filter", 0)
                if rows * node["Actual Loops"] > (ROWS[table] / 10 if most is None else most):
                    found.append(f"{node['Node Type']} on {table}: {rows} rows x {node['Actual Loops']}")
    return found


@pytest.mark.postgres
def test_every_list_page_reads_through_indexes(team, accounts):
    _history(team, accounts)
    now = timezone.now()
    week, month = now - dt.timedelta(days=60), now - dt.timedelta(days=120)
    pages = {
        "publishes": selectors.publishes_matching(team=team),
        "publishes by status": selectors.publishes_matching(team=team, status=[PublishStatus.PUBLISHED]),
        "publishes by platform": selectors.publishes_matching(team=team, platform=["x"]),
        "publishes by account": selectors.publishes_matching(team=team, account_id=accounts.x.pk),
        "publishes created before": selectors.publishes_matching(team=team, created_before=week),
        "calendar day": selectors.publishes_between(team=team, start=week, end=week + dt.timedelta(days=1)),
        "analytics, latest first": analytics_posts(team=team),
        "analytics, earliest first": analytics_posts(team=team, order="asc"),
        "analytics by likes": analytics_posts(team=team, sort="total_likes"),
        "analytics by views, fewest first": analytics_posts(team=team, sort="total_views", order="asc"),
        "analytics on X": analytics_posts(team=team, platforms=["x"]),
        "analytics on X by comments": analytics_posts(team=team, platforms=["x"], sort="total_comments"),
    }
    scans = {name: _wide_reads(lambda query=query: list(query[:20])) for name, query in pages.items()}
    for name, first, days, per_day in (("calendar week", week, 7, 12), ("calendar month", month, 42, 4)):
        midnights = [first + dt.timedelta(days=n) for n in range(days + 1)]
        scans[name] = _wide_reads(
            lambda m=midnights, n=per_day: selectors.publishes_by_day(
                team=team, midnights=m, per_day=n, count_up_to=n + 99
            ),
            most=days * per_day * 2,  # the targets of the posts shown; a day counts no further than 99 more
        )

    def section(query: Any) -> None:  # as the home page reads each of its sections
        query.count()
        list(query[:10])

    week_ago, ahead = now - dt.timedelta(days=7), now + dt.timedelta(days=7)
    home = {
        "home, due this week": lambda: section(selectors.upcoming_between(team=team, start=now, end=ahead)),
        "home, failed lately": lambda: section(selectors.retryable_since(team=team, since=week_ago)),
        "home, removed lately": lambda: section(selectors.removed_since(team=team, since=week_ago)),
    }
    scans |= {name: _wide_reads(read, most=50) for name, read in home.items()}

    assert {name: found for name, found in scans.items() if found} == {}


@pytest.mark.postgres
def test_every_calendar_entry_is_found_by_the_index(team, accounts):
    """The plan test is only worth it if the indexed read finds what the calendar should show:
    the week holds the publishes first published in it."""
    _history(team, accounts)
    start = timezone.now() - dt.timedelta(days=30)
    end = start + dt.timedelta(days=7)
    midnights = [start + dt.timedelta(days=n) for n in range(8)]
    shown, counts = selectors.publishes_by_day(team=team, midnights=midnights, per_day=12, count_up_to=111)
    expected = Publish.objects.filter(team=team, published_at__gte=start, published_at__lt=end)

    assert {p.pk for p in shown} == set(expected.values_list("pk", flat=True))
    assert sum(counts) == len(shown)  # no day has more than it shows
    assert len(shown) in range(50, 57)  # one every three hours, but drafts and those scheduled ahead


def test_the_migration_fills_published_at_from_the_first_published_target(api, owner, accounts, sandbox):
    body = {"content": "Filled in", "targets": [{"account_id": str(a.pk)} for a in (accounts.x, accounts.bluesky)]}
    published = api.as_(owner.key).post("/api/v1/publishes", body, format="json").json()["data"]["id"]
    draft = api.as_(owner.key).post("/api/v1/publishes", {**body, "publish_mode": "draft"}, format="json")
    first = min(Target.objects.filter(publish_id=published).values_list("published_at", flat=True))
    assert Publish.objects.get(pk=published).published_at == first  # as the engine wrote it
    Publish.objects.update(published_at=None)

    migration = importlib.import_module("publishing.migrations.0015_publish_published_at")
    with connection.cursor() as cursor:
        cursor.execute(migration.BACKFILL)

    assert Publish.objects.get(pk=published).published_at == first
    assert Publish.objects.get(pk=draft.json()["data"]["id"]).published_at is None
