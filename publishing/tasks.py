"""Thin Celery tasks; each calls one service and is safe to run twice.

`deliver` runs on the `dispatch` queue with late acks: a worker lost mid-task gives the
message back, and the job's compare-and-set claim makes the second run a no-op (the
reconciler settles the attempt the lost worker left in `sending`).
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from publishing import dispatch

logger = logging.getLogger(__name__)


@shared_task(
    name="publishing.deliver",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.DISPATCH_SOFT_TIME_LIMIT,
    time_limit=settings.DISPATCH_TIME_LIMIT,
)
def deliver(job_id: str) -> None:
    dispatch.job_run(job_id=job_id)


@shared_task(name="publishing.release_due", soft_time_limit=50, time_limit=60)
def release_due() -> int:
    """One scheduler tick. When more is due than one batch, one more run is queued first, so
    an idle worker process shares the release (SKIP LOCKED keeps the two apart)."""
    return dispatch.release_due(on_backlog=_one_more_release)


def _one_more_release() -> None:
    """Queue one more release run for an idle worker process to take."""
    try:
        release_due.apply_async(retry=False)
    except Exception:  # the broker refused: this run goes on alone
        logger.info("Could not queue a second release run; this one goes on alone", exc_info=True)


@shared_task(name="publishing.relay", soft_time_limit=50, time_limit=60)
def relay() -> int:
    return dispatch.relay()


@shared_task(name="publishing.reconcile", soft_time_limit=240, time_limit=270)
def reconcile() -> int:
    return dispatch.reconcile()


@shared_task(name="publishing.purge_idempotency_keys", soft_time_limit=50, time_limit=60)
def purge_idempotency_keys() -> int:
    from publishing.idempotency import idempotency_purge

    return idempotency_purge()
