"""The transitions of a publish (spec §3), one function each: create, edit, discard, confirm,
reschedule, unschedule, retry and unpublish (taking its posts down). Approve and reject, and
who must wait for them, are in `publishing.approval`; the hand-over of a transition's jobs
after its commit, and the resend of jobs the broker never took, in `publishing.handover`. What
releasing writes, and the scheduler's release of due publishes, are in `publishing.outbox`; the
transitions of a target's delivery (the worker's attempt, reconciliation) in
`publishing.delivery`; what taking a post down sends, in `publishing.removals`.

Each function locks the publish row, checks its precondition, writes, records the webhook
event in the same transaction and returns the publish. Views, tasks, admin actions and the
dashboard call only these, with no step to add after them. Releasing work writes delivery
jobs (the outbox) in the same transaction, a durable one (the outermost, so committed when its
block ends); right after it the function hands its own jobs to the broker
(`handover.handed_over`), and when the broker refuses them raises
PublishDispatchUncertain, its rows committed and the jobs left to the relay. Targets move only
as `publishing.transitions` declares.

A publish's status is never set by hand: `publishing.status` derives it from the targets'
states after every change (DESIGN §4.1) and emits `post.published` or `post.failed` when, and
only when, it moves into one of those outcomes.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import SocialAccount
from config import db
from config.errors import ApplicationError, Conflict, InvalidRequest, Unprocessable
from publishing import (
    actions,
    approval,
    duplicate_content,
    handover,
    idempotency,
    outbox,
    queue,
    removals,
    threads,
    validation,
)
from publishing.edits import apply_retry_edits, patched_targets
from publishing.inputs import Caller, TargetInput, with_thread
from publishing.models import (
    QUEUE_MODE,
    ApprovalStatus,
    DeliveryJob,
    Id,
    IdempotencyKey,
    Publish,
    PublishMode,
    PublishStatus,
    ScheduledRelease,
    Target,
    TargetState,
    ThreadItem,
    ThreadItemKind,
)
from publishing.selectors import as_written
from publishing.status import derive_status, event_data, locked, settle
from publishing.transitions import move_targets
from teams.models import Team
from teams.services import quota_consume
from webhooks.services import emit

# --- helpers -----------------------------------------------------------------------------------


def _check_future(scheduled_at: dt.datetime | None, *, now: dt.datetime) -> dt.datetime:
    if scheduled_at is None:
        raise InvalidRequest(
            "scheduled_at is required.", code="SCHEDULED_AT_REQUIRED", details={"field": "scheduled_at"}
        )
    if scheduled_at <= now:
        raise InvalidRequest(
            "scheduled_at must be in the future.", code="SCHEDULED_AT_NOT_FUTURE", details={"field": "scheduled_at"}
        )
    return scheduled_at


# --- create, update, discard ----------------------------------------------------------------


@dataclass(frozen=True)
class CreateRequest:
    """One publish to create, as `publish_create` and `publish_create_many` take it.
    `publish_mode` may be `queue`: scheduled at the first free posting-schedule slot."""

    content: str
    media_ids: list[str]
    targets: Sequence[TargetInput]
    publish_mode: str
    scheduled_at: dt.datetime | None = None


def publish_create(
    *,
    team: Team,
    caller: Caller,
    content: str,
    media_ids: list[str],
    targets: Sequence[TargetInput],
    publish_mode: str,
    scheduled_at: dt.datetime | None,
    idempotency_key: IdempotencyKey | None = None,
) -> Publish:
    """A new publish: immediate ones are queued, scheduled ones wait for their time (a queue
    create's time is the first free slot of its accounts' posting schedules), drafts wait for
    confirm. A gated request (approval required, caller not owner/admin) is not released
    until approved. The publishing quota is consumed here unless it is a draft. The request's
    Idempotency-Key, when it has one, points at the publish from the same commit. A text one
    of the accounts got within the team's window is a 409 when the team blocks duplicates,
    else in the publish's `duplicate_warnings`."""
    request = CreateRequest(content, media_ids, targets, publish_mode, scheduled_at)
    with transaction.atomic(durable=True):
        publish, jobs = _new_publish(team, caller, request, now=timezone.now())
        if idempotency_key is not None:
            idempotency.idempotency_created(record=idempotency_key, publish=publish)
        if publish.confirmed:
            # Last: the usage row stays locked until commit, so concurrent creates of one team
            # wait for each other only this long.
            quota_consume(team=team)
    return handover.handed_over(publish, jobs)


class RowsInvalid(InvalidRequest):
    """Rows of a batch that a create would refuse, by index: nothing of the batch was created."""

    def __init__(self, refusals: dict[int, ApplicationError]) -> None:
        super().__init__("Some rows cannot be created; nothing was created.", code="INVALID_ROWS")
        self.refusals = refusals


def publish_create_many(
    *,
    team: Team,
    caller: Caller,
    requests: Sequence[CreateRequest],
    finish: Callable[[list[Publish]], None] | None = None,
) -> list[Publish]:
    """Create every request, in order, in one transaction, or none: RowsInvalid names each
    row the create refuses (its first problem), and a batch over the month's quota is
    refused whole. Later rows see earlier ones (a queued row takes the slot after the last
    row's). `finish`, when given, runs with the publishes inside the transaction (the batch's
    Idempotency-Key records its answer there). The jobs are handed to the broker after the
    commit; those it refuses are left to the relay, which sends them shortly."""
    publishes: list[Publish] = []
    jobs: list[DeliveryJob] = []
    refusals: dict[int, ApplicationError] = {}
    with transaction.atomic(durable=True):
        now = timezone.now()
        texts = _batch_texts(requests)
        known = duplicate_content.Known(team=team, texts=texts)
        accounts = validation.team_accounts(team, (account for account, _ in texts))
        for index, request in enumerate(requests):
            try:
                publish, released = _new_publish(team, caller, request, now=now, known=known, named=accounts)
            except ApplicationError as exc:
                refusals[index] = exc
                continue
            publishes.append(publish)
            jobs.extend(released)
        if refusals:
            raise RowsInvalid(refusals)
        counted = sum(1 for publish in publishes if publish.confirmed)
        if counted:
            quota_consume(team=team, posts=counted)
        if finish is not None:
            finish(publishes)
    handover.send_after_commit(jobs, quietly=True)  # any the broker refuses, the relay sends
    return publishes


def _batch_texts(requests: Sequence[CreateRequest]) -> list[tuple[str, str | None]]:
    """(account id, text) of every target of a batch whose account id is one."""
    texts: list[tuple[str, str | None]] = []
    for request in requests:
        for target in request.targets:
            try:
                account = str(uuid.UUID(str(target.account_id)))
            except ValueError:
                continue  # the row's own check refuses it
            texts.append((account, request.content if target.content is None else target.content))
    return texts


def _new_publish(
    team: Team,
    caller: Caller,
    request: CreateRequest,
    *,
    now: dt.datetime,
    known: duplicate_content.Known | None = None,
    named: Mapping[str, SocialAccount] | None = None,
) -> tuple[Publish, list[DeliveryJob]]:
    """Check and write one new publish inside the caller's transaction, without counting it;
    its jobs, to hand over after the commit. A batch gives what it read once for all its rows:
    `known`, its earlier targets for the duplicate check, and `named`, the team's accounts
    it names (each is read from the database when None)."""
    publish_mode, scheduled_at, targets = request.publish_mode, request.scheduled_at, request.targets
    require_targets(targets)
    check_schedule(publish_mode=publish_mode, scheduled_at=scheduled_at, now=now)
    accounts = validation.accounts_by_id(team=team, account_ids=[t.account_id for t in targets], known=named)
    queued = publish_mode == QUEUE_MODE
    if queued:
        publish_mode = PublishMode.SCHEDULED
    publish = Publish(
        team=team,
        created_by=caller.user,
        created_by_key=caller.key,
        content=request.content,
        media_ids=request.media_ids,
        publish_mode=publish_mode,
        scheduled_at=scheduled_at,
        status=PublishStatus.DRAFT,
        confirmed=publish_mode != PublishMode.DRAFT,
    )
    gated = approval.waits_for_approval(team=team, caller=caller, publish_mode=publish_mode)
    released = publish_mode == PublishMode.IMMEDIATE and not gated
    initial = _initial_state(publish_mode, released=released)
    rows = [
        with_thread(
            Target(
                publish=publish,
                account=accounts[t.account_id],
                platform=accounts[t.account_id].platform,
                content=t.content,
                media_ids=t.media_ids,
                platform_settings=t.platform_settings or {},
                state=initial,
            ),
            t,
        )
        for t in targets
    ]
    validation.check_targets(publish, rows, accounts=accounts, unsupported_media_is_422=False)
    if queued:
        publish.scheduled_at = queue.take_slot(publish=publish, accounts=[row.account for row in rows], now=now)
    for row in rows:
        row.rekey()
    publish.duplicate_warnings = duplicate_content.check(team=team, publish=publish, rows=rows, now=now, known=known)
    jobs = outbox.queue(rows, now=now, publish_media=request.media_ids) if released else []
    for job in jobs:  # handed over right after the commit, so written marked (handover.send_jobs)
        job.enqueued_at = now
    # Everything is decided in memory first, so each row is written once.
    publish.status = derive_status([t.state for t in rows])
    if gated:
        publish.approval_status = ApprovalStatus.PENDING
    if jobs:
        publish.released_at = now
    release = []
    if publish_mode == PublishMode.SCHEDULED:
        assert publish.scheduled_at is not None  # noqa: S101 - checked above, or the slot taken
        release = [ScheduledRelease(publish=publish, due_at=publish.scheduled_at)]
    for row in rows:
        row.comment = threads.comment_item(row)
    items = [item for row in rows for item in (*(row.thread or ()), *([row.comment] if row.comment else []))]
    db.insert([publish], rows, items, jobs, release)  # one statement
    if known is not None:
        known.add(publish, rows)
    if gated:
        emit(team=team, event_type="post.pending_approval", data=event_data(publish, targets=rows))
    as_written(publish, rows)  # it answers for its targets without reading them back
    return publish, jobs


def require_targets(targets: Sequence[TargetInput]) -> None:
    if not targets:
        raise InvalidRequest("At least one target is required.", code="TARGETS_REQUIRED", details={"field": "targets"})


def check_schedule(*, publish_mode: str, scheduled_at: dt.datetime | None, now: dt.datetime) -> None:
    """A create's rule for its time: a scheduled publish (or a draft given a time) needs a
    future one; an immediate publish takes none."""
    if publish_mode == PublishMode.SCHEDULED or (scheduled_at is not None and publish_mode == PublishMode.DRAFT):
        _check_future(scheduled_at, now=now)
    elif scheduled_at is not None:
        raise InvalidRequest(
            "scheduled_at goes with publish_mode scheduled or draft (a queued publish takes its slot's time).",
            code="SCHEDULED_AT_NOT_ALLOWED",
        )


def _initial_state(publish_mode: str, *, released: bool) -> TargetState:
    """Where a new target starts (one of transitions.TARGET_INITIAL)."""
    if released:
        return TargetState.QUEUED
    return TargetState.SCHEDULED if publish_mode == PublishMode.SCHEDULED else TargetState.DRAFT


def _save_thread(target: Target) -> None:
    """Store the thread an edit gave the target in place of its stored one, and the first
    comment its settings ask for now (only a target not published has them to edit: its items
    were never sent)."""
    if target.thread is not None:
        ThreadItem.objects.filter(target=target, kind=ThreadItemKind.REPLY).delete()
        ThreadItem.objects.bulk_create(target.thread)
    threads.save_comment(target)


_UPDATABLE = frozenset({"content", "media_ids", "targets", "scheduled_at"})
# What an edit writes of a stored target: what it sends, never its state.
_EDITED_FIELDS = ["content", "media_ids", "platform_settings", "text_key", "updated_at"]


@transaction.atomic
def publish_update(*, team: Team, publish_id: Id, changes: Mapping[str, Any], caller: Caller) -> Publish:
    """Edit an unconfirmed draft or a scheduled publish not yet sent, in place. `changes` holds
    only the fields supplied: content, media_ids, targets (the complete new set, a list of
    TargetInput), scheduled_at (drafts only; a scheduled publish keeps its schedule). A
    member's edit of a submitted publish in a gated team waits for approval again."""
    publish = locked(team, publish_id)
    if not actions.is_editable(publish):
        raise Unprocessable(f"A {publish.status} publish cannot be edited.", code="NOT_EDITABLE")
    if not set(changes) & _UPDATABLE:
        raise InvalidRequest("Give at least one of: " + ", ".join(sorted(_UPDATABLE)) + ".", code="NO_CHANGES")
    if "scheduled_at" in changes:
        if publish.status == PublishStatus.SCHEDULED:
            raise InvalidRequest(
                "Change the time of a scheduled publish with POST /publishes/{id}/reschedule.",
                code="USE_RESCHEDULE",
            )
        if changes["scheduled_at"] is not None:
            _check_future(changes["scheduled_at"], now=timezone.now())
        publish.scheduled_at = changes["scheduled_at"]
    if "content" in changes:
        publish.content = changes["content"]
    media_changed = "media_ids" in changes
    if media_changed:
        publish.media_ids = changes["media_ids"]
    existing = {str(t.account_id): t for t in publish.targets.all()}
    wanted: Sequence[TargetInput] = changes.get("targets") or [TargetInput(account_id=a) for a in existing]
    if "targets" in changes and not changes["targets"]:
        raise InvalidRequest("At least one target is required.", code="TARGETS_REQUIRED")
    accounts = validation.accounts_by_id(team=team, account_ids=[t.account_id for t in wanted])
    rows = patched_targets(publish, existing, wanted, accounts=accounts, media_changed=media_changed)
    validation.check_targets(publish, rows, accounts=accounts, unsupported_media_is_422=True)
    keep = {t.account_id for t in rows}
    publish.targets.exclude(account_id__in=keep).delete()
    for target in rows:  # a new one is inserted; a kept one keeps its state
        target.rekey()
        target.save(update_fields=None if target._state.adding else _EDITED_FIELDS)
        _save_thread(target)
    if publish.status == PublishStatus.SCHEDULED:
        assert publish.scheduled_at is not None  # noqa: S101 - a scheduled publish has its time
        outbox.schedule(publish, publish.scheduled_at)
    approval.regate(publish, caller)
    settle(publish)
    return publish


@transaction.atomic
def publish_edit(
    *, team: Team, publish_id: Id, changes: Mapping[str, Any], caller: Caller, scheduled_at: dt.datetime | None
) -> Publish:
    """The dashboard's edit of a whole post, in one transaction: `changes` as `publish_update`
    takes them, without a time; a draft takes `scheduled_at` with them (None clears it), a
    scheduled publish moves to it as `publish_reschedule` moves it. A refused time leaves the
    other changes unsaved too."""
    scheduled = locked(team, publish_id).status == PublishStatus.SCHEDULED
    if not scheduled:
        changes = {**changes, "scheduled_at": scheduled_at}
    publish = publish_update(team=team, publish_id=publish_id, changes=changes, caller=caller)
    if scheduled and scheduled_at != publish.scheduled_at:
        publish = publish_reschedule(team=team, publish_id=publish_id, scheduled_at=scheduled_at, caller=caller)
    return publish


@transaction.atomic
def publish_discard(*, team: Team, publish_id: Id) -> str:
    """Delete an unconfirmed draft permanently. Returns its id."""
    publish = locked(team, publish_id)
    if not actions.is_open_draft(publish):
        raise Unprocessable(
            f"Only an editable draft can be discarded; this publish is {publish.status}"
            + (" and submitted" if publish.confirmed and publish.status == PublishStatus.DRAFT else "")
            + ".",
            code="NOT_EDITABLE",
        )
    publish_id = str(publish.pk)
    publish.delete()
    return publish_id


# --- confirm, schedule -----------------------------------------------------------------------


def publish_confirm(*, team: Team, publish_id: Id, caller: Caller, scheduled_at: dt.datetime | None = None) -> Publish:
    """Submit a draft: queued now, or scheduled when a time is given or already set. A
    repeated confirm of a publish whose jobs the broker refused changes nothing but hands the
    same jobs over again, so a 503 on confirm is safe to retry. Any other confirm of a
    confirmed publish, a concurrent one included, is a 422."""
    with transaction.atomic(durable=True):
        publish = locked(team, publish_id)
        jobs = _confirmed(team, publish, caller, scheduled_at)
    return handover.handed_over(handover.committed(publish), jobs)


def _confirmed(team: Team, publish: Publish, caller: Caller, scheduled_at: dt.datetime | None) -> list[DeliveryJob]:
    if publish.confirmed and publish.status == PublishStatus.PUBLISHING and outbox.refused_by_broker(publish):
        return outbox.unsent(publish)
    if not actions.is_open_draft(publish):
        raise Unprocessable("Only an unconfirmed draft can be confirmed.", code="NOT_A_DRAFT")
    now = timezone.now()
    due = scheduled_at or publish.scheduled_at
    if due is not None:
        _check_future(due, now=now)
    targets = list(publish.targets.select_related("account"))
    accounts = validation.accounts_by_id(team=team, account_ids=[str(t.account_id) for t in targets])
    validation.check_targets(publish, targets, accounts=accounts, unsupported_media_is_422=False)
    quota_consume(team=team)
    publish.confirmed = True
    if due is not None:
        publish.scheduled_at, publish.publish_mode = due, PublishMode.SCHEDULED
        outbox.schedule(publish, due)
    jobs = []
    if approval.gated(team, caller):
        approval.ask_approval(publish)
    elif due is None:
        jobs = outbox.release(publish, targets, now=now)
    settle(publish, now=now)
    return jobs


def _scheduled_waiting(team: Team, publish_id: Id) -> Publish:
    publish = locked(team, publish_id)
    if not outbox.is_waiting(publish):
        raise Unprocessable("This publish is no longer waiting in the schedule queue.", code="NOT_SCHEDULED")
    return publish


@transaction.atomic
def publish_reschedule(*, team: Team, publish_id: Id, scheduled_at: dt.datetime | None, caller: Caller) -> Publish:
    """Move a scheduled publish not yet sent to a new future time. Moved by a member of a team
    that requires approval, it waits for approval again (its time is part of what was approved)."""
    publish = _scheduled_waiting(team, publish_id)
    moved = _check_future(scheduled_at, now=timezone.now())
    if moved != publish.scheduled_at:
        publish.scheduled_at = moved
        queue.free_slots(publish)
        outbox.schedule(publish, moved)
        approval.regate(publish, caller)
    settle(publish)
    return publish


@transaction.atomic
def publish_unschedule(*, team: Team, publish_id: Id) -> Publish:
    """Back to an unconfirmed draft with the same id, content, media and targets; its time is
    cleared, so confirm publishes at once unless a new time is given. Its approval, pending or
    given, is withdrawn with the submission: confirming again decides it afresh."""
    publish = _scheduled_waiting(team, publish_id)
    ScheduledRelease.objects.filter(publish=publish).delete()
    queue.free_slots(publish)
    move_targets(publish.targets.all(), TargetState.DRAFT, updated_at=timezone.now())
    publish.publish_mode, publish.scheduled_at, publish.confirmed = PublishMode.DRAFT, None, False
    publish.approval_status, publish.approved_by, publish.approved_at = None, None, None
    settle(publish)
    return publish


# --- retry -------------------------------------------------------------------------------------


def publish_retry(*, team: Team, publish_id: Id, caller: Caller, edits: Sequence[Mapping[str, Any]] = ()) -> Publish:
    """Send again the targets that failed with evidence, optionally edited first. Each edit
    names its target by `target_id` or `account_id`. Published targets and those whose
    outcome is unknown are never re-sent. In a team that requires approval, a member's edits
    are new content: the publish waits for approval again, and approving it re-sends them."""
    with transaction.atomic(durable=True):
        publish = locked(team, publish_id)
        jobs = _retried(team, publish, caller, edits)
    return handover.handed_over(handover.committed(publish), jobs)


def _retried(team: Team, publish: Publish, caller: Caller, edits: Sequence[Mapping[str, Any]]) -> list[DeliveryJob]:
    targets = list(publish.targets.select_related("account"))
    comments = threads.failed_comments(targets)
    if publish.status not in actions.RETRYABLE_STATUSES and not comments:
        raise InvalidRequest(
            f"Only a failed or partial publish can be retried; this one is {publish.status}.", code="NOT_RETRYABLE"
        )
    if publish.approval_status in actions.UNRETRYABLE_APPROVALS:
        raise InvalidRequest(
            f"This publish is {publish.approval_status.replace('_', ' ')}: it cannot be retried.",
            code="NOT_RETRYABLE",
        )
    failed = [t for t in targets if t.state == TargetState.FAILED]
    edited = apply_retry_edits(publish, targets, edits)
    for target in failed:
        target.rekey()
    accounts = validation.accounts_by_id(team=team, account_ids=[str(t.account_id) for t in failed])
    validation.check_targets(publish, failed, accounts=accounts, unsupported_media_is_422=True)
    for target in failed:
        _save_thread(target)
    jobs = []
    if edited and approval.gated(team, caller):
        for target in failed:
            target.save(update_fields=_EDITED_FIELDS)
        approval.ask_approval(publish)
    else:
        jobs = outbox.release(publish, failed, now=timezone.now())
    if comments:
        jobs += threads.comments_retried(comments, now=timezone.now())
    settle(publish)
    return jobs


def publish_unpublish(*, team: Team, publish_id: Id, target_ids: Sequence[str] | None = None) -> Publish:
    """Take the publish's posts down on their networks: each published target named (all of
    them when none are), not removed yet, has its post deleted once (`publishing.removals`);
    a network without a delete call gets its reason as the target's `removal_error`. 400 for
    a target id not of this publish; 409 NOTHING_PUBLISHED when none of them is published."""
    with transaction.atomic(durable=True):
        publish = locked(team, publish_id)
        targets = list(publish.targets.all())
        if target_ids is not None:
            unknown = sorted({str(i) for i in target_ids} - {str(t.pk) for t in targets})
            if unknown:
                raise InvalidRequest(
                    "These are not targets of this publish: target_ids takes the ids of its targets[].id.",
                    code="UNKNOWN_TARGET",
                    details={"field": "target_ids", "target_ids": unknown},
                )
            named = {str(i) for i in target_ids}
            targets = [t for t in targets if str(t.pk) in named]
        chosen = [t for t in targets if removals.removable(t)]
        if not chosen:
            raise Conflict(
                "Nothing of this publish is on a network to take down: no target named is published, "
                "or each was taken down already.",
                code="NOTHING_PUBLISHED",
            )
        jobs = removals.unpublish(chosen, now=timezone.now())
    return handover.handed_over(handover.committed(publish), jobs)
