"""Every transition of a unit's delivery (DESIGN §4.3, §4.4), one function each, for every
kind of unit sent to a platform once: a target's own post, and a reply of its thread. The
worker starts an attempt and records the platform's answer; the reconciler settles an attempt
whose worker was lost mid-call, puts back a job whose worker was lost before sending, and
records what a read-back learned of a processing or unknown unit.

Each locks the publish row, checks its precondition, moves the unit and its job through
`publishing.transitions`, keeps the attempt as evidence, writes what follows in the unit's
thread (`threads.follow`: the next reply's job, or THREAD_BROKEN) and settles the publish's
status (`publishing.status`) in the same transaction; it returns the jobs it wrote, for the
caller to hand over once committed. What differs per kind is data: `policy.TARGET` and
`policy.REPLY` (tries, read-back pauses, what "absent" means) and `_KINDS` below (the states a
kind moves to). On PostgreSQL a target's two worker steps are the fixed statements of
`publishing.statements`; replies, and other databases, take the ORM path here, which leaves the
same rows.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from accounts.platforms.base import Outcome, OutcomeKind
from config.ids import new_id
from publishing import listeners, policy, statements, threads
from publishing.models import (
    AttemptState,
    DeliveryAttempt,
    DeliveryJob,
    Id,
    JobState,
    Publish,
    Target,
    TargetState,
    ThreadItem,
    ThreadItemKind,
    ThreadItemState,
)
from publishing.status import OUTCOME_EVENTS, derive_status, event_data, locked, settle
from publishing.transitions import move_items, move_jobs, move_targets
from webhooks.services import emit

MAX_RUNS = policy.MAX_RUNS

Unit = Target | ThreadItem


@dataclass(frozen=True)
class Kind:
    """What the one path asks of a kind of unit besides its policy: its states, the one writer
    of them, and the field holding its newest attempt's number."""

    policy: policy.Policy
    states: type[models.TextChoices]
    again: str  # where a not-sent answer puts it back (its job pending again)
    processing: str  # what an accepted, not yet confirmed answer makes it
    move: Callable[..., int]
    number: str


KINDS: dict[type[Unit], Kind] = {
    Target: Kind(policy.TARGET, TargetState, TargetState.QUEUED, TargetState.PROCESSING, move_targets, "attempt_count"),
    ThreadItem: Kind(
        policy.REPLY, ThreadItemState, ThreadItemState.PENDING, ThreadItemState.UNKNOWN, move_items, "attempts"
    ),
}
_OPEN = frozenset({"processing", "unknown"})


def _kind(unit: Unit) -> Kind:
    return KINDS[type(unit)]


def unit_of(row: DeliveryJob | DeliveryAttempt) -> Unit:
    """The unit a job or an attempt sends: its thread item when it has one, else its target."""
    return row.item if row.item_id is not None else row.target  # type: ignore[return-value]


def _jobs(attempt: DeliveryAttempt) -> QuerySet[DeliveryJob]:
    return DeliveryJob.objects.filter(target_id=attempt.target_id, item_id=attempt.item_id, number=attempt.number)


def last_attempt(unit: Unit) -> DeliveryAttempt | None:
    """The unit's newest attempt, None before any."""
    if isinstance(unit, ThreadItem):
        return DeliveryAttempt.objects.filter(item=unit, number=unit.attempts).first()
    return DeliveryAttempt.objects.filter(target=unit, item=None, number=unit.attempt_count).first()


logger = logging.getLogger(__name__)


# --- the worker's path -------------------------------------------------------------------------


def attempt_start(*, job: DeliveryJob) -> DeliveryAttempt | None:
    """Record that a just-claimed job's unit is being sent, before the platform is called
    (committed, so a crash mid-call leaves the evidence). Under the publish lock the unit
    moves to sending by a compare-and-set on its attempt number, and the attempt is created,
    or counted once more after a not-sent answer. None when the job is stale (the unit moved
    on): nothing is sent then."""
    if job.item_id is None and statements.enabled():
        return statements.start(job, new_id(), timezone.now())
    return _attempt_start(job)


@transaction.atomic
def _attempt_start(job: DeliveryJob) -> DeliveryAttempt | None:
    target, unit = job.target, unit_of(job)
    kind = _kind(unit)
    list(Publish.objects.select_for_update().filter(pk=target.publish_id).values_list("pk", flat=True))
    now = timezone.now()
    current = type(unit).objects.filter(pk=unit.pk, **{kind.number: job.number})
    if not kind.move(current, kind.states("sending"), updated_at=now):
        return None
    unit.state, unit.updated_at = kind.states("sending"), now
    setattr(unit, kind.number, job.number)
    rows = DeliveryAttempt.objects.filter(target=target, item_id=job.item_id, number=job.number)
    if rows.update(state=AttemptState.SENDING, tries=F("tries") + 1, started_at=now, updated_at=now):
        attempt = rows.get()
    else:
        attempt = DeliveryAttempt.objects.create(
            target=target, item_id=job.item_id, number=job.number, state=AttemptState.SENDING, tries=1, started_at=now
        )
    attempt.target, attempt.item = target, job.item if job.item_id is not None else None
    return attempt


@transaction.atomic
def attempt_finish(
    *, attempt: DeliveryAttempt, outcome: Outcome, request: Mapping[str, Any], thread: bool = True
) -> list[DeliveryJob]:
    """Record the platform's answer to the attempt `attempt_start` began. Under the publish
    lock, an answer for an attempt settled meanwhile (reconciled as unknown) changes nothing.
    A not-sent answer puts the job back with a pause (the same attempt tries again) until the
    kind's max_tries, then fails the unit with it. Returns the jobs of what follows in its
    thread (`thread` false: the target has none, nothing is looked up), to hand over once
    committed."""
    if attempt.item_id is None and statements.enabled():
        return _attempt_finish_hot(attempt, outcome, request, thread=thread)
    publish = locked(None, attempt.target.publish_id)
    attempt = DeliveryAttempt.objects.select_related("target", "item").get(pk=attempt.pk)
    unit = unit_of(attempt)
    if attempt.state != AttemptState.SENDING or unit.state != "sending":
        return []
    now = timezone.now()
    to, job_to, job_changes = _answer(unit, attempt, outcome, request, now=now)
    move_jobs(_jobs(attempt), job_to, **job_changes)
    attempt.save()
    _kind(unit).move([unit], to, fields=statements.ANSWER_TARGET_FIELDS, updated_at=now)
    follows = threads.follow(unit, now=now) if thread else []
    settle(publish, now=now)
    return follows


def _attempt_finish_hot(
    attempt: DeliveryAttempt, outcome: Outcome, request: Mapping[str, Any], *, thread: bool
) -> list[DeliveryJob]:
    """attempt_finish in three fixed statements (`statements`): the attempt and its target as `attempt_start`
    left them in memory, the ref as saved during the call. The answer's statement writes only
    a move the transition tables declare."""
    target = attempt.target
    publish = target.publish
    statements.lock_publish(publish)
    now = timezone.now()
    target.state, job_to, job_changes = _answer(target, attempt, outcome, request, now=now)
    others = statements.record_answer(attempt, job_to, job_changes, now)
    if others is None:
        return []
    follows = threads.follow(target, now=now) if thread else []
    targets = sorted([target, *others], key=lambda t: (t.created_at, t.pk))
    if target.state == TargetState.PUBLISHED:
        publish.published_at = publish.published_at or target.published_at
        listeners.published({publish.pk})
    old = publish.status
    publish.status = derive_status([t.state for t in targets])
    if publish.status != old and publish.status in OUTCOME_EVENTS:
        publish.completed_at = now
    statements.set_status(publish, now)
    if publish.status != old and publish.status in OUTCOME_EVENTS:
        emit(team=publish.team, event_type=OUTCOME_EVENTS[publish.status], data=event_data(publish, targets=targets))
    return follows


def _answer(
    unit: Unit, attempt: DeliveryAttempt, outcome: Outcome, request: Mapping[str, Any], *, now: dt.datetime
) -> tuple[Any, JobState, dict[str, Any]]:
    """Apply the platform's answer to the attempt and its unit in memory; return the states
    the unit and the job move to and the job's other new values. A not-sent answer within the
    kind's max_tries puts the unit back for its job to run again."""
    kind = _kind(unit)
    attempt.request = dict(request)
    if outcome.kind == OutcomeKind.NOT_SENT and attempt.tries < kind.policy.max_tries:
        pause = kind.policy.backoff(attempt.tries, outcome.retry_after)
        attempt.state, attempt.response = AttemptState.NOT_SENT, evidence(outcome)
        attempt.error_code, attempt.error_message = outcome.error_code, outcome.error_message
        attempt.http_status = outcome.http_status
        requeued = {"not_before": now + pause, "enqueued_at": None, "updated_at": now}
        return kind.states(kind.again), JobState.PENDING, requeued
    if outcome.kind == OutcomeKind.NOT_SENT:  # tries used up: nothing was ever sent
        outcome = Outcome(
            OutcomeKind.FAILED,
            error_code=outcome.error_code or "NOT_SENT",
            error_message=f"Not sent after {attempt.tries} tries: {outcome.error_message}".strip(": "),
            http_status=outcome.http_status,
        )
    return _apply_outcome(unit, attempt, outcome, now=now), JobState.DONE, {"updated_at": now}


# --- outcomes ----------------------------------------------------------------------------------


def _apply_outcome(unit: Unit, attempt: DeliveryAttempt, outcome: Outcome, *, now: dt.datetime) -> Any:
    """Record a settled or open outcome on the attempt and the unit's other fields, in memory;
    return the state the unit moves to."""
    kind, answer = _kind(unit), outcome.kind
    if answer == OutcomeKind.PUBLISHED:
        to = kind.states("published")
        unit.platform_post_id, unit.platform_post_url = outcome.post_id, outcome.url
        unit.published_at, unit.next_check_at = now, None
        unit.error_code = unit.error_message = ""
    elif answer == OutcomeKind.FAILED:
        to = kind.states("failed")
        unit.error_code = outcome.error_code or "PLATFORM_ERROR"
        unit.error_message = outcome.error_message or "The platform refused the post."
        unit.next_check_at = None
    else:  # processing or unknown: the platform may have the post, so it is read back
        to = kind.states(kind.processing if answer == OutcomeKind.PROCESSING else "unknown")
        unit.error_code, unit.error_message = outcome.error_code, outcome.error_message
        unit.next_check_at = now + kind.policy.first_check
        unit.checks = 0
    attempt.state = AttemptState(answer.value)
    attempt.error_code, attempt.error_message = outcome.error_code, outcome.error_message
    attempt.http_status = outcome.http_status
    attempt.ref = {**attempt.ref, **outcome.ref}
    attempt.response = evidence(outcome)
    attempt.finished_at = now
    _log_outcome(unit, to)
    return to


def _log_outcome(unit: Unit, to: str) -> None:
    """One line per answer a unit gets: what an operator watching the logs wants to see."""
    if to == "published":
        said = unit.platform_post_url or unit.platform_post_id
    elif to == "failed":
        said = f"{unit.error_code}: {unit.error_message}"
    else:
        said = "the platform has not confirmed it yet; it is read back"
    if isinstance(unit, ThreadItem) and unit.kind == ThreadItemKind.REMOVAL:
        done = {"published": "deleted", "failed": "not deleted"}.get(to, to)
        what = "its post" if unit.removes_id is None else "a reply"
        logger.info("Taking down %s of target %s: %s, %s", what, unit.target_id, done, said)
    elif isinstance(unit, ThreadItem) and unit.kind == ThreadItemKind.COMMENT:
        logger.info("First comment of target %s: %s, %s", unit.target_id, to, said)
    elif isinstance(unit, ThreadItem):
        logger.info("Reply %s of target %s: %s, %s", unit.position, unit.target_id, to, said)
    else:
        logger.info("Publish %s to %s: %s, %s", unit.publish_id, unit.platform, to, said)


def evidence(outcome: Outcome) -> dict[str, Any]:
    """What an answer said, kept as a send's evidence (its attempt's response)."""
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
def attempt_lost(*, attempt_id: Id) -> list[DeliveryJob]:
    """An attempt left in `sending` with no answer (the worker died or timed out mid-call):
    the post may exist, so the unit becomes unknown and is reconciled, never re-sent blindly.
    Returns the jobs written (none: unknown is followed by nothing)."""
    attempt = DeliveryAttempt.objects.select_related("target").get(pk=attempt_id)
    publish = locked(None, attempt.target.publish_id)
    attempt = DeliveryAttempt.objects.select_related("target", "item").get(pk=attempt_id)
    if attempt.state != AttemptState.SENDING:
        return []
    outcome = Outcome(
        OutcomeKind.UNKNOWN,
        error_code="NO_ANSWER",
        error_message="The sending worker stopped before the platform answered.",
    )
    unit = unit_of(attempt)
    now = timezone.now()
    to = _apply_outcome(unit, attempt, outcome, now=now)
    attempt.save()
    _kind(unit).move([unit], to, fields=statements.ANSWER_TARGET_FIELDS, updated_at=now)
    move_jobs(_jobs(attempt), JobState.DONE)
    settle(publish)
    return []


@transaction.atomic
def job_recover(*, job_id: Id) -> list[DeliveryJob]:
    """A job whose worker was lost after claiming it and before recording `sending`: nothing
    was sent, so it goes back to the queue; after MAX_RUNS claims the unit fails with that
    evidence instead of looping (a reply's failure breaks its thread: nothing is written for
    it to hand over)."""
    job = DeliveryJob.objects.select_related("target").get(pk=job_id)
    publish = locked(None, job.target.publish_id)
    job = DeliveryJob.objects.select_related("target", "item").get(pk=job_id)
    if job.state != JobState.RUNNING:
        return []
    attempts = DeliveryAttempt.objects.filter(target_id=job.target_id, item_id=job.item_id, number=job.number)
    if attempts.filter(state=AttemptState.SENDING).exists():
        return []  # the call may have gone out: attempt_lost settles it
    now, unit = timezone.now(), unit_of(job)
    kind = _kind(unit)
    if unit.state != kind.again or getattr(unit, kind.number) != job.number:
        move_jobs([job], JobState.DONE, updated_at=now)
        return []
    if job.runs >= MAX_RUNS:
        lost = f"The delivery stopped {job.runs} times before sending; nothing was sent."
        kind.move([unit], kind.states("failed"), error_code="WORKER_LOST", error_message=lost, updated_at=now)
        move_jobs([job], JobState.DONE, updated_at=now)
        threads.follow(unit, now=now)
    else:
        move_jobs([job], JobState.PENDING, enqueued_at=None, not_before=now, updated_at=now)
    settle(publish)
    return []


@transaction.atomic
def check_record(
    *, target_id: Id, outcome: Outcome, now: dt.datetime | None = None, item_id: Id | None = None
) -> list[DeliveryJob]:
    """Record what reconciliation learned about a processing or unknown unit (the target, or
    its thread item `item_id`). A post not found soon after an unanswered call may still be
    appearing (platforms create posts asynchronously), so "not found" only counts as evidence
    of absence once the attempt is RECONCILE_ABSENT_AFTER_SECONDS old; until then the unit stays unknown
    and is asked again. Absent, a target fails with that evidence and a reply is sent again
    (its policy's `absent`, within its max_tries). Returns the jobs written (a re-send, or what
    follows in the thread), to hand over once committed."""
    target = Target.objects.get(pk=target_id)
    publish = locked(None, target.publish_id)
    unit: Unit = Target.objects.get(pk=target_id) if item_id is None else ThreadItem.objects.get(pk=item_id)
    if unit.state not in _OPEN:
        return []
    now = now or timezone.now()
    kind = _kind(unit)
    attempt = last_attempt(unit)
    assert attempt is not None  # an open unit was sent  # noqa: S101
    unit.checks += 1
    to = kind.states(unit.state)
    started = attempt.started_at or unit.created_at
    too_soon = now - started < dt.timedelta(seconds=settings.RECONCILE_ABSENT_AFTER_SECONDS)
    follows: list[DeliveryJob] = []
    if to == "unknown" and outcome.kind == OutcomeKind.FAILED and too_soon:
        pass  # absent for now: not yet evidence
    elif _sent_again(unit, outcome):
        to = kind.states(kind.again)
        unit.next_check_at, unit.error_code = None, outcome.error_code
        unit.error_message = "Not found after its send: sent again."
        attempt.state, attempt.response, attempt.finished_at = AttemptState.FAILED, evidence(outcome), now
        attempt.error_code, attempt.error_message = outcome.error_code, outcome.error_message
        attempt.save()
    elif outcome.kind in (OutcomeKind.PUBLISHED, OutcomeKind.FAILED):
        to = _apply_outcome(unit, attempt, outcome, now=now)
        attempt.save()
    elif outcome.kind == OutcomeKind.PROCESSING and to == "unknown":
        to = kind.states(kind.processing)  # the platform has it: no longer unknown (a target)
    if to in _OPEN:
        unit.next_check_at = kind.policy.next_check(now, unit.checks)
    kind.move([unit], to, fields=statements.ANSWER_TARGET_FIELDS, updated_at=timezone.now())
    if isinstance(unit, ThreadItem) and to == ThreadItemState.PENDING:
        follows = [threads.queue(unit, now=now)]
    else:
        follows = threads.follow(unit, now=now)
    settle(publish, now=now)
    return follows


def _sent_again(unit: Unit, outcome: Outcome) -> bool:
    """Whether a read-back's answer proves the unit absent and its kind sends it again."""
    kind = _kind(unit)
    absent = outcome.kind == OutcomeKind.FAILED and outcome.error_code == "NOT_FOUND"
    tries_left = getattr(unit, kind.number) < kind.policy.max_tries
    return absent and kind.policy.absent == policy.SEND_AGAIN and tries_left
