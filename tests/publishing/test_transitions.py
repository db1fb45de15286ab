"""The declared moves of targets, thread replies and outbox jobs (`publishing.transitions`):
the tables say what the spec's lifecycle says (spec §3, DESIGN §4), a move they do not declare
raises and writes nothing, through the ORM and through the worker's fixed statements alike,
and nothing else in the app writes those states."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from publishing import delivery, sending, statements
from publishing.models import (
    TARGET_STATUS,
    DeliveryAttempt,
    DeliveryJob,
    JobState,
    Publish,
    PublishStatus,
    Target,
    TargetState,
    ThreadItem,
    ThreadItemState,
)
from publishing.transitions import (
    ITEM_INITIAL,
    ITEM_SOURCES,
    ITEM_TRANSITIONS,
    JOB_INITIAL,
    JOB_SOURCES,
    JOB_TRANSITIONS,
    TARGET_INITIAL,
    TARGET_SOURCES,
    TARGET_TRANSITIONS,
    TransitionNotAllowed,
    move_items,
    move_jobs,
    move_targets,
)

T = TargetState
R = ThreadItemState

# --- the tables ------------------------------------------------------------------------------


def test_every_state_has_its_row():
    assert set(TARGET_TRANSITIONS) == set(TargetState)
    assert set(ITEM_TRANSITIONS) == set(ThreadItemState)
    assert set(JOB_TRANSITIONS) == set(JobState)


def test_the_reply_table_as_declared():
    assert {
        R.PENDING: {R.SENDING, R.FAILED},
        R.SENDING: {R.PENDING, R.UNKNOWN, R.PUBLISHED, R.FAILED},
        R.UNKNOWN: {R.UNKNOWN, R.PENDING, R.PUBLISHED, R.FAILED},
        R.PUBLISHED: set(),
        R.FAILED: {R.PENDING},
    } == ITEM_TRANSITIONS
    assert set(ITEM_INITIAL) == {R.PENDING}
    # Sent again only from unknown (read back and proven absent), after a not-sent answer, or
    # when the user retries a failed first comment (`threads.comments_retried`).
    assert ITEM_SOURCES[R.PENDING] == {R.SENDING, R.UNKNOWN, R.FAILED}
    seen, frontier = set(ITEM_INITIAL), list(ITEM_INITIAL)
    while frontier:
        for to in ITEM_TRANSITIONS[frontier.pop()] - seen:
            seen.add(to)
            frontier.append(to)
    assert seen == set(ThreadItemState)


_MOVERS = Path(__file__).resolve().parents[2] / "publishing"


def test_no_state_of_a_target_a_reply_or_a_job_is_written_but_by_its_mover():
    """Every `.update(state=...)` in the app writes an attempt's state (an attempt is
    evidence, not a state machine): the others go through move_targets, move_items and
    move_jobs, which check the tables."""
    found = []
    for path in sorted(_MOVERS.glob("*.py")):
        if path.name == "transitions.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in ("update", "bulk_update"):
                continue
            for keyword in node.keywords:
                if keyword.arg == "state" and "AttemptState" not in ast.unparse(keyword.value):
                    found.append(f"{path.name}:{node.lineno}")
    assert found == []


@pytest.mark.parametrize(
    ("case", "status", "initial"),
    [
        ("immediate", PublishStatus.PUBLISHING, T.QUEUED),  # queued; 201
        ("immediate, gated", PublishStatus.DRAFT, T.DRAFT),  # not sent until approved
        ("scheduled", PublishStatus.SCHEDULED, T.SCHEDULED),  # a queue job for that time
        ("draft", PublishStatus.DRAFT, T.DRAFT),  # nothing sent
    ],
)
def test_a_new_publishs_targets_start_where_the_spec_puts_it(case, status, initial):
    assert initial in TARGET_INITIAL
    assert TARGET_STATUS[initial] == status


@pytest.mark.parametrize(
    ("trigger", "source", "to"),
    [
        ("confirm, no schedule: queued for immediate publishing", T.DRAFT, T.QUEUED),
        ("confirm with scheduled_at", T.DRAFT, T.SCHEDULED),
        ("PATCH of a scheduled publish: same state, its queue job replaced", T.SCHEDULED, T.SCHEDULED),
        ("reschedule", T.SCHEDULED, T.SCHEDULED),
        ("unschedule", T.SCHEDULED, T.DRAFT),
        ("reject: terminal, its schedule dropped", T.SCHEDULED, T.DRAFT),
        ("approve, or the scheduled time: released to the publishing queue", T.SCHEDULED, T.QUEUED),
        ("retry: failed targets re-queued", T.FAILED, T.QUEUED),
        ("the service claims the work and sends it", T.QUEUED, T.SENDING),
        ("the platform accepted, no final result yet", T.SENDING, T.PROCESSING),
        ("a real platform content id", T.SENDING, T.PUBLISHED),
        ("explicit platform error evidence", T.SENDING, T.FAILED),
        ("a processing post is confirmed", T.PROCESSING, T.PUBLISHED),
    ],
)
def test_the_spec_lifecycle_moves_are_declared(trigger, source, to):
    assert to in TARGET_TRANSITIONS[source], trigger


def test_published_and_unknown_outcomes_are_never_sent_again():
    assert TARGET_TRANSITIONS[T.PUBLISHED] == frozenset()
    for state in (T.PUBLISHED, T.UNKNOWN, T.PROCESSING):
        assert not TARGET_TRANSITIONS[state] & {T.QUEUED, T.SENDING, T.DRAFT, T.SCHEDULED}, state


def test_failed_needs_evidence_so_nothing_unsent_fails():
    # A draft or scheduled target never reached a worker: no evidence can exist for it.
    assert TARGET_SOURCES[T.FAILED] == {T.QUEUED, T.SENDING, T.PROCESSING, T.UNKNOWN}


def test_the_tables_as_declared():
    targets = {
        T.DRAFT: {T.SCHEDULED, T.QUEUED},
        T.SCHEDULED: {T.SCHEDULED, T.DRAFT, T.QUEUED},
        T.QUEUED: {T.SENDING, T.FAILED},
        T.SENDING: {T.QUEUED, T.PROCESSING, T.UNKNOWN, T.PUBLISHED, T.FAILED},
        T.PROCESSING: {T.PROCESSING, T.PUBLISHED, T.FAILED},
        T.UNKNOWN: {T.UNKNOWN, T.PROCESSING, T.PUBLISHED, T.FAILED},
        T.PUBLISHED: set(),
        T.FAILED: {T.QUEUED},
    }
    jobs = {
        JobState.PENDING: {JobState.RUNNING, JobState.DONE},
        JobState.RUNNING: {JobState.PENDING, JobState.DONE},
        JobState.DONE: set(),
    }
    assert targets == TARGET_TRANSITIONS
    assert jobs == JOB_TRANSITIONS
    assert set(JOB_INITIAL) == {JobState.PENDING}
    assert JOB_SOURCES[JobState.RUNNING] == {JobState.PENDING}  # the claim's compare-and-set


def test_every_state_is_reachable_from_a_new_target():
    seen, frontier = set(TARGET_INITIAL), list(TARGET_INITIAL)
    while frontier:
        for to in TARGET_TRANSITIONS[frontier.pop()] - seen:
            seen.add(to)
            frontier.append(to)
    assert seen == set(TargetState)


# --- the guarded writes ------------------------------------------------------------------------


def _publish(owner: Any, accounts: Any, *states: TargetState) -> list[Target]:
    publish = Publish.objects.create(team=owner.team, content="Moves", confirmed=True, status=PublishStatus.PUBLISHING)
    targets = []
    for platform, state in zip(("x", "bluesky", "linkedin"), states, strict=False):
        evidence = {"platform_post_id": "p1"} if state == T.PUBLISHED else {}
        evidence |= {"error_code": "E"} if state == T.FAILED else {}
        target = Target.objects.create(
            publish=publish, account=getattr(accounts, platform), platform=platform, state=state, **evidence
        )
        targets.append(target)
    return targets


def _stored(target: Target) -> tuple[str, int]:
    fresh = Target.objects.get(pk=target.pk)
    return fresh.state, fresh.attempt_count


@pytest.mark.django_db
def test_a_forbidden_move_raises_and_writes_nothing(owner, accounts):
    failed, published = _publish(owner, accounts, T.FAILED, T.PUBLISHED)
    failed.attempt_count = published.attempt_count = 7

    with pytest.raises(TransitionNotAllowed):
        move_targets([failed, published], T.QUEUED, fields=["attempt_count"])

    assert _stored(failed) == (T.FAILED, 0)  # the allowed one is not written either
    assert _stored(published) == (T.PUBLISHED, 0)
    assert published.state == T.PUBLISHED  # nor moved in memory


@pytest.mark.django_db
def test_an_allowed_move_writes_the_state_and_the_fields(owner, accounts):
    failed, draft = _publish(owner, accounts, T.FAILED, T.DRAFT)
    failed.attempt_count = draft.attempt_count = 1

    assert move_targets([failed, draft], T.QUEUED, fields=["attempt_count"]) == 2

    assert _stored(failed) == _stored(draft) == (T.QUEUED, 1)


@pytest.mark.django_db
def test_a_row_that_moved_meanwhile_is_left_alone(owner, accounts):
    (target,) = _publish(owner, accounts, T.FAILED)
    Target.objects.filter(pk=target.pk).update(state=T.PUBLISHED, platform_post_id="p1")  # behind its back

    assert move_targets([target], T.QUEUED) == 0  # failed -> queued, as far as it knew
    assert move_targets(Target.objects.filter(pk=target.pk), T.QUEUED) == 0

    assert _stored(target) == (T.PUBLISHED, 0)


@pytest.mark.django_db
def test_a_forbidden_reply_move_raises_and_writes_nothing(owner, accounts):
    (target,) = _publish(owner, accounts, T.PUBLISHED)
    published = ThreadItem.objects.create(target=target, position=1, state=R.PUBLISHED, platform_post_id="r1")
    pending = ThreadItem.objects.create(target=target, position=2)

    with pytest.raises(TransitionNotAllowed):  # a published reply is never sent again
        move_items([pending, published], R.SENDING)
    assert move_items(ThreadItem.objects.filter(target=target), R.SENDING) == 1  # the pending one only

    assert list(ThreadItem.objects.filter(target=target).values_list("state", flat=True)) == [R.PUBLISHED, R.SENDING]


@pytest.mark.django_db
def test_a_done_job_never_runs_again(owner, accounts):
    (target,) = _publish(owner, accounts, T.QUEUED)
    job = DeliveryJob.objects.create(
        target=target, number=1, dispatch_id=f"deliver:{target.pk}:1", state=JobState.DONE, not_before=timezone.now()
    )

    with pytest.raises(TransitionNotAllowed):
        move_jobs([job], JobState.PENDING)
    assert move_jobs(DeliveryJob.objects.filter(pk=job.pk), JobState.RUNNING) == 0

    assert DeliveryJob.objects.get(pk=job.pk).state == JobState.DONE


@pytest.mark.django_db
def test_the_workers_writes_make_only_declared_moves(owner, accounts, hot_path):
    (target,) = _publish(owner, accounts, T.QUEUED)
    target.attempt_count = 1
    target.save()
    job = DeliveryJob.objects.create(
        target=target, number=1, dispatch_id=f"deliver:{target.pk}:1", not_before=timezone.now()
    )
    claimed, _ = sending._claim(str(job.pk))
    attempt = delivery.attempt_start(job=claimed)
    assert attempt is not None
    assert _stored(target) == (T.SENDING, 1)

    # An answer cannot put a sending target back to draft: the fixed statement's guard writes
    # nothing, the ORM's move raises before writing.
    if hot_path == "fixed":
        attempt.target.state = T.DRAFT  # the state the answer's statement writes
        assert statements.record_answer(attempt, JobState.DONE, {"updated_at": timezone.now()}, timezone.now()) is None
    else:
        with pytest.raises(TransitionNotAllowed):
            move_targets([attempt.target], T.DRAFT, fields=statements.ANSWER_TARGET_FIELDS)

    assert _stored(target) == (T.SENDING, 1)
    assert DeliveryAttempt.objects.get(pk=attempt.pk).state == "sending"
    assert DeliveryJob.objects.get(pk=job.pk).state == JobState.RUNNING
    assert sending._claim(str(job.pk)) is None  # running: not pending, not claimed twice
