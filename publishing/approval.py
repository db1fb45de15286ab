"""Approval in a team that requires it (spec §3): who must wait for an owner or admin, asking
for approval again when a member changes what a submitted publish sends or when, and the
owner's or admin's approve and reject. An approved publish is released through the outbox
(`publishing.outbox`) in the approval's own transaction, and its jobs handed over after the
commit (`publishing.handover`)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from config.errors import InvalidRequest, NotFound
from publishing import actions, handover, outbox, queue
from publishing.inputs import Caller
from publishing.models import ApprovalStatus, DeliveryJob, Id, Publish, PublishMode, ScheduledRelease, TargetState
from publishing.status import derive_status, event_data, locked, settle
from publishing.transitions import move_targets
from teams.models import Team
from webhooks.services import emit

REASON_MAX_LENGTH = 2000


def waits_for_approval(*, team: Team, caller: Caller, publish_mode: str) -> bool:
    """Whether a new publish waits for an owner or admin: submitted (not a draft) by a caller
    who may not approve, in a team that requires approval."""
    return publish_mode != PublishMode.DRAFT and gated(team, caller)


def gated(team: Team, caller: Caller) -> bool:
    """Whether what `caller` submits in `team` waits for an owner or admin."""
    return team.approval_required and not caller.can_approve


def ask_approval(publish: Publish) -> None:
    """The publish waits for approval (again), its earlier approval withdrawn."""
    publish.approval_status = ApprovalStatus.PENDING
    publish.approved_by, publish.approved_at = None, None
    publish.status = derive_status(publish.targets.values_list("state", flat=True))
    emit(team=publish.team, event_type="post.pending_approval", data=event_data(publish))


def regate(publish: Publish, caller: Caller) -> None:
    """A change to what a submitted publish sends, or to when, made by someone who may not
    approve in a team that requires approval, is a new submission: it waits for an owner or
    admin again, whoever submitted it and whether or not it was approved (the scheduler and
    the outbox release nothing that waits for approval)."""
    if publish.confirmed and gated(publish.team, caller) and publish.approval_status != ApprovalStatus.PENDING:
        ask_approval(publish)


def publish_approve(*, team: Team, publish_id: Id, caller: Caller) -> tuple[Publish, bool]:
    """Approve a pending publish; (publish, already_approved). An approved immediate publish
    is released now, a scheduled one at its time. Approving again changes nothing but hands
    over the jobs that never reached the broker."""
    if not caller.can_approve:
        raise NotFound("No such publish.", code="PUBLISH_NOT_FOUND")
    with transaction.atomic(durable=True):
        publish = locked(team, publish_id)
        already = publish.approval_status == ApprovalStatus.APPROVED
        jobs = outbox.unsent(publish) if already else _approved(team, publish, caller)
    return handover.handed_over(handover.committed(publish), jobs), already


def _approved(team: Team, publish: Publish, caller: Caller) -> list[DeliveryJob]:
    if not actions.is_pending_approval(publish):
        raise InvalidRequest("This publish is not waiting for approval.", code="NOT_PENDING_APPROVAL")
    now = timezone.now()
    publish.approval_status = ApprovalStatus.APPROVED
    publish.approved_by, publish.approved_at = caller.user, now
    jobs = []
    if publish.confirmed and not outbox.has_release(publish):
        # Drafts of a gated submission, or failed targets a member edited in a retry.
        waiting = publish.targets.filter(state__in=(TargetState.DRAFT, TargetState.FAILED))
        jobs = outbox.release(publish, list(waiting), now=now)
    settle(publish, now=now)
    emit(team=team, event_type="post.approved", data=event_data(publish, approved_by=_user_ref(caller.user)))
    return jobs


@transaction.atomic
def publish_reject(*, team: Team, publish_id: Id, caller: Caller, reason: str = "") -> Publish:
    """Reject a pending publish for good: it is never sent, its schedule is dropped."""
    if not caller.can_approve:
        raise NotFound("No such publish.", code="PUBLISH_NOT_FOUND")
    publish = locked(team, publish_id)
    if not actions.is_pending_approval(publish):
        raise InvalidRequest("This publish is not waiting for approval.", code="NOT_PENDING_APPROVAL")
    if len(reason) > REASON_MAX_LENGTH:
        raise InvalidRequest(f"Keep the reason to {REASON_MAX_LENGTH} characters or fewer.", code="REASON_TOO_LONG")
    ScheduledRelease.objects.filter(publish=publish).delete()
    queue.free_slots(publish)
    # A rejected retry keeps its targets' outcomes: published stays published, failed failed.
    move_targets(publish.targets.filter(state=TargetState.SCHEDULED), TargetState.DRAFT, updated_at=timezone.now())
    publish.approval_status = ApprovalStatus.REJECTED
    publish.rejected_by, publish.rejected_at, publish.rejection_reason = caller.user, timezone.now(), reason
    settle(publish)
    emit(
        team=team,
        event_type="post.rejected",
        data=event_data(publish, reason=reason or None, rejected_by=_user_ref(caller.user)),
    )
    return publish


def _user_ref(user: User | None) -> dict[str, Any] | None:
    return None if user is None else {"id": user.pk, "username": user.get_username()}
