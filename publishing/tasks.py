"""Thin Celery tasks; each calls one service and is safe to run twice.

`deliver` (a target's post, or a reply of its thread) runs on its job's lane with late acks:
a worker lost mid-task gives the message back, and the job's compare-and-set claim makes the
second run a no-op (the reconciler settles the attempt the lost worker left in `sending`).
"""

from __future__ import annotations

import datetime as dt
import logging

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from config import lanes
from publishing import readback, release, sending
from publishing.preflight import preflight_due

logger = logging.getLogger(__name__)


@shared_task(
    name="publishing.deliver",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.DISPATCH_SOFT_TIME_LIMIT,
    time_limit=settings.DISPATCH_TIME_LIMIT,
)
def deliver(job_id: str) -> None:
    sending.job_run(job_id=job_id)


# A run armed for a due moment starts this much after it: the worker's timer may wake a
# little early, and a run before the moment would find the publish not yet due.
ARMED_MARGIN = dt.timedelta(milliseconds=20)


@shared_task(name="publishing.release_due", soft_time_limit=50, time_limit=60)
def release_due(arm: bool = True) -> int:
    """One scheduler tick (beat's run, `arm` true) or a run it queued (`arm` false). When more
    is due than one batch, one more run is queued first, so an idle worker process shares the
    release (SKIP LOCKED keeps the two apart). Beat's run then arms a run for each due moment
    before the next tick (`release.release_moments`): a publish goes out at its time, not up
    to a tick later."""
    now = timezone.now()
    released = release.release_due(now=now, on_backlog=_one_more_release)
    if arm:
        _arm_releases(after=now)
    return released


def _one_more_release() -> None:
    """Queue one more release run for an idle worker process to take."""
    try:
        release_due.apply_async(kwargs={"arm": False}, retry=False)
    except Exception:  # the broker refused: this run goes on alone
        logger.info("Could not queue a second release run; this one goes on alone", exc_info=True)


def _arm_releases(*, after: dt.datetime) -> None:
    """Queue a release run for each moment publishes fall due after `after` (when this run
    looked) and before the next tick; one that fell due meanwhile is released at once. A run
    the broker refused leaves its publishes to the next tick."""
    tick = dt.timedelta(seconds=settings.SCHEDULER_TICK_SECONDS)
    for moment in release.release_moments(after=after, within=tick):
        try:
            release_due.apply_async(
                kwargs={"arm": False}, eta=moment + ARMED_MARGIN, expires=moment + tick, retry=False
            )
        except Exception:  # the broker refused: the next tick releases them
            logger.info("Could not arm a release run for %s; the next tick releases it", moment, exc_info=True)
            return


@shared_task(name="publishing.relay", soft_time_limit=50, time_limit=60)
def relay() -> int:
    return release.relay()


@shared_task(name="publishing.reconcile", soft_time_limit=240, time_limit=270)
def reconcile() -> int:
    # Beat asks every few seconds and a run waits on the platforms' read-backs: runs that
    # overlapped would fill the control lane that releases and relays share.
    with lanes.alone("publishing.reconcile", lease_seconds=270) as first:
        return readback.reconcile() if first else 0


@shared_task(name="publishing.check", soft_time_limit=240, time_limit=270)
def check(target_id: str, item_id: str | None = None) -> None:
    """Read one processing or unknown unit (a target, or a reply of its thread) back from its
    platform (in the `uploads` lane)."""
    readback.check(target_id=target_id, item_id=item_id)


@shared_task(name="publishing.purge_idempotency_keys", soft_time_limit=50, time_limit=60)
def purge_idempotency_keys() -> int:
    from publishing.idempotency import idempotency_purge

    return idempotency_purge()


@shared_task(name="publishing.purge_done_jobs", soft_time_limit=50, time_limit=60)
def purge_done_jobs() -> int:
    from publishing.outbox import jobs_purge

    return jobs_purge()


@shared_task(name="publishing.preflight", soft_time_limit=240, time_limit=270)
def preflight() -> int:
    """Check the scheduled publishes due soon against their accounts (`publishing.preflight`)."""
    # It renews tokens and reads platforms: overlapping runs would do it twice.
    with lanes.alone("publishing.preflight", lease_seconds=270) as first:
        return preflight_due() if first else 0
