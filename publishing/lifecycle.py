"""Every transition of a publish (spec §3), one function each.

Each function locks the publish row, checks its precondition, writes, records the webhook
event in the same transaction and returns the publish. Views, tasks, admin actions and the
dashboard call only these. Releasing work writes delivery jobs (the outbox) in the same
transaction; `publishing.dispatch.send_pending()` hands them to the broker after commit.

A publish's status is never set by hand: `derive_status()` computes it from the targets'
states after every change (DESIGN §4.1), and `_settle()` emits `post.published` or
`post.failed` when, and only when, it moves into one of those outcomes.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import SocialAccount
from accounts.platforms.base import Outcome, OutcomeKind
from config import db
from config.errors import InvalidRequest, NotFound, Unprocessable
from config.ids import new_id
from publishing import hotpath, validation
from publishing.models import (
    ApprovalStatus,
    AttemptState,
    DeliveryAttempt,
    DeliveryJob,
    Id,
    JobState,
    Publish,
    PublishMode,
    PublishStatus,
    ScheduledRelease,
    Target,
    TargetState,
)
from teams.models import ApiKey, Team
from teams.services import quota_consume
from webhooks.services import emit

UNRELEASED = frozenset({TargetState.DRAFT, TargetState.SCHEDULED})
IN_FLIGHT = frozenset({TargetState.QUEUED, TargetState.SENDING})
OUTCOME_EVENTS = {
    PublishStatus.PUBLISHED: "post.published",
    PublishStatus.PARTIAL: "post.published",
    PublishStatus.FAILED: "post.failed",
}
# A not-sent error (refused connection, 429 before any write) is retried within the same
# attempt this many times in all, with growing pauses, before the target fails with it.
MAX_TRIES = 5
# A job claimed this many times without an answer (workers lost before sending) fails.
MAX_RUNS = MAX_TRIES + 3
# Reconciliation of processing and unknown targets: pause before the first check, the cap
# of the growing pause, and when to stop asking (the target then stays visibly unknown).
FIRST_CHECK = dt.timedelta(seconds=5)
MAX_CHECK_PAUSE = dt.timedelta(minutes=10)
MAX_CHECKS = 200
UNKNOWN_ABSENT_AFTER = dt.timedelta(minutes=10)
REASON_MAX_LENGTH = 2000


@dataclass
class Caller:
    """Who asks for a transition: the user, the key (None in the dashboard and admin) and
    whether they may approve in the publish's team (owner or admin)."""

    user: User | None
    key: ApiKey | None = None
    can_approve: bool = False


@dataclass(frozen=True)
class TargetInput:
    """One target of a request. Fields left None are inherited (create) or kept (PATCH)."""

    account_id: str
    content: str | None = None
    media_ids: list[str] | None = None
    platform_settings: dict[str, Any] | None = None
    fields: frozenset[str] = field(default_factory=frozenset)  # which of the three were supplied


# --- status ------------------------------------------------------------------------------------


def derive_status(states: Collection[str]) -> PublishStatus:
    """The publish status from its targets' states, in the order of DESIGN §4.1."""
    states = set(states)
    if states <= UNRELEASED:
        return PublishStatus.SCHEDULED if TargetState.SCHEDULED in states else PublishStatus.DRAFT
    if states & (IN_FLIGHT | UNRELEASED):
        return PublishStatus.PUBLISHING
    if TargetState.FAILED in states:
        return PublishStatus.PARTIAL if TargetState.PUBLISHED in states else PublishStatus.FAILED
    if states & {TargetState.PROCESSING, TargetState.UNKNOWN}:
        return PublishStatus.PROCESSING
    return PublishStatus.PUBLISHED


def event_data(publish: Publish, *, targets: Sequence[Target] | None = None, **extra: Any) -> dict[str, Any]:
    """An event's `data`: the publish and its targets (read unless given)."""
    rows = [
        {
            "id": str(t.pk),
            "account_id": str(t.account_id),
            "platform": t.platform,
            "status": t.status,
            "platform_post_id": t.platform_post_id or None,
            "platform_post_url": t.platform_post_url or None,
            "error_code": t.error_code or None,
            "error_message": t.error_message or None,
        }
        for t in (publish.targets.all() if targets is None else targets)
    ]
    return {
        "publish_id": str(publish.pk),
        "status": publish.status,
        "approval_status": publish.approval_status,
        "targets": rows,
        **extra,
    }


def _settle(publish: Publish, *, now: dt.datetime | None = None) -> None:
    """Recompute the status; on a move into published, partial or failed, emit its event."""
    new = derive_status(publish.targets.values_list("state", flat=True))
    if new == publish.status:
        publish.save()
        return
    publish.status = new
    if new in OUTCOME_EVENTS:
        publish.completed_at = now or timezone.now()
    publish.save()
    if new in OUTCOME_EVENTS:
        emit(team=publish.team, event_type=OUTCOME_EVENTS[new], data=event_data(publish))


# --- helpers -----------------------------------------------------------------------------------


def _locked(team: Team | None, publish_id: Id) -> Publish:
    query = Publish.objects.select_for_update().select_related("team", "team__plan")
    if team is not None:
        query = query.filter(team=team)
    publish = query.filter(pk=publish_id).first()
    if publish is None:
        raise NotFound("No such publish.", code="PUBLISH_NOT_FOUND")
    return publish


def _has_release(publish: Publish) -> bool:
    return ScheduledRelease.objects.filter(publish=publish).exists()


def _is_editable(publish: Publish) -> bool:
    if publish.status == PublishStatus.DRAFT:
        return not publish.confirmed
    return publish.status == PublishStatus.SCHEDULED and _has_release(publish)


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


def _gated(team: Team, caller: Caller) -> bool:
    return team.approval_required and not caller.can_approve


def _check_targets(
    publish: Publish,
    targets: Sequence[Target],
    *,
    accounts: Mapping[str, SocialAccount],
    unsupported_media_is_422: bool,
) -> None:
    """Validate each target's effective post with its platform client."""
    wanted = list(publish.media_ids) + [i for t in targets for i in (t.media_ids or [])]
    uploads = validation.uploads_by_id(team=publish.team, media_ids=wanted)
    found = []
    for index, target in enumerate(targets):
        account = accounts[str(target.account_id)]
        post = validation.effective_post(
            account=account,
            text=publish.content if target.content is None else target.content,
            media_ids=publish.media_ids if target.media_ids is None else target.media_ids,
            settings=target.platform_settings,
            uploads=uploads,
        )
        found.append((index, account, validation.problems_of(account, post)))
    validation.raise_for_problems(found, unsupported_media_is_422=unsupported_media_is_422)


# What releasing writes of a target: its queued state, and what it will send (a retry may
# have edited that in memory just before).
_QUEUED_FIELDS = [
    "attempt_count",
    "state",
    "error_code",
    "error_message",
    "next_check_at",
    "updated_at",
    "content",
    "media_ids",
    "platform_settings",
]


def _queue(targets: Sequence[Target], *, now: dt.datetime) -> list[DeliveryJob]:
    """Move `targets` (in memory) to queued with a new attempt number each; their outbox jobs,
    not yet saved."""
    jobs = []
    for target in targets:
        target.attempt_count += 1
        target.state = TargetState.QUEUED
        target.error_code = target.error_message = ""
        target.next_check_at = None
        target.updated_at = now
        jobs.append(
            DeliveryJob(
                target=target,
                number=target.attempt_count,
                dispatch_id=f"deliver:{target.pk}:{target.attempt_count}",
                not_before=now,
            )
        )
    return jobs


def _release(publish: Publish, targets: Sequence[Target], *, now: dt.datetime) -> None:
    """Queue `targets` for sending: a new attempt number each and one outbox job per target,
    kept on `publish.written_jobs` for the hand-over after commit."""
    ScheduledRelease.objects.filter(publish=publish).delete()
    jobs = _queue(targets, now=now)
    Target.objects.bulk_update(targets, _QUEUED_FIELDS)
    publish.written_jobs = DeliveryJob.objects.bulk_create(jobs)
    publish.released_at = publish.released_at or now
    publish.completed_at = None


def _schedule(publish: Publish, due_at: dt.datetime) -> None:
    """Replace the publish's release row: the old job is removed before the new one exists."""
    ScheduledRelease.objects.filter(publish=publish).delete()
    ScheduledRelease.objects.create(publish=publish, due_at=due_at)
    publish.targets.update(state=TargetState.SCHEDULED, updated_at=timezone.now())


def _ask_approval(publish: Publish) -> None:
    publish.approval_status = ApprovalStatus.PENDING
    publish.status = derive_status(publish.targets.values_list("state", flat=True))
    emit(team=publish.team, event_type="post.pending_approval", data=event_data(publish))


# --- create, update, discard ----------------------------------------------------------------


@transaction.atomic
def publish_create(
    *,
    team: Team,
    caller: Caller,
    content: str,
    media_ids: list[str],
    targets: Sequence[TargetInput],
    publish_mode: str,
    scheduled_at: dt.datetime | None,
) -> Publish:
    """A new publish: immediate ones are queued, scheduled ones wait for their time, drafts
    wait for confirm. A gated request (approval required, caller not owner/admin) is not
    released until approved. The publishing quota is consumed here unless it is a draft."""
    now = timezone.now()
    if not targets:
        raise InvalidRequest("At least one target is required.", code="TARGETS_REQUIRED", details={"field": "targets"})
    if publish_mode == PublishMode.SCHEDULED or (scheduled_at is not None and publish_mode == PublishMode.DRAFT):
        _check_future(scheduled_at, now=now)
    elif scheduled_at is not None:
        raise InvalidRequest("scheduled_at goes with publish_mode scheduled or draft.", code="SCHEDULED_AT_NOT_ALLOWED")
    accounts = validation.accounts_by_id(team=team, account_ids=[t.account_id for t in targets])
    publish = Publish(
        team=team,
        created_by=caller.user,
        created_by_key=caller.key,
        content=content,
        media_ids=media_ids,
        publish_mode=publish_mode,
        scheduled_at=scheduled_at,
        status=PublishStatus.DRAFT,
        confirmed=publish_mode != PublishMode.DRAFT,
    )
    rows = [
        Target(
            publish=publish,
            account=accounts[t.account_id],
            platform=accounts[t.account_id].platform,
            content=t.content,
            media_ids=t.media_ids,
            platform_settings=t.platform_settings or {},
            state=TargetState.SCHEDULED if publish_mode == PublishMode.SCHEDULED else TargetState.DRAFT,
        )
        for t in targets
    ]
    _check_targets(publish, rows, accounts=accounts, unsupported_media_is_422=False)
    gated = publish.confirmed and _gated(team, caller)
    jobs = _queue(rows, now=now) if publish_mode == PublishMode.IMMEDIATE and not gated else []
    for job in jobs:  # handed over right after commit, so written marked (dispatch.send_jobs)
        job.enqueued_at = now
    # Everything is decided in memory first, so each row is written once.
    publish.status = derive_status([t.state for t in rows])
    if gated:
        publish.approval_status = ApprovalStatus.PENDING
    if jobs:
        publish.released_at = now
    release = []
    if publish_mode == PublishMode.SCHEDULED:
        assert scheduled_at is not None  # noqa: S101 - checked above
        release = [ScheduledRelease(publish=publish, due_at=scheduled_at)]
    db.insert([publish], rows, jobs, release)  # one statement
    publish.written_jobs = jobs
    if gated:
        emit(team=team, event_type="post.pending_approval", data=event_data(publish, targets=rows))
    if publish.confirmed:
        # Last: the usage row stays locked until commit, so concurrent creates of one team
        # wait for each other only this long.
        quota_consume(team=team)
    _keep_written(publish, rows)
    return publish


def _keep_written(publish: Publish, targets: list[Target]) -> None:
    """Let the new publish answer for its targets (and their attempts: none yet) without
    reading them back. The targets stop pointing back at the publish: with the link both
    ways the whole graph (publish, targets, jobs) would wait for the cyclic garbage
    collector instead of being freed with the request."""
    publish._prefetched_objects_cache = {"targets": targets}  # type: ignore[attr-defined]
    for target in targets:
        target._prefetched_objects_cache = {"attempts": []}  # type: ignore[attr-defined]
        target._state.fields_cache.pop("publish", None)


_UPDATABLE = frozenset({"content", "media_ids", "targets", "scheduled_at"})


@transaction.atomic
def publish_update(*, team: Team, publish_id: Id, changes: Mapping[str, Any], caller: Caller | None = None) -> Publish:
    """Edit an unconfirmed draft or a scheduled publish not yet sent, in place. `changes` holds
    only the fields supplied: content, media_ids, targets (the complete new set, a list of
    TargetInput), scheduled_at (drafts only; a scheduled publish keeps its schedule). A
    member's edit of an approved publish in a gated team needs approval again."""
    publish = _locked(team, publish_id)
    if not _is_editable(publish):
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
    rows = []
    for entry in wanted:
        target = existing.get(entry.account_id) or Target(
            publish=publish,
            account=accounts[entry.account_id],
            platform=accounts[entry.account_id].platform,
            state=TargetState.SCHEDULED if publish.status == PublishStatus.SCHEDULED else TargetState.DRAFT,
        )
        if "content" in entry.fields:
            target.content = entry.content
        if "media_ids" in entry.fields:
            target.media_ids = entry.media_ids
        elif media_changed:
            target.media_ids = None  # the new top-level media replaces it
        if "platform_settings" in entry.fields:
            target.platform_settings = entry.platform_settings or {}
        rows.append(target)
    _check_targets(publish, rows, accounts=accounts, unsupported_media_is_422=True)
    keep = {t.account_id for t in rows}
    publish.targets.exclude(account_id__in=keep).delete()
    for target in rows:
        target.save()
    if publish.status == PublishStatus.SCHEDULED:
        assert publish.scheduled_at is not None  # noqa: S101 - a scheduled publish has its time
        _schedule(publish, publish.scheduled_at)
    approved = publish.approval_status == ApprovalStatus.APPROVED
    if approved and publish.confirmed and caller is not None and _gated(team, caller):
        publish.approved_by, publish.approved_at = None, None
        _ask_approval(publish)
    _settle(publish)
    return publish


@transaction.atomic
def publish_discard(*, team: Team, publish_id: Id) -> str:
    """Delete an unconfirmed draft permanently. Returns its id."""
    publish = _locked(team, publish_id)
    if publish.status != PublishStatus.DRAFT or publish.confirmed:
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


def _refused_by_broker(publish: Publish) -> bool:
    """True when the hand-over of the publish's jobs failed (a 503) and none of them has been
    taken since: the one case in which confirming a confirmed publish is answered again."""
    return DeliveryJob.objects.filter(
        target__publish=publish, state=JobState.PENDING, enqueued_at__isnull=True, runs=0, refused_at__isnull=False
    ).exists()


@transaction.atomic
def publish_confirm(*, team: Team, publish_id: Id, caller: Caller, scheduled_at: dt.datetime | None = None) -> Publish:
    """Submit a draft: queued now, or scheduled when a time is given or already set. A
    repeated confirm of a publish whose jobs the broker refused changes nothing (the caller
    hands the same jobs over again), so a 503 on confirm is safe to retry. Any other confirm
    of a confirmed publish, a concurrent one included, is a 422."""
    publish = _locked(team, publish_id)
    if publish.confirmed and publish.status == PublishStatus.PUBLISHING and _refused_by_broker(publish):
        return publish
    if publish.status != PublishStatus.DRAFT or publish.confirmed:
        raise Unprocessable("Only an unconfirmed draft can be confirmed.", code="NOT_A_DRAFT")
    now = timezone.now()
    due = scheduled_at or publish.scheduled_at
    if due is not None:
        _check_future(due, now=now)
    targets = list(publish.targets.select_related("account"))
    accounts = validation.accounts_by_id(team=team, account_ids=[str(t.account_id) for t in targets])
    _check_targets(publish, targets, accounts=accounts, unsupported_media_is_422=False)
    quota_consume(team=team)
    publish.confirmed = True
    if due is not None:
        publish.scheduled_at, publish.publish_mode = due, PublishMode.SCHEDULED
        _schedule(publish, due)
    if _gated(team, caller):
        _ask_approval(publish)
    elif due is None:
        _release(publish, targets, now=now)
    _settle(publish, now=now)
    return publish


def _scheduled_waiting(team: Team, publish_id: Id) -> Publish:
    publish = _locked(team, publish_id)
    if publish.status != PublishStatus.SCHEDULED or not _has_release(publish):
        raise Unprocessable("This publish is no longer waiting in the schedule queue.", code="NOT_SCHEDULED")
    return publish


@transaction.atomic
def publish_reschedule(*, team: Team, publish_id: Id, scheduled_at: dt.datetime | None) -> Publish:
    publish = _scheduled_waiting(team, publish_id)
    publish.scheduled_at = _check_future(scheduled_at, now=timezone.now())
    _schedule(publish, publish.scheduled_at)
    _settle(publish)
    return publish


@transaction.atomic
def publish_unschedule(*, team: Team, publish_id: Id) -> Publish:
    """Back to an unconfirmed draft with the same id, content, media and targets; its time is
    cleared, so confirm publishes at once unless a new time is given. Its approval, pending or
    given, is withdrawn with the submission: confirming again decides it afresh."""
    publish = _scheduled_waiting(team, publish_id)
    ScheduledRelease.objects.filter(publish=publish).delete()
    publish.targets.update(state=TargetState.DRAFT, updated_at=timezone.now())
    publish.publish_mode, publish.scheduled_at, publish.confirmed = PublishMode.DRAFT, None, False
    publish.approval_status, publish.approved_by, publish.approved_at = None, None, None
    _settle(publish)
    return publish


# --- approval ----------------------------------------------------------------------------------


@transaction.atomic
def publish_approve(*, team: Team, publish_id: Id, caller: Caller) -> tuple[Publish, bool]:
    """Approve a pending publish; (publish, already_approved). An approved immediate publish
    is released now, a scheduled one at its time. Approving again changes nothing; the
    caller re-sends only jobs that never reached the broker."""
    if not caller.can_approve:
        raise NotFound("No such publish.", code="PUBLISH_NOT_FOUND")
    publish = _locked(team, publish_id)
    if publish.approval_status == ApprovalStatus.APPROVED:
        return publish, True
    if publish.approval_status != ApprovalStatus.PENDING:
        raise InvalidRequest("This publish is not waiting for approval.", code="NOT_PENDING_APPROVAL")
    now = timezone.now()
    publish.approval_status = ApprovalStatus.APPROVED
    publish.approved_by, publish.approved_at = caller.user, now
    if publish.confirmed and not _has_release(publish):
        # Drafts of a gated submission, or failed targets a member edited in a retry.
        waiting = publish.targets.filter(state__in=(TargetState.DRAFT, TargetState.FAILED))
        _release(publish, list(waiting), now=now)
    _settle(publish, now=now)
    emit(team=team, event_type="post.approved", data=event_data(publish, approved_by=_user_ref(caller.user)))
    return publish, False


@transaction.atomic
def publish_reject(*, team: Team, publish_id: Id, caller: Caller, reason: str = "") -> Publish:
    """Reject a pending publish for good: it is never sent, its schedule is dropped."""
    if not caller.can_approve:
        raise NotFound("No such publish.", code="PUBLISH_NOT_FOUND")
    publish = _locked(team, publish_id)
    if publish.approval_status != ApprovalStatus.PENDING:
        raise InvalidRequest("This publish is not waiting for approval.", code="NOT_PENDING_APPROVAL")
    if len(reason) > REASON_MAX_LENGTH:
        raise InvalidRequest(f"Keep the reason to {REASON_MAX_LENGTH} characters or fewer.", code="REASON_TOO_LONG")
    ScheduledRelease.objects.filter(publish=publish).delete()
    # A rejected retry keeps its targets' outcomes: published stays published, failed failed.
    publish.targets.filter(state=TargetState.SCHEDULED).update(state=TargetState.DRAFT, updated_at=timezone.now())
    publish.approval_status = ApprovalStatus.REJECTED
    publish.rejected_by, publish.rejected_at, publish.rejection_reason = caller.user, timezone.now(), reason
    _settle(publish)
    emit(
        team=team,
        event_type="post.rejected",
        data=event_data(publish, reason=reason or None, rejected_by=_user_ref(caller.user)),
    )
    return publish


def _user_ref(user: User | None) -> dict[str, Any] | None:
    return None if user is None else {"id": user.pk, "username": user.get_username()}


# --- retry -------------------------------------------------------------------------------------


@transaction.atomic
def publish_retry(*, team: Team, publish_id: Id, caller: Caller, edits: Sequence[Mapping[str, Any]] = ()) -> Publish:
    """Send again the targets that failed with evidence, optionally edited first. Each edit
    names its target by `target_id` or `account_id`. Published targets and those whose
    outcome is unknown are never re-sent. In a team that requires approval, a member's edits
    are new content: the publish waits for approval again, and approving it re-sends them."""
    publish = _locked(team, publish_id)
    if publish.status not in (PublishStatus.FAILED, PublishStatus.PARTIAL):
        raise InvalidRequest(
            f"Only a failed or partial publish can be retried; this one is {publish.status}.", code="NOT_RETRYABLE"
        )
    if publish.approval_status in (ApprovalStatus.PENDING, ApprovalStatus.REJECTED):
        raise InvalidRequest(
            f"This publish is {publish.approval_status.replace('_', ' ')}: it cannot be retried.",
            code="NOT_RETRYABLE",
        )
    targets = list(publish.targets.select_related("account"))
    failed = [t for t in targets if t.state == TargetState.FAILED]
    edited = False
    for index, edit in enumerate(edits):
        target = _target_of(targets, edit, index)
        if target.state != TargetState.FAILED:
            raise InvalidRequest(
                f"targets[{index}]: only a failed target can be edited and re-sent; this one is {target.status}.",
                code="TARGET_NOT_FAILED",
                details={"index": index, "target_id": str(target.pk)},
            )
        for name in ("content", "media_ids", "platform_settings"):
            if name in edit:
                value = edit[name] if name != "platform_settings" else edit[name] or {}
                edited = edited or _sent_value(publish, target, name) != _sent_value(publish, target, name, value)
                setattr(target, name, value)
    accounts = validation.accounts_by_id(team=team, account_ids=[str(t.account_id) for t in failed])
    _check_targets(publish, failed, accounts=accounts, unsupported_media_is_422=True)
    if edited and _gated(team, caller):
        for target in failed:
            target.save()
        publish.approved_by, publish.approved_at = None, None
        _ask_approval(publish)
    else:
        _release(publish, failed, now=timezone.now())
    _settle(publish)
    return publish


def _sent_value(publish: Publish, target: Target, name: str, value: Any = ...) -> Any:
    """What the target sends for `name` (its own value, else the publish's), with `value` as
    its own value when given: an edit that names what is sent already changes nothing."""
    own = getattr(target, name) if value is ... else value
    return getattr(publish, name, None) if own is None and name != "platform_settings" else own


def _target_of(targets: Sequence[Target], edit: Mapping[str, Any], index: int) -> Target:
    key, value = (
        ("target_id", edit.get("target_id")) if edit.get("target_id") else ("account_id", edit.get("account_id"))
    )
    if not value:
        raise InvalidRequest(f"targets[{index}] needs target_id or account_id.", code="TARGET_REQUIRED")
    for target in targets:
        if str(target.pk if key == "target_id" else target.account_id) == str(value):
            return target
    raise InvalidRequest(
        f"targets[{index}]: this publish has no target with {key} {value}.",
        code="TARGET_NOT_FOUND",
        details={"index": index, key: str(value)},
    )


# --- delivery outcomes -------------------------------------------------------------------------


def _apply_outcome(target: Target, attempt: DeliveryAttempt, outcome: Outcome, *, now: dt.datetime) -> None:
    kind = outcome.kind
    if kind == OutcomeKind.PUBLISHED:
        target.state = TargetState.PUBLISHED
        target.platform_post_id, target.platform_post_url = outcome.post_id, outcome.url
        target.published_at, target.next_check_at = now, None
        target.error_code = target.error_message = ""
    elif kind == OutcomeKind.FAILED:
        target.state = TargetState.FAILED
        target.error_code = outcome.error_code or "PLATFORM_ERROR"
        target.error_message = outcome.error_message or "The platform refused the post."
        target.next_check_at = None
    elif kind in (OutcomeKind.PROCESSING, OutcomeKind.UNKNOWN):
        target.state = TargetState.PROCESSING if kind == OutcomeKind.PROCESSING else TargetState.UNKNOWN
        target.error_code, target.error_message = outcome.error_code, outcome.error_message
        target.next_check_at = now + FIRST_CHECK
        target.checks = 0
    attempt.state = AttemptState(kind.value)
    attempt.error_code, attempt.error_message = outcome.error_code, outcome.error_message
    attempt.http_status = outcome.http_status
    attempt.ref = {**attempt.ref, **outcome.ref}
    attempt.response = _evidence(outcome)
    attempt.finished_at = now


def _evidence(outcome: Outcome) -> dict[str, Any]:
    return {
        "kind": outcome.kind.value,
        "post_id": outcome.post_id or None,
        "url": outcome.url or None,
        "http_status": outcome.http_status,
        "error_code": outcome.error_code or None,
        "error_message": outcome.error_message or None,
        "retry_after": outcome.retry_after,
    }


@transaction.atomic
def attempt_lost(*, attempt_id: Id) -> Publish | None:
    """An attempt left in `sending` with no answer (the worker died or timed out mid-call):
    the post may exist, so the target becomes unknown and is reconciled, never re-sent."""
    attempt = DeliveryAttempt.objects.select_related("target").get(pk=attempt_id)
    publish = _locked(None, attempt.target.publish_id)
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
    _apply_outcome(target, attempt, outcome, now=timezone.now())
    attempt.save()
    target.save()
    DeliveryJob.objects.filter(target=target, number=attempt.number).update(state=JobState.DONE)
    _settle(publish)
    return publish


@transaction.atomic
def job_recover(*, job_id: Id) -> Publish | None:
    """A job whose worker was lost after claiming it and before recording `sending`: nothing
    was sent, so it goes back to the queue; after MAX_RUNS claims the target fails with that
    evidence instead of looping."""
    job = DeliveryJob.objects.select_related("target").get(pk=job_id)
    publish = _locked(None, job.target.publish_id)
    job.refresh_from_db()
    target = job.target
    target.refresh_from_db()
    if job.state != JobState.RUNNING:
        return None
    if DeliveryAttempt.objects.filter(target=target, number=job.number, state=AttemptState.SENDING).exists():
        return None  # the call may have gone out: attempt_lost settles it
    if target.state != TargetState.QUEUED or target.attempt_count != job.number:
        job.state = JobState.DONE
        job.save()
        return None
    if job.runs >= MAX_RUNS:
        target.state, target.error_code = TargetState.FAILED, "WORKER_LOST"
        target.error_message = f"The delivery stopped {job.runs} times before sending; nothing was sent."
        target.save()
        job.state = JobState.DONE
    else:
        job.state, job.enqueued_at, job.not_before = JobState.PENDING, None, timezone.now()
    job.save()
    _settle(publish)
    return publish


@transaction.atomic
def check_record(*, target_id: Id, outcome: Outcome, now: dt.datetime | None = None) -> Publish | None:
    """Record what reconciliation learned about a processing or unknown target. A post not
    found soon after an unanswered call may still be appearing (platforms create posts
    asynchronously), so "not found" only counts as failure evidence once the attempt is
    UNKNOWN_ABSENT_AFTER old; until then the target stays unknown and is asked again."""
    target = Target.objects.get(pk=target_id)
    publish = _locked(None, target.publish_id)
    target.refresh_from_db()
    if target.state not in (TargetState.PROCESSING, TargetState.UNKNOWN):
        return None
    now = now or timezone.now()
    attempt = DeliveryAttempt.objects.get(target=target, number=target.attempt_count)
    target.checks += 1
    started = attempt.started_at or target.created_at
    too_soon = now - started < UNKNOWN_ABSENT_AFTER
    if target.state == TargetState.UNKNOWN and outcome.kind == OutcomeKind.FAILED and too_soon:
        pass  # absent for now: not yet evidence
    elif outcome.kind in (OutcomeKind.PUBLISHED, OutcomeKind.FAILED):
        _apply_outcome(target, attempt, outcome, now=now)
        attempt.save()
    elif outcome.kind == OutcomeKind.PROCESSING and target.state == TargetState.UNKNOWN:
        target.state = TargetState.PROCESSING  # the platform has it: no longer unknown
    if target.state in (TargetState.PROCESSING, TargetState.UNKNOWN):
        pause = min(FIRST_CHECK * 2 ** min(target.checks, 10), MAX_CHECK_PAUSE)
        target.next_check_at = now + pause if target.checks < MAX_CHECKS else None
    target.save()
    _settle(publish, now=now)
    return publish


# --- scheduled release, many publishes at once -------------------------------------------------


@transaction.atomic
def publishes_release_due(*, now: dt.datetime, limit: int) -> tuple[int, list[DeliveryJob]]:
    """The scheduler's transition for up to `limit` publishes due at `now`, in one transaction
    and a fixed number of statements: each starts sending (its scheduled targets queued with a
    new attempt number and one outbox job each, its release row removed, its status settled).

    A publish and its release row are locked together with SKIP LOCKED: a concurrent tick
    skips them, so no publish is released twice, and a publish that a transition holds right
    now (reschedule, unschedule, reject, edit) is left for the next tick instead of waited for.
    PostgreSQL re-checks the due time and approval of a row changed meanwhile once its lock is
    taken. Returns (publishes locked, jobs written); fewer locked than `limit` means nothing
    else was due and free."""
    due = list(
        Publish.objects.select_for_update(skip_locked=True, of=("self", "release"))
        .select_related("release")
        .filter(release__due_at__lte=now)
        .exclude(approval_status__in=(ApprovalStatus.PENDING, ApprovalStatus.REJECTED))
        .order_by("release__due_at")
        .only("pk", "team_id", "status", "released_at", "release__id")[:limit]
    )
    if not due:
        return 0, []
    now = timezone.now()  # the jobs are claimable from the real moment of release
    targets = list(Target.objects.filter(publish__in=due).only("pk", "publish_id", "state", "attempt_count"))
    queued = [t for t in targets if t.state == TargetState.SCHEDULED]
    ScheduledRelease.objects.filter(publish__in=due).delete()
    Target.objects.filter(pk__in=[t.pk for t in queued]).update(
        state=TargetState.QUEUED,
        attempt_count=F("attempt_count") + 1,
        error_code="",
        error_message="",
        next_check_at=None,
        updated_at=now,
    )
    jobs = DeliveryJob.objects.bulk_create(
        DeliveryJob(
            target_id=t.pk,
            number=t.attempt_count + 1,
            dispatch_id=f"deliver:{t.pk}:{t.attempt_count + 1}",
            not_before=now,
        )
        for t in queued
    )
    states: dict[Id, list[str]] = defaultdict(list)
    for target in targets:
        states[target.publish_id].append(TargetState.QUEUED if target.state == TargetState.SCHEDULED else target.state)
    by_status: dict[PublishStatus, list[Publish]] = defaultdict(list)
    for publish in due:
        by_status[derive_status(states[publish.pk])].append(publish)
    for status, publishes in by_status.items():
        Publish.objects.filter(pk__in=[p.pk for p in publishes]).update(
            status=status,
            released_at=Coalesce(F("released_at"), Value(now)),
            completed_at=now if status in OUTCOME_EVENTS else None,
            updated_at=now,
        )
        if status not in OUTCOME_EVENTS:
            continue
        for publish in publishes:  # no scheduled target was left: settled as _settle() would
            if publish.status != status:
                publish.refresh_from_db()
                emit(team=publish.team, event_type=OUTCOME_EVENTS[status], data=event_data(publish))
    return len(due), jobs


# --- delivery: the worker's path ---------------------------------------------------------------


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
    moved = Target.objects.filter(pk=target.pk, state=TargetState.QUEUED, attempt_count=job.number).update(
        state=TargetState.SENDING, updated_at=now
    )
    if not moved:
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
    publish = _locked(None, attempt.target.publish_id)
    attempt = DeliveryAttempt.objects.select_related("target").get(pk=attempt.pk)
    target = attempt.target
    if attempt.state != AttemptState.SENDING or target.state != TargetState.SENDING:
        return publish
    now = timezone.now()
    job_changes = _answer(attempt, outcome, request, now=now)
    DeliveryJob.objects.filter(target=target, number=attempt.number).update(**job_changes)
    attempt.save()
    target.save()
    _settle(publish, now=now)
    return publish


def _attempt_finish_hot(attempt: DeliveryAttempt, outcome: Outcome, request: Mapping[str, Any]) -> Publish:
    """attempt_finish in three statements (hotpath): the attempt and its target as `attempt_start`
    left them in memory, the ref as saved during the call."""
    target = attempt.target
    publish = target.publish
    hotpath.lock_publish(publish)
    now = timezone.now()
    job_changes = _answer(attempt, outcome, request, now=now)
    others = hotpath.record_answer(attempt, job_changes, now)
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
) -> dict[str, Any]:
    """Apply the platform's answer to the attempt and its target in memory; return the job's
    new field values. A not-sent answer within MAX_TRIES queues the target again."""
    target = attempt.target
    attempt.request = dict(request)
    if outcome.kind == OutcomeKind.NOT_SENT and attempt.tries < MAX_TRIES:
        pause = max(outcome.retry_after or 0.0, 2.0**attempt.tries)
        attempt.state, attempt.response = AttemptState.NOT_SENT, _evidence(outcome)
        attempt.error_code, attempt.error_message = outcome.error_code, outcome.error_message
        attempt.http_status = outcome.http_status
        target.state = TargetState.QUEUED
        return {
            "state": JobState.PENDING,
            "not_before": now + dt.timedelta(seconds=pause),
            "enqueued_at": None,
            "updated_at": now,
        }
    if outcome.kind == OutcomeKind.NOT_SENT:  # tries used up: nothing was ever sent
        outcome = Outcome(
            OutcomeKind.FAILED,
            error_code=outcome.error_code or "NOT_SENT",
            error_message=f"Not sent after {attempt.tries} tries: {outcome.error_message}".strip(": "),
            http_status=outcome.http_status,
        )
    _apply_outcome(target, attempt, outcome, now=now)
    return {"state": JobState.DONE, "updated_at": now}
