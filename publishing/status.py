"""A publish's status, derived from its targets, and what every transition of a publish or of
its delivery shares: the publish lock, the settling of the status and the outcome event.

The status is never set by hand: `derive_status()` computes it from the targets' states after
every change (DESIGN §4.1), and `settle()` emits `post.published` or `post.failed` when, and
only when, the publish moves into one of those outcomes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from typing import Any

from django.utils import timezone

from config.errors import NotFound
from publishing.models import Id, Publish, PublishStatus, Target, TargetState
from teams.models import Team
from webhooks.services import emit

UNRELEASED = frozenset({TargetState.DRAFT, TargetState.SCHEDULED})
IN_FLIGHT = frozenset({TargetState.QUEUED, TargetState.SENDING})
OUTCOME_EVENTS = {
    PublishStatus.PUBLISHED: "post.published",
    PublishStatus.PARTIAL: "post.published",
    PublishStatus.FAILED: "post.failed",
}


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
            "removed_at": t.removed_at.isoformat().replace("+00:00", "Z") if t.removed_at else None,
            "removed_by": t.removed_by or None,
            "removal_error": t.removal_error or None,
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


def settle(publish: Publish, *, now: dt.datetime | None = None) -> None:
    """Recompute the status and when the publish was first published; on a move into
    published, partial or failed, emit its event."""
    targets = list(publish.targets.values_list("state", "published_at"))
    if publish.published_at is None:
        publish.published_at = min((at for state, at in targets if state == TargetState.PUBLISHED and at), default=None)
    new = derive_status([state for state, _ in targets])
    if new == publish.status:
        publish.save()
        return
    publish.status = new
    if new in OUTCOME_EVENTS:
        publish.completed_at = now or timezone.now()
    publish.save()
    if new in OUTCOME_EVENTS:
        emit(team=publish.team, event_type=OUTCOME_EVENTS[new], data=event_data(publish))


def locked(team: Team | None, publish_id: Id) -> Publish:
    """The publish, its row locked until commit (of `team` when given), with its team and plan.
    Only the publish's row: locking the joined team row too (FOR UPDATE) made a confirm wait on
    a create's quota row while that create, committing, waited on the team row for the key
    checks of its inserts, a deadlock under concurrent load."""
    query = Publish.objects.select_for_update(of=("self",)).select_related("team", "team__plan")
    if team is not None:
        query = query.filter(team=team)
    publish = query.filter(pk=publish_id).first()
    if publish is None:
        raise NotFound("No such publish.", code="PUBLISH_NOT_FOUND")
    return publish
