"""Writes of analytics: reading the metrics of published targets from their platforms.

The beat job (`metrics_sync_fan_out`) makes sure every published target has a `PostMetrics`
row and hands each team with rows due its own task (`metrics_sync_team`), which holds the
team's share of the analytics lane while it claims the team's rows that are due (`SKIP LOCKED`, then a lease, as the
publishing reconciler does), and asks each account's platform for its posts' numbers in the
batches the platform's lookup takes. A failure is kept per target in `sync_error` and never
touches the values last read, and one account's failure never stops the others.

A published post the platform returned no numbers for, or whose read it refused as a bad
request of its own (a post gone, a bad id), is read back with `client.exists()`; only the
platform's word that it is gone marks the target removed (`publishing.removals`, which emits
`post.removed` once). A removed target keeps its last values and is never read again.

How often a target is read depends on its age (newer posts change faster):

| age of the post  | read again after                       |
|------------------|----------------------------------------|
| under 1 day      | every tick (`ANALYTICS_SYNC_SECONDS`)   |
| 1 to 7 days      | 1 hour                                  |
| over 7 days      | 1 day                                   |

Never more often than the tick. Reads are capped per account and run (see
`CALLS_PER_ACCOUNT_RUN`), so a large account cannot exhaust its platform's rate-limit
window; what is left over stays due and goes first next time.

"Refresh now" (`metrics_refresh`) makes one post's targets due at once and hands the team's
sync the same task the beat job does, at most once per post every ANALYTICS_REFRESH_SECONDS.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.db.models.functions import TruncDay
from django.utils import timezone

from accounts.models import AccountStatus, SocialAccount
from accounts.platforms.base import (
    Metrics,
    Outcome,
    OutcomeKind,
    PlatformError,
)
from accounts.platforms.registry import NoClient, client_for
from accounts.services import platform_call
from analytics import totals
from analytics.models import MetricsSample, PostMetrics
from config import lanes
from config.db import purge
from publishing.models import Publish, Target, TargetState
from publishing.removals import target_check_removed

logger = logging.getLogger(__name__)

FRESH_AGE = dt.timedelta(days=1)
RECENT_AGE = dt.timedelta(days=7)
RECENT_INTERVAL = dt.timedelta(hours=1)
OLD_INTERVAL = dt.timedelta(days=1)
# A claimed row is not due again for this long, so a parallel run skips it. Longer than the
# task's hard time limit: a run killed mid-way leaves its rows to the next one after that.
LEASE = dt.timedelta(minutes=15)
CLAIM_BATCH = 500
CREATE_BATCH = 1000

# `metrics()` calls per account and run: one batch lookup, or one post on the platforms that
# read posts one at a time. At the default 15-minute tick that is 100 an hour, half of the
# tightest per-user budget among the platforms (Meta's 200 calls per user and hour).
CALLS_PER_ACCOUNT_RUN = 25

NOT_RETURNED = "The platform did not return this post (deleted, or no longer visible to the account)."
REMOVED = "The platform no longer has this post: it was deleted or removed there."


# The targets whose metrics are read: published, and not removed since.
READABLE = {"target__state": TargetState.PUBLISHED, "target__removed_at__isnull": True}


def batch_size(platform: str) -> int:
    """Posts per `metrics()` call: the platform's batch lookup size (see each client)."""
    return client_for(platform).metrics_batch_size


def sync_interval(*, age: dt.timedelta) -> dt.timedelta:
    """How long until a post of this age is read again."""
    # A tenth less than the tick, so that beat's jitter never makes a fresh post skip a tick.
    tick = dt.timedelta(seconds=settings.ANALYTICS_SYNC_SECONDS * 0.9)
    if age < FRESH_AGE:
        return tick
    return max(tick, RECENT_INTERVAL if age < RECENT_AGE else OLD_INTERVAL)


def _next_sync(row: PostMetrics, now: dt.datetime, *, not_before: float | None = None) -> dt.datetime:
    target = row.target
    interval = sync_interval(age=now - (target.published_at or target.created_at))
    # Always later than `now`, so a run never meets the same row twice.
    return now + max(interval, dt.timedelta(seconds=not_before or 0), dt.timedelta(seconds=1))


def metrics_sync(*, now: dt.datetime | None = None) -> int:
    """Read the metrics of every published target that is due, team by team, in this process.
    Returns how many were read."""
    now = now or timezone.now()
    _ensure_rows(now)
    return sum(metrics_sync_team(team_id=team_id, now=now) for team_id in teams_due(now))


def metrics_sync_fan_out(*, now: dt.datetime | None = None) -> list[str]:
    """The beat job: one `analytics.sync_team` task per team with metrics due, so that each
    team's reads hold at most its share of the analytics lane (a team with thousands of posts
    does not keep the others waiting). Returns the teams handed over."""
    from analytics.tasks import sync_team  # the tasks import this module

    now = now or timezone.now()
    _ensure_rows(now)
    teams = teams_due(now)
    for team_id in teams:
        sync_team.delay(team_id)
    return teams


def teams_due(now: dt.datetime) -> list[str]:
    due = PostMetrics.objects.filter(next_sync_at__lte=now, **READABLE)
    return [str(team_id) for team_id in due.values_list("target__publish__team_id", flat=True).distinct()]


def metrics_sync_team(*, team_id: str, now: dt.datetime | None = None) -> int:
    """Read the metrics of the team's published targets that are due. Returns how many were
    read; 0 when another run of this team holds its share of the lane (that run reads them).

    Safe to run twice at once or in a row: rows are claimed under `SKIP LOCKED` and leased,
    and a row read once is not due again before its interval."""
    now = now or timezone.now()
    with lanes.team_share("analytics", team_id, lease_seconds=LEASE.total_seconds()) as held:
        if not held:
            return 0
        calls: dict[str, int] = defaultdict(int)  # per account, this run
        synced = 0
        while rows := _claim(now, calls, team_id=team_id):
            by_account: dict[str, list[PostMetrics]] = defaultdict(list)
            for row in rows:
                by_account[str(row.target.account_id)].append(row)
            for account_rows in by_account.values():
                synced += _sync_account(account_rows, now)
        return synced


@dataclass(frozen=True)
class Refresh:
    """What "refresh now" did: `started` a sync, or not (refreshed too recently); the post may
    be refreshed again from `again_at`."""

    started: bool
    again_at: dt.datetime


def metrics_refresh(*, publish: Publish, now: dt.datetime | None = None) -> Refresh:
    """Read the metrics of the publish's published targets now: make them due and enqueue one
    sync of its team after commit. At most once per publish every ANALYTICS_REFRESH_SECONDS,
    whoever asks, so a button pressed in a loop cannot spend the accounts' platform quota."""
    now = now or timezone.now()
    window = settings.ANALYTICS_REFRESH_SECONDS
    key = f"analytics:refreshed:{publish.pk}"
    # An atomic add claims the window, so two presses at once start one sync.
    if not cache.add(key, now.timestamp(), window):
        last = cache.get(key, now.timestamp())
        return Refresh(started=False, again_at=dt.datetime.fromtimestamp(last + window, tz=dt.UTC))
    with transaction.atomic():
        _ensure_rows(now, publish=publish)
        PostMetrics.objects.filter(target__publish=publish, **READABLE).update(next_sync_at=now)
        _enqueue_team_sync(str(publish.team_id))
    return Refresh(started=True, again_at=now + dt.timedelta(seconds=window))


def _enqueue_team_sync(team_id: str) -> None:
    from analytics.tasks import sync_team  # the tasks import this module

    transaction.on_commit(lambda: sync_team.delay(team_id))


def _ensure_rows(now: dt.datetime, **scope: Any) -> None:
    """A metrics row, due at once, for every published target (within `scope`, filters of
    Target) that has none yet."""
    while True:
        missing = list(
            Target.objects.filter(state=TargetState.PUBLISHED, removed_at__isnull=True, metrics__isnull=True, **scope)
            .exclude(platform_post_id="")
            .values_list("pk", flat=True)[:CREATE_BATCH]
        )
        rows = [PostMetrics(target_id=pk, next_sync_at=now) for pk in missing]
        PostMetrics.objects.bulk_create(rows, ignore_conflicts=True)  # a parallel run may add them too
        if len(missing) < CREATE_BATCH:
            return


def _claim(now: dt.datetime, calls: dict[str, int], *, team_id: str) -> list[PostMetrics]:
    """Due rows, oldest due first, within the call budget each account has left this run;
    leased so that a parallel run skips them. `calls` is charged with the calls planned."""
    spent = [account for account, used in calls.items() if used >= CALLS_PER_ACCOUNT_RUN]
    with transaction.atomic():
        due = list(
            PostMetrics.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(next_sync_at__lte=now, target__publish__team_id=team_id, **READABLE)
            .exclude(target__account_id__in=[uuid.UUID(account) for account in spent])
            .order_by("next_sync_at", "id")
            .values_list("pk", "target__account_id", "target__platform")[:CLAIM_BATCH]
        )
        picked: dict[str, list[str]] = defaultdict(list)
        sizes: dict[str, int] = {}
        for pk, account_id, platform in due:
            account, sizes[str(account_id)] = str(account_id), batch_size(platform)
            if len(picked[account]) < (CALLS_PER_ACCOUNT_RUN - calls[account]) * sizes[account]:
                picked[account].append(str(pk))
        for account, rows in picked.items():
            calls[account] += -(-len(rows) // sizes[account])  # calls needed: a ceiling division
        ids = [pk for rows in picked.values() for pk in rows]
        PostMetrics.objects.filter(pk__in=ids).update(next_sync_at=now + LEASE)
    return list(PostMetrics.objects.filter(pk__in=ids).select_related("target__account").order_by("next_sync_at"))


def _chunks(rows: Sequence[PostMetrics], size: int) -> Iterator[Sequence[PostMetrics]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def _sync_account(rows: list[PostMetrics], now: dt.datetime) -> int:
    """Read one account's due rows; returns how many were read."""
    account = rows[0].target.account
    if account.status != AccountStatus.ACTIVE:
        _record_failure(rows, now, _inactive_reason(account))
        return 0
    try:
        size = batch_size(account.platform)
    except NoClient:
        _record_failure(rows, now, f"No client for {account.platform} yet.")
        return 0
    synced = 0
    for index, chunk in enumerate(_chunks(rows, size)):
        try:
            found = _read(account, chunk)
        except PlatformError as exc:  # any call that did not succeed
            outcome = exc.outcome
            logger.warning("Metrics of account %s failed: %s", account.pk, outcome.error_code)
            if not _stops_account(outcome):
                gone = _removed(chunk, now)
                _record_failure([row for row in chunk if row not in gone], now, _error_text(outcome))
                _record_removed(gone)
                continue
            _record_failure(rows[index * size :], now, _error_text(outcome), not_before=outcome.retry_after)
            break
        gone = _removed([row for row in chunk if row.target.platform_post_id not in found], now)
        synced += _record([row for row in chunk if row not in gone], found, now)
        _record_removed(gone)
    return synced


def _read(account: SocialAccount, chunk: Sequence[PostMetrics]) -> dict[str, Metrics]:
    # One call per chunk: tokens a call renews are kept on `account`, which the next call reads.
    post_ids = [row.target.platform_post_id for row in chunk]
    return platform_call(account=account, call=lambda client, conn: client.metrics(conn, post_ids))


def _removed(rows: Sequence[PostMetrics], now: dt.datetime) -> list[PostMetrics]:
    """The rows whose post the platform says is gone, each target marked removed. Asked one at
    a time, outside any transaction: each is a call to the platform."""
    return [row for row in rows if target_check_removed(target=row.target, now=now)]


def _record_removed(rows: Sequence[PostMetrics]) -> None:
    """Keep the values last read; say the post is gone. The row is never due again."""
    for row in rows:
        row.sync_error = REMOVED
        row.save(update_fields=["sync_error", "updated_at"])


def _inactive_reason(account: SocialAccount) -> str:
    if account.status == AccountStatus.EXPIRED:
        return "Account expired: re-authorize it in the dashboard."
    return f"Account {account.status}: reconnect it in the dashboard."


def _stops_account(outcome: Outcome) -> bool:
    # Only a definitive refusal of one request (a post gone, a bad id) lets the next call
    # go ahead; a refused token, a rate limit or an unreachable platform fails those too.
    return outcome.auth_failed or outcome.kind != OutcomeKind.FAILED


def _error_text(outcome: Outcome) -> str:
    if outcome.auth_failed:
        return "Account expired: the platform refused its token; re-authorize it in the dashboard."
    message = f"{outcome.error_code}: {outcome.error_message}" if outcome.error_message else outcome.error_code
    return f"The platform did not answer the metrics request ({message})."


def _record_failure(
    rows: Sequence[PostMetrics], now: dt.datetime, reason: str, *, not_before: float | None = None
) -> None:
    """Keep the values last read; say why they were not read now, and when to try again."""
    with transaction.atomic():
        for row in rows:
            row.sync_error = reason
            row.next_sync_at = _next_sync(row, now, not_before=not_before)
            row.save(update_fields=["sync_error", "next_sync_at", "updated_at"])


def _record(rows: Sequence[PostMetrics], found: dict[str, Metrics], now: dt.datetime) -> int:
    """Store what the platform returned, and a sample of it; returns how many were found."""
    samples = []
    read = {row.target.publish_id for row in rows if row.target.platform_post_id in found}
    with transaction.atomic():
        totals.lock(read)  # first, as the engine takes them: its rewrites of these totals wait
        for row in rows:
            row.next_sync_at = _next_sync(row, now)
            metrics = found.get(row.target.platform_post_id)
            if metrics is None:
                row.sync_error = NOT_RETURNED
                row.save(update_fields=["sync_error", "next_sync_at", "updated_at"])
                continue
            _apply(row, metrics, now)
            row.save()
            samples.append(_sample_of(row, now))
        MetricsSample.objects.bulk_create(samples)
        totals.refresh(read)
    return len(samples)


def _count(value: int | None) -> int:
    return max(0, int(value or 0))


def _apply(row: PostMetrics, metrics: Metrics, now: dt.datetime) -> None:
    row.views = None if metrics.views is None else _count(metrics.views)
    row.likes, row.comments, row.shares = _count(metrics.likes), _count(metrics.comments), _count(metrics.shares)
    row.extra = dict(metrics.extra)
    row.last_sync_at, row.sync_error = now, ""


def _sample_of(row: PostMetrics, now: dt.datetime) -> MetricsSample:
    return MetricsSample(
        target_id=row.target_id,
        taken_at=now,
        views=row.views,
        likes=row.likes,
        comments=row.comments,
        shares=row.shares,
        extra=row.extra,
    )


# --- retention -------------------------------------------------------------------------------

PURGE_BUDGET_SECONDS = 30.0
# How far back each run thins: samples that turned METRICS_SAMPLE_DAILY_AFTER_DAYS old since a
# few runs ago (older ones were thinned then), so a run reads a bounded slice of the table.
THIN_WINDOW = dt.timedelta(days=3)


def samples_purge(*, now: dt.datetime | None = None) -> int:
    """Keep each post's samples bounded, within the time budget: delete those over
    METRICS_SAMPLE_RETENTION_DAYS old, and of those over METRICS_SAMPLE_DAILY_AFTER_DAYS old
    all but each target's last of its (UTC) day. Returns the rows deleted."""
    now = now or timezone.now()
    deadline = time.monotonic() + PURGE_BUDGET_SECONDS
    expired = now - dt.timedelta(days=settings.METRICS_SAMPLE_RETENTION_DAYS)
    deleted = purge(MetricsSample.objects.filter(created_at__lt=expired), deadline=deadline)
    daily = now - dt.timedelta(days=settings.METRICS_SAMPLE_DAILY_AFTER_DAYS)
    later_that_day = MetricsSample.objects.filter(
        target=OuterRef("target"), taken_at__gt=OuterRef("taken_at"), taken_at__lt=OuterRef("day_end")
    )
    thinned = (
        MetricsSample.objects.filter(created_at__gte=daily - THIN_WINDOW, created_at__lt=daily)
        .annotate(day_end=TruncDay("taken_at", tzinfo=dt.UTC) + dt.timedelta(days=1))
        .filter(Exists(later_that_day))
    )
    return deleted + purge(thinned, deadline=deadline)
