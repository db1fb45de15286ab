"""What keeps the outbox moving, run by the control lane: the scheduler's release of due
scheduled publishes (`release_due`, in batches, SKIP LOCKED) and the relay, which hands over
again the pending jobs the broker never took, or took without a worker claiming them
(`relay`: harmless to repeat, the claim is a compare-and-set). Both hand their jobs over
after their own commit (`publishing.handover`)."""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Q
from django.db.models.functions import Trunc
from django.utils import timezone

from publishing import outbox
from publishing.handover import send_after_commit
from publishing.models import (
    DeliveryJob,
    JobState,
    ScheduledRelease,
)

logger = logging.getLogger(__name__)

# A job the broker took but no worker claimed within this time is sent again (harmless:
# the claim is a compare-and-set).
RELAY_AFTER = dt.timedelta(seconds=settings.DISPATCH_RELAY_AFTER_SECONDS)
# Jobs (relay) and publishes (release) handed over per transaction and broker round trip, and
# how long one run of either goes on before leaving the rest to the next tick (well inside the
# tasks' 50 s soft time limit).
RELAY_BATCH = 1000
RELEASE_BATCH = 250
RELAY_BUDGET_SECONDS = 30.0
RELEASE_BUDGET_SECONDS = 30.0


def release_due(*, now: dt.datetime | None = None, on_backlog: Callable[[], None] | None = None) -> int:
    """Release every scheduled publish due at `now`, RELEASE_BATCH publishes a transaction
    (`outbox.publishes_release_due`: SKIP LOCKED, so two runs never release one publish),
    each batch's jobs handed to the broker in one go after its commit; jobs the broker refuses
    stay pending for the relay (after one refusal the run stops trying and leaves the later
    batches' jobs to it too). `on_backlog` is called once when the first batch was full (more
    is due than one batch), so that the caller can ask for help. Stops when nothing due is
    left free or the time budget is spent (the next tick goes on). Returns the publishes
    released."""
    now = now or timezone.now()
    deadline = time.monotonic() + RELEASE_BUDGET_SECONDS
    released, refused = 0, False
    while time.monotonic() < deadline:
        locked, jobs = outbox.publishes_release_due(now=now, limit=RELEASE_BATCH)
        if locked == RELEASE_BATCH and released == 0 and on_backlog is not None:
            on_backlog()
        released += locked
        if not refused:
            refused = not send_after_commit(jobs, quietly=True)
        if locked < RELEASE_BATCH:
            break
    return released


def release_moments(*, after: dt.datetime, within: dt.timedelta) -> list[dt.datetime]:
    """When to run a release so that publishes due after `after` and no later than `after +
    within` go out on time rather than at the next tick: the latest due time within each
    second that has any (a run releases everything due by its moment, so a publish is released
    less than a second after its due time, on the dot when a second's publishes share one)."""
    second = Trunc("due_at", "second", tzinfo=dt.UTC)
    rows = (
        ScheduledRelease.objects.filter(due_at__gt=after, due_at__lte=after + within)
        .annotate(second=second)
        .values("second")
        .annotate(last=Max("due_at"))
        .order_by("second")
    )
    return [row["last"] for row in rows]


def _relay_batch(now: dt.datetime, after: tuple[dt.datetime, str] | None) -> list[DeliveryJob]:
    """Lock and mark a batch of due jobs (SKIP LOCKED), in `not_before` order past `after`."""
    due = (
        DeliveryJob.objects.select_for_update(skip_locked=True)
        .filter(state=JobState.PENDING, not_before__lte=now)
        .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=now - RELAY_AFTER))
    )
    if after is not None:
        due = due.filter(Q(not_before__gt=after[0]) | Q(not_before=after[0], pk__gt=after[1]))
    with transaction.atomic():
        jobs = list(
            due.order_by("not_before", "pk").only("pk", "dispatch_id", "runs", "not_before", "lane")[:RELAY_BATCH]
        )
        # Mark them taken for now so a parallel relay skips them; send_jobs sets the real time.
        DeliveryJob.objects.filter(pk__in=[job.pk for job in jobs]).update(enqueued_at=now)
    return jobs


def relay(*, now: dt.datetime | None = None) -> int:
    """Send due pending jobs the broker never took, or took long ago without a worker
    claiming them, batch after batch until none is left or the time budget is spent. Rows
    are claimed with SKIP LOCKED so concurrent relays share the work; each batch goes to the
    broker in one hand-over. Returns the jobs handed over."""
    now = now or timezone.now()
    deadline = time.monotonic() + RELAY_BUDGET_SECONDS
    sent, after = 0, None
    while time.monotonic() < deadline:
        jobs = _relay_batch(now, after)
        if not jobs:
            break
        if not send_after_commit(jobs, quietly=True):
            ids = [job.pk for job in jobs]
            DeliveryJob.objects.filter(pk__in=ids, state=JobState.PENDING, enqueued_at=now).update(enqueued_at=None)
            break
        sent += len(jobs)
        if len(jobs) < RELAY_BATCH:
            break
        after = (jobs[-1].not_before, str(jobs[-1].pk))  # each job at most once a run
    return sent
