"""Every transition of a target's delivery (DESIGN §4.3, §4.4), one function each: the worker
starts an attempt and records the platform's answer; the reconciler settles an attempt whose
worker was lost mid-call, puts back a job whose worker was lost before sending, and records
what a read-back learned of a processing or unknown target.

Each locks the publish row, checks its precondition, moves the target and its job through
`publishing.transitions`, keeps the attempt as evidence and settles the publish's status
(`publishing.status`) in the same transaction. On PostgreSQL the worker's two steps are the
fixed statements of `publishing.hotpath`; other databases take the ORM path here, which
leaves the same rows.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.platforms.base import Outcome, OutcomeKind
from config.ids import new_id
from publishing import hotpath, policy
from publishing.models import AttemptState, DeliveryAttempt, DeliveryJob, Id, JobState, Publish, Target, TargetState
from publishing.status import OUTCOME_EVENTS, derive_status, event_data, locked, settle
from publishing.transitions import move_jobs, move_targets
from webhooks.services import emit

# What differs from a thread reply's delivery (tries, backoff, read-backs) is data: policy.TARGET.
POLICY = policy.TARGET
MAX_TRIES = POLICY.max_tries
MAX_RUNS = policy.MAX_RUNS
FIRST_CHECK = POLICY.first_check
UNKNOWN_ABSENT_AFTER = dt.timedelta(seconds=settings.RECONCILE_ABSENT_AFTER_SECONDS)

logger = logging.getLogger(__name__)


# --- the worker's path -------------------------------------------------------------------------


def attempt_start(*, job: DeliveryJob) -> DeliveryAttempt | None:
    """Record that a just-claimed job's target is being sent, before the platform is called
    (committed, so a crash mid-call leaves the evidence). Under the publish lock the target
    moves from queued to sending by a compare-and-set on its attempt number, and the attempt
    is created, or counted once more after a not-sent answer. None when the job is stale
    (the target moved on): nothing is sent then."""
    if hotpath.enabled():
        return hotpath.start(job, new_id(), timezone.now())
    return _attempt_start(job)


@transaction.atomic
def _attempt_start(job: DeliveryJob) -> DeliveryAttempt | None:
    target = job.target
    list(Publish.objects.select_for_update().filter(pk=target.publish_id).values_list("pk", flat=True))
    now = timezone.now()
    current = Target.objects.filter(pk=target.pk, attempt_count=job.number)
    if not move_targets(current, TargetState.SENDING, updated_at=now):
        return None
    target.state, target.attempt_count, target.updated_at = TargetState.SENDING, job.number, now
    again = DeliveryAttempt.objects.filter(target=target, number=job.number).update(
        state=AttemptState.SENDING, tries=F("tries") + 1, started_at=now, updated_at=now
    )
    if again:
        return DeliveryAttempt.objects.select_related("target").get(target=target, number=job.number)
    return DeliveryAttempt.objects.create(
        target=target, number=job.number, state=AttemptState.SENDING, tries=1, started_at=now
    )


@transaction.atomic
def attempt_finish(*, attempt: DeliveryAttempt, outcome: Outcome, request: Mapping[str, Any]) -> Publish:
    """Record the platform's answer to the attempt `attempt_start` began. Under the publish
    lock, an answer for an attempt settled meanwhile (reconciled as unknown) changes nothing.
    A not-sent answer puts the job back with a pause (the same attempt tries again) until
    MAX_TRIES, then fails the target with it."""
    if hotpath.enabled():
        return _attempt_finish_hot(attempt, outcome, request)
    publish = locked(None, attempt.target.publish_id)
    attempt = DeliveryAttempt.objects.select_related("target").get(pk=attempt.pk)
    target = attempt.target
    if attempt.state != AttemptState.SENDING or target.state != TargetState.SENDING:
        return publish
    now = timezone.now()
    target_to, job_to, job_changes = _answer(attempt, outcome, request, now=now)
    move_jobs(DeliveryJob.objects.filter(target=target, number=attempt.number), job_to, **job_changes)
    attempt.save()
    move_targets([target], target_to, fields=hotpath.ANSWER_TARGET_FIELDS, updated_at=now)
    settle(publish, now=now)
    return publish


def _attempt_finish_hot(attempt: DeliveryAttempt, outcome: Outcome, request: Mapping[str, Any]) -> Publish:
    """attempt_finish in three statements (hotpath): the attempt and its target as `attempt_start`
    left them in memory, the ref as saved during the call. The answer's statement writes only
    a move the transition tables declare."""
    target = attempt.target
    publish = target.publish
    hotpath.lock_publish(publish)
    now = timezone.now()
    target.state, job_to, job_changes = _answer(attempt, outcome, request, now=now)
    others = hotpath.record_answer(attempt, job_to, job_changes, now)
    if others is None:
        return publish
    targets = sorted([target, *others], key=lambda t: (t.created_at, t.pk))
    old = publish.status
    publish.status = derive_status([t.state for t in targets])
    if publish.status != old and publish.status in OUTCOME_EVENTS:
        publish.completed_at = now
    hotpath.set_status(publish, now)
    if publish.status != old and publish.status in OUTCOME_EVENTS:
        emit(team=publish.team, event_type=OUTCOME_EVENTS[publish.status], data=event_data(publish, targets=targets))
    return publish


def _answer(
    attempt: DeliveryAttempt, outcome: Outcome, request: Mapping[str, Any], *, now: dt.datetime
) -> tuple[TargetState, JobState, dict[str, Any]]:
    """Apply the platform's answer to the attempt and its target in memory; return the states
    the target and the job move to and the job's other new values. A not-sent answer within
    MAX_TRIES queues the target again."""
    target = attempt.target
    attempt.request = dict(request)
    if outcome.kind == OutcomeKind.NOT_SENT and attempt.tries < MAX_TRIES:
        pause = POLICY.backoff(attempt.tries, outcome.retry_after)
        attempt.state, attempt.response = AttemptState.NOT_SENT, evidence(outcome)
        attempt.error_code, attempt.error_message = outcome.error_code, outcome.error_message
        attempt.http_status = outcome.http_status
        requeued = {"not_before": now + pause, "enqueued_at": None, "updated_at": now}
        return TargetState.QUEUED, JobState.PENDING, requeued
    if outcome.kind == OutcomeKind.NOT_SENT:  # tries used up: nothing was ever sent
        outcome = Outcome(
            OutcomeKind.FAILED,
            error_code=outcome.error_code or "NOT_SENT",
            error_message=f"Not sent after {attempt.tries} tries: {outcome.error_message}".strip(": "),
            http_status=outcome.http_status,
        )
    return _apply_outcome(target, attempt, outcome, now=now), JobState.DONE, {"updated_at": now}


# --- outcomes ----------------------------------------------------------------------------------


def _apply_outcome(target: Target, attempt: DeliveryAttempt, outcome: Outcome, *, now: dt.datetime) -> TargetState:
    """Record a settled or open outcome on the attempt and the target's other fields, in
    memory; return the state the target moves to."""
    kind = outcome.kind
    if kind == OutcomeKind.PUBLISHED:
        to = TargetState.PUBLISHED
        target.platform_post_id, target.platform_post_url = outcome.post_id, outcome.url
        target.published_at, target.next_check_at = now, None
        target.error_code = target.error_message = ""
    elif kind == OutcomeKind.FAILED:
        to = TargetState.FAILED
        target.error_code = outcome.error_code or "PLATFORM_ERROR"
        target.error_message = outcome.error_message or "The platform refused the post."
        target.next_check_at = None
    else:  # processing or unknown: the platform may have the post, so it is read back
        to = TargetState.PROCESSING if kind == OutcomeKind.PROCESSING else TargetState.UNKNOWN
        target.error_code, target.error_message = outcome.error_code, outcome.error_message
        target.next_check_at = now + FIRST_CHECK
        target.checks = 0
    attempt.state = AttemptState(kind.value)
    attempt.error_code, attempt.error_message = outcome.error_code, outcome.error_message
    attempt.http_status = outcome.http_status
    attempt.ref = {**attempt.ref, **outcome.ref}
    attempt.response = evidence(outcome)
    attempt.finished_at = now
    _log_outcome(target, to)
    return to


def _log_outcome(target: Target, to: TargetState) -> None:
    """One line per answer a target gets: what an operator watching the logs wants to see."""
    if to == TargetState.PUBLISHED:
        said = target.platform_post_url or target.platform_post_id
    elif to == TargetState.FAILED:
        said = f"{target.error_code}: {target.error_message}"
    else:
        said = "the platform has not confirmed it yet; it is read back"
    logger.info("Publish %s to %s: %s, %s", target.publish_id, target.platform, to.value, said)


def evidence(outcome: Outcome) -> dict[str, Any]:
    """What an answer said, kept as a send's evidence (an attempt's or a thread item's response)."""
    return {
        "kind": outcome.kind.value,
        "post_id": outcome.post_id or None,
        "url": outcome.url or None,
        "http_status": outcome.http_status,
        "error_code": outcome.error_code or None,
        "error_message": outcome.error_message or None,
        "retry_after": outcome.retry_after,
    }


# --- the reconciler's path ---------------------------------------------------------------------


@transaction.atomic
def attempt_lost(*, attempt_id: Id) -> Publish | None:
    """An attempt left in `sending` with no answer (the worker died or timed out mid-call):
    the post may exist, so the target becomes unknown and is reconciled, never re-sent."""
    attempt = DeliveryAttempt.objects.select_related("target").get(pk=attempt_id)
    publish = locked(None, attempt.target.publish_id)
    attempt.refresh_from_db()
    if attempt.state != AttemptState.SENDING:
        return None
    outcome = Outcome(
        OutcomeKind.UNKNOWN,
        error_code="NO_ANSWER",
        error_message="The sending worker stopped before the platform answered.",
    )
    target = attempt.target
    target.refresh_from_db()
    now = timezone.now()
    to = _apply_outcome(target, attempt, outcome, now=now)
    attempt.save()
    move_targets([target], to, fields=hotpath.ANSWER_TARGET_FIELDS, updated_at=now)
    move_jobs(DeliveryJob.objects.filter(target=target, number=attempt.number), JobState.DONE)
    settle(publish)
    return publish


@transaction.atomic
def job_recover(*, job_id: Id) -> Publish | None:
    """A job whose worker was lost after claiming it and before recording `sending`: nothing
    was sent, so it goes back to the queue; after MAX_RUNS claims the target fails with that
    evidence instead of looping."""
    job = DeliveryJob.objects.select_related("target").get(pk=job_id)
    publish = locked(None, job.target.publish_id)
    job.refresh_from_db()
    target = job.target
    target.refresh_from_db()
    if job.state != JobState.RUNNING:
        return None
    if DeliveryAttempt.objects.filter(target=target, number=job.number, state=AttemptState.SENDING).exists():
        return None  # the call may have gone out: attempt_lost settles it
    now = timezone.now()
    if target.state != TargetState.QUEUED or target.attempt_count != job.number:
        move_jobs([job], JobState.DONE, updated_at=now)
        return None
    if job.runs >= MAX_RUNS:
        lost = f"The delivery stopped {job.runs} times before sending; nothing was sent."
        move_targets([target], TargetState.FAILED, error_code="WORKER_LOST", error_message=lost, updated_at=now)
        move_jobs([job], JobState.DONE, updated_at=now)
    else:
        move_jobs([job], JobState.PENDING, enqueued_at=None, not_before=now, updated_at=now)
    settle(publish)
    return publish


@transaction.atomic
def check_record(*, target_id: Id, outcome: Outcome, now: dt.datetime | None = None) -> Publish | None:
    """Record what reconciliation learned about a processing or unknown target. A post not
    found soon after an unanswered call may still be appearing (platforms create posts
    asynchronously), so "not found" only counts as failure evidence once the attempt is
    UNKNOWN_ABSENT_AFTER old; until then the target stays unknown and is asked again."""
    target = Target.objects.get(pk=target_id)
    publish = locked(None, target.publish_id)
    target.refresh_from_db()
    if target.state not in (TargetState.PROCESSING, TargetState.UNKNOWN):
        return None
    now = now or timezone.now()
    attempt = DeliveryAttempt.objects.get(target=target, number=target.attempt_count)
    target.checks += 1
    to = TargetState(target.state)
    started = attempt.started_at or target.created_at
    too_soon = now - started < UNKNOWN_ABSENT_AFTER
    if to == TargetState.UNKNOWN and outcome.kind == OutcomeKind.FAILED and too_soon:
        pass  # absent for now: not yet evidence
    elif outcome.kind in (OutcomeKind.PUBLISHED, OutcomeKind.FAILED):
        to = _apply_outcome(target, attempt, outcome, now=now)
        attempt.save()
    elif outcome.kind == OutcomeKind.PROCESSING and to == TargetState.UNKNOWN:
        to = TargetState.PROCESSING  # the platform has it: no longer unknown
    if to in (TargetState.PROCESSING, TargetState.UNKNOWN):
        target.next_check_at = POLICY.next_check(now, target.checks)
    move_targets([target], to, fields=hotpath.ANSWER_TARGET_FIELDS, updated_at=timezone.now())
    settle(publish, now=now)
    return publish
