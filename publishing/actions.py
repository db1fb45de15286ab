"""Which transitions a publish's state allows: the guards of `publishing.lifecycle`, stated once
so that the lifecycle refuses what the dashboard does not offer, and the dashboard offers only
what the lifecycle would accept.

Each predicate reads the publish as loaded (no query); the lifecycle asks it again of the row it
has locked, so an offer made a moment ago may still be refused with the lifecycle's error.
Approving and rejecting also depend on the caller's role, which the lifecycle checks itself.
"""

from __future__ import annotations

from publishing import outbox
from publishing.models import ApprovalStatus, Publish, PublishStatus

RETRYABLE_STATUSES = frozenset({PublishStatus.FAILED, PublishStatus.PARTIAL})
# A retry would bypass the decision still to be made (pending) or already made (rejected).
UNRETRYABLE_APPROVALS = frozenset({ApprovalStatus.PENDING, ApprovalStatus.REJECTED})
SETTLED_STATUSES = frozenset(
    {PublishStatus.DRAFT, PublishStatus.SCHEDULED, PublishStatus.PUBLISHED, PublishStatus.FAILED, PublishStatus.PARTIAL}
)


def is_open_draft(publish: Publish) -> bool:
    """A draft not yet submitted: it may be edited, confirmed or discarded."""
    return publish.status == PublishStatus.DRAFT and not publish.confirmed


def is_editable(publish: Publish) -> bool:
    """An open draft, or a scheduled publish still waiting in the schedule queue (its release
    row untaken: one query, unless read with the `release_pending` annotation)."""
    return is_open_draft(publish) or outbox.is_waiting(publish)


def is_retryable(publish: Publish) -> bool:
    return publish.status in RETRYABLE_STATUSES and publish.approval_status not in UNRETRYABLE_APPROVALS


def is_pending_approval(publish: Publish) -> bool:
    return publish.approval_status == ApprovalStatus.PENDING


def is_settled(publish: Publish) -> bool:
    """Nothing is being sent or awaited from a platform: the status changes only when someone acts."""
    return publish.status in SETTLED_STATUSES


def allowed_actions(publish: Publish, *, can_approve: bool) -> set[str]:
    """The actions to offer on `publish`: edit, confirm, discard, retry, approve, reject."""
    allowed = set()
    if is_open_draft(publish):
        allowed |= {"confirm", "discard"}
    if is_editable(publish):
        allowed.add("edit")
    if is_retryable(publish):
        allowed.add("retry")
    if can_approve and is_pending_approval(publish):
        allowed |= {"approve", "reject"}
    return allowed
