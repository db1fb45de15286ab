"""Which states a target's delivery, a thread reply's and an outbox job may move between,
declared as data, and the one writer of each: `move_targets`, `move_items` and `move_jobs`.

Every state write of a stored target, thread item or job goes through these three. Given instances, each
one's current state must lead to the new one in the table, else TransitionNotAllowed is raised
before anything is written. Either way the UPDATE's WHERE keeps only the rows whose stored
state is a declared source of the new one: a compare-and-set, so a row that moved meanwhile is
left alone, and the count of rows written tells. The worker's claim of a job is the one
shared with webhook deliveries (`config.jobs.claim`), and the worker's fixed statements
(`publishing.statements`) take their `state IN (...)` lists and CASE guards: both from the same
tables, the fixed ones built once at import.

A new target starts draft, scheduled or queued, a new thread item and a new job pending
(TARGET_INITIAL, ITEM_INITIAL, JOB_INITIAL): writing a row is not a move. A publish's status
is not here: it is derived from its targets' states (`publishing.status.derive_status`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from django.db import models
from django.db.models import QuerySet

from publishing import listeners
from publishing.models import DeliveryJob, JobState, Target, TargetState, ThreadItem, ThreadItemState

S = TypeVar("S", bound=models.TextChoices)
M = TypeVar("M", bound=models.Model)

TARGET_INITIAL = frozenset({TargetState.DRAFT, TargetState.SCHEDULED, TargetState.QUEUED})
TARGET_TRANSITIONS: dict[TargetState, frozenset[TargetState]] = {
    # confirm: scheduled when a time is given, else queued
    TargetState.DRAFT: frozenset({TargetState.SCHEDULED, TargetState.QUEUED}),
    # edit and reschedule replace the release; unschedule and reject; the release itself
    TargetState.SCHEDULED: frozenset({TargetState.SCHEDULED, TargetState.DRAFT, TargetState.QUEUED}),
    # a worker starts sending; a job lost again and again before sending fails it
    TargetState.QUEUED: frozenset({TargetState.SENDING, TargetState.FAILED}),
    # the platform's answer; not sent puts it back in the queue (the same attempt)
    TargetState.SENDING: frozenset(
        {TargetState.QUEUED, TargetState.PROCESSING, TargetState.UNKNOWN, TargetState.PUBLISHED, TargetState.FAILED}
    ),
    # reconciliation: asked again until it settles; an unknown outcome is never re-sent
    TargetState.PROCESSING: frozenset({TargetState.PROCESSING, TargetState.PUBLISHED, TargetState.FAILED}),
    TargetState.UNKNOWN: frozenset(
        {TargetState.UNKNOWN, TargetState.PROCESSING, TargetState.PUBLISHED, TargetState.FAILED}
    ),
    TargetState.PUBLISHED: frozenset(),
    # retry (with approval first when a member's edit needs it)
    TargetState.FAILED: frozenset({TargetState.QUEUED}),
}


IS = ThreadItemState
ITEM_INITIAL = frozenset({IS.PENDING})
ITEM_TRANSITIONS: dict[IS, frozenset[IS]] = {
    # a worker starts sending its job; an earlier item failed (THREAD_BROKEN), or its job was
    # lost again and again before sending
    IS.PENDING: frozenset({IS.SENDING, IS.FAILED}),
    # the platform's answer (processing is read back as unknown); not sent: pending, the same
    # attempt tries again
    IS.SENDING: frozenset({IS.PENDING, IS.UNKNOWN, IS.PUBLISHED, IS.FAILED}),
    # read back until it settles; proven absent, it is pending again and sent anew (a reply's
    # policy, `policy.REPLY`), the only unit ever sent again
    IS.UNKNOWN: frozenset({IS.UNKNOWN, IS.PENDING, IS.PUBLISHED, IS.FAILED}),
    IS.PUBLISHED: frozenset(),
    # a failed first comment is sent again when the user retries the publish
    # (`threads.comments_retried`); a failed reply stays failed
    IS.FAILED: frozenset({IS.PENDING}),
}

JOB_INITIAL = frozenset({JobState.PENDING})
JOB_TRANSITIONS: dict[JobState, frozenset[JobState]] = {
    # claimed by a worker; done when the attempt it would make was settled without it
    JobState.PENDING: frozenset({JobState.RUNNING, JobState.DONE}),
    # answered, stale or given up; back to pending after a not-sent answer or a lost worker
    JobState.RUNNING: frozenset({JobState.PENDING, JobState.DONE}),
    JobState.DONE: frozenset(),
}


def _sources(table: Mapping[S, frozenset[S]]) -> dict[S, frozenset[S]]:
    """For each state, the states the table lets move into it."""
    return {to: frozenset(source for source, targets in table.items() if to in targets) for to in table}


TARGET_SOURCES = _sources(TARGET_TRANSITIONS)
ITEM_SOURCES = _sources(ITEM_TRANSITIONS)
JOB_SOURCES = _sources(JOB_TRANSITIONS)


class TransitionNotAllowed(Exception):
    """A write would move a row along a transition its table does not declare: a bug in the
    caller, never an answer to a client."""


def move_targets(
    targets: QuerySet[Target] | Sequence[Target], to: TargetState, *, fields: Sequence[str] = (), **values: Any
) -> int:
    """Move targets to `to`, writing `values` (the same for every row) with it. Instances are
    checked against the table first and take the new values in memory too; `fields` names more
    of their own attributes to write (each row its own value). Returns the rows written. Targets
    published are told to `listeners`."""
    if isinstance(targets, QuerySet):
        moving = targets.filter(state__in=TARGET_SOURCES[to])
        publishes = set(moving.values_list("publish_id", flat=True)) if to == TargetState.PUBLISHED else ()
        written = moving.update(state=to, **values)
    else:
        _check(TARGET_TRANSITIONS, targets, to)
        written = _write(Target.objects.filter(state__in=TARGET_SOURCES[to]), targets, to, fields, values)
        publishes = {target.publish_id for target in targets} if to == TargetState.PUBLISHED else ()
    if written and publishes:
        listeners.published(publishes)
    return written


def move_items(
    items: QuerySet[ThreadItem] | Sequence[ThreadItem],
    to: ThreadItemState,
    *,
    fields: Sequence[str] = (),
    **values: Any,
) -> int:
    """Move thread items to `to`, as `move_targets` moves targets."""
    if isinstance(items, QuerySet):
        return items.filter(state__in=ITEM_SOURCES[to]).update(state=to, **values)
    _check(ITEM_TRANSITIONS, items, to)
    return _write(ThreadItem.objects.filter(state__in=ITEM_SOURCES[to]), items, to, fields, values)


def move_jobs(
    jobs: QuerySet[DeliveryJob] | Sequence[DeliveryJob], to: JobState, *, fields: Sequence[str] = (), **values: Any
) -> int:
    """Move outbox jobs to `to`, as `move_targets` moves targets."""
    if isinstance(jobs, QuerySet):
        return jobs.filter(state__in=JOB_SOURCES[to]).update(state=to, **values)
    _check(JOB_TRANSITIONS, jobs, to)
    return _write(DeliveryJob.objects.filter(state__in=JOB_SOURCES[to]), jobs, to, fields, values)


def _check(table: Mapping[Any, frozenset[str]], rows: Sequence[Target | ThreadItem | DeliveryJob], to: str) -> None:
    for row in rows:
        if to not in table[row.state]:
            raise TransitionNotAllowed(f"{type(row).__name__} {row.pk} cannot move from {row.state} to {to}.")


def _write(allowed: QuerySet[M], rows: Sequence[M], to: str, fields: Sequence[str], values: dict[str, Any]) -> int:
    """Set the new state and values on the instances, then write them in one UPDATE limited
    to `allowed` (one row: its values; more: a CASE per field, as bulk_update writes)."""
    for row in rows:
        row.state = to  # type: ignore[attr-defined]
        for name, value in values.items():
            setattr(row, name, value)
    names = ["state", *fields, *values]
    if len(rows) == 1:
        return allowed.filter(pk=rows[0].pk).update(**{name: getattr(rows[0], name) for name in names})
    return allowed.bulk_update(rows, names) if rows else 0


def sql_states(states: frozenset[S] | set[S]) -> str:
    """A literal SQL list of states, for a fixed statement's `IN (...)` (values from the
    enums, never from a request)."""
    return ", ".join(f"'{state.value}'" for state in sorted(states))


def sql_may_move(column: str, to_parameter: str, sources: Mapping[S, frozenset[S]]) -> str:
    """A fixed statement's guard: true when `column` holds a declared source of the state the
    named parameter moves the row to (false for a state nothing moves into)."""
    arms = " ".join(
        f"WHEN '{to.value}' THEN {column} IN ({sql_states(found)})" for to, found in sources.items() if found
    )
    return f"CASE %({to_parameter})s {arms} ELSE false END"
