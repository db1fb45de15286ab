"""Handing written jobs to the broker, once the transaction that wrote them has committed
(never inside it: a worker could claim a job not yet visible, or one then rolled back), and
what a caller learns when the broker refuses them.

`send_jobs` sends one `deliver` message per job on its lane's queue, one round trip a lane
(`config.jobs.hand_over`), and marks the jobs enqueued; `send_after_commit` is the one way
written jobs reach it: a publish transition hands over the jobs it wrote itself
(`handed_over`, after `publishing.lifecycle`'s or `publishing.approval`'s durable block), the
scheduler's release and the relay theirs (`publishing.release`), and the worker the next reply
of a thread (`publishing.sending`). Nothing that calls a transition has a step to add after it.

When the broker refuses, the transition stands: its jobs stay pending, marked refused, for the
relay, and PublishDispatchUncertain carries the publish as committed, which the API answers
with a 503 naming it.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import operator
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from config.jobs import Message, hand_over
from publishing import outbox
from publishing.models import DeliveryJob, Id, JobState, Publish
from publishing.selectors import publishes_for
from publishing.status import locked
from teams.models import Team

logger = logging.getLogger(__name__)


class DispatchUncertain(Exception):
    """The broker did not take the jobs; they stay pending and the relay will send them."""


# --- to the broker ----------------------------------------------------------------------------


class _Job(NamedTuple):
    """What handing a job over needs: its id, its message's task id, its claim count, the
    enqueued mark it was written with (None: it is marked once the broker took it), and its
    lane (the queue its message goes on)."""

    pk: str
    dispatch_id: str
    runs: int
    marked: dt.datetime | None = None
    lane: str = outbox.DISPATCH


def _jobs_of(jobs: Iterable[DeliveryJob | Id]) -> list[_Job]:
    """Job instances as they are (no query); ids looked up in one SELECT."""
    found: list[_Job] = []
    ids: list[str] = []
    for job in jobs:
        if isinstance(job, DeliveryJob):
            marked = None if "enqueued_at" in job.get_deferred_fields() else job.enqueued_at
            found.append(_Job(str(job.pk), job.dispatch_id, job.runs, marked, job.lane))
        else:
            ids.append(str(job))
    if ids:
        rows = DeliveryJob.objects.filter(pk__in=ids).values_list("pk", "dispatch_id", "runs", "lane")
        found += [_Job(str(pk), dispatch_id, runs, None, lane) for pk, dispatch_id, runs, lane in rows]
    return found


def _hand_over(found: Sequence[_Job]) -> None:
    """Send one `deliver` message per job on its lane's queue, each lane's in one round trip
    (`config.jobs.hand_over`; in eager mode each task runs here instead)."""
    from publishing.tasks import deliver

    hand_over(deliver, [Message(job.dispatch_id, (job.pk,), job.lane) for job in found])


def _group(jobs: Sequence[_Job], key: Callable[[_Job], Any]) -> dict[Any, list[str]]:
    """The ids of `jobs` by `key`."""
    groups: dict[Any, list[str]] = defaultdict(list)
    for job in jobs:
        groups[key(job)].append(job.pk)
    return groups


def _mark_enqueued(jobs: Sequence[_Job]) -> None:
    """One UPDATE: the jobs the broker took are enqueued now, unless a worker ran one
    meanwhile (its `runs` moved on, or it is no longer pending): that one is the relay's to
    send again when due."""
    by_runs = _group(jobs, key=lambda job: job.runs)
    if not by_runs:
        return
    taken = functools.reduce(operator.or_, (Q(pk__in=ids, runs=runs) for runs, ids in by_runs.items()))
    DeliveryJob.objects.filter(taken, state=JobState.PENDING).update(enqueued_at=timezone.now())


def send_jobs(jobs: Iterable[DeliveryJob | Id]) -> None:
    """Hand jobs to the broker in one go over a pooled connection; raise DispatchUncertain
    when it fails. DeliveryJob instances are used as they are, ids are looked up.

    A job is marked enqueued (one UPDATE) once the broker took its message, unless it was
    written with its mark already (a create's jobs, which `lifecycle.publish_create` hands
    over right after their commit: no second write). When the broker refuses, the jobs are
    left unmarked, so the relay sends them at its next run. A process that dies between a
    create's commit and its hand-over leaves marked jobs, which the relay sends once the mark
    is the relay's RELAY_AFTER old."""
    found = _jobs_of(jobs)
    if not found:
        return
    try:
        _hand_over(found)
        _mark_enqueued([job for job in found if job.marked is None])
    except Exception as exc:  # any broker failure: connection refused, timeout, full disk
        logger.warning("The broker did not take %d delivery jobs: %s", len(found), type(exc).__name__)
        _refused(found)
        raise DispatchUncertain(str(exc)) from exc


def _refused(jobs: Sequence[_Job]) -> None:
    """Record the refusal of jobs still pending and unmarked (or carrying the mark they were
    written with), and take that mark off: only a confirm repeated after this refusal hands
    them over again; a confirm racing the first one's hand-over finds nothing refused and is
    a 422. A job some relay marked meanwhile is left to it."""
    unmarked = Q(enqueued_at__isnull=True)
    for marked, ids in _group(jobs, key=lambda job: job.marked).items():
        if marked is not None:
            unmarked |= Q(pk__in=ids, enqueued_at=marked)
    DeliveryJob.objects.filter(unmarked, pk__in=[job.pk for job in jobs], state=JobState.PENDING).update(
        refused_at=timezone.now(), enqueued_at=None
    )


def send_after_commit(jobs: Iterable[DeliveryJob], *, quietly: bool = False) -> bool:
    """The one hand-over of written jobs to the broker, called once the transaction that
    wrote them has committed (never inside it: a worker could claim a job not yet visible, or
    one then rolled back): by the publish transition that wrote them (`publishing.lifecycle`),
    the scheduler's release and the relay. True when the broker took them. When it refuses,
    the jobs stay pending for the relay and DispatchUncertain is raised (a create or a confirm
    answers 503 with the publish's id), unless `quietly` (for callers with no one to tell):
    then False."""
    try:
        send_jobs(jobs)
    except DispatchUncertain:
        if not quietly:
            raise
        return False
    return True


class PublishDispatchUncertain(DispatchUncertain):
    """A transition committed, but the broker did not take the jobs it wrote: they stay
    pending, marked refused, and the relay sends them. `publish` is the publish as committed,
    for the caller's answer (the API's 503 names it)."""

    def __init__(self, publish: Publish) -> None:
        super().__init__(f"The broker did not take the jobs of publish {publish.pk}.")
        self.publish = publish


def publish_send_jobs(*, team: Team, publish_id: Id) -> Publish:
    """Hand over again the publish's jobs that never reached the broker: a create repeated
    with its Idempotency-Key after a 503, or staff's resend. Writes nothing; jobs the broker
    took, running ones and ones waiting out a pause are left to the worker and the relay."""
    with transaction.atomic(durable=True):
        publish = locked(team, publish_id)
        jobs = outbox.unsent(publish)
    return handed_over(committed(publish), jobs)


def committed(publish: Publish) -> Publish:
    """The publish read back with its targets and their attempts, before its jobs are handed
    over: once they are, a worker may change it, and the caller answers with what the
    transition did."""
    return publishes_for().get(pk=publish.pk)


def handed_over(publish: Publish, jobs: Sequence[DeliveryJob]) -> Publish:
    """`publish`, once the jobs its transition wrote are handed to the broker. Called after
    the transition's durable block, so never inside a transaction: a worker could claim a job
    not yet visible, or one then rolled back. Raises PublishDispatchUncertain when the broker
    refuses them."""
    try:
        send_after_commit(jobs)
    except DispatchUncertain as exc:
        raise PublishDispatchUncertain(publish) from exc
    return publish
