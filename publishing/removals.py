"""Published posts found gone from their platform: deleted by their owner there, or removed by
moderation.

Only the platform's own word counts: `client.exists()` answering False (a 404, "does not
exist"). A read that fails (a timeout, a 5xx, a 429, a refused token) says nothing about the
post, so `target_check_removed` then leaves the target as it is, to be asked again later.

`target_removed_on_platform` records it with a conditional update (a published target not
removed yet), so however many syncs or read-backs find the same post gone, the target is marked
once and `post.removed` is emitted once, in the same transaction as the mark. The target stays
`published` (it was); `removed_at` and `removed_by` say what became of it, and a removed target
is not read again (`analytics.services` skips it).

Taking a post down (`unpublish`, asked through the API or the dashboard) is a unit of the one
delivery engine, as a reply is: a `ThreadItem` of kind `removal`, one job and one attempt per
send (`sending.job_run` calls the client's `delete`), an unanswered delete read back with
`exists()` (`readback.check`) and sent again only once the post is proven still there
(`policy.REPLY`'s `absent`). Where replies are posts of their own (X, Bluesky, Threads: the
client's `first_comment` is REPLY), the thread's published replies and first comment are deleted
too, each its own removal; elsewhere the network removes comments with their post. A network
without a delete call gets its `no_delete_reason` as the target's `removal_error` at once, and
nothing is sent. When the removal of the target's own post is done, the target is marked
removed by the user (`target_removed`, once, with `post.removed`); when a removal fails, its
words become the target's `removal_error`.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from accounts.models import Platform
from accounts.platforms.base import Connection, Outcome, OutcomeKind, PlatformClient, PlatformError
from accounts.platforms.interface import REPLY
from accounts.platforms.registry import NoClient, client_for
from accounts.services import platform_call
from publishing import delivery, threads
from publishing.models import (
    DeliveryJob,
    Id,
    RemovedBy,
    Target,
    TargetState,
    ThreadItem,
    ThreadItemKind,
    ThreadItemState,
)
from publishing.status import event_data
from publishing.transitions import move_items
from webhooks.models import EventType
from webhooks.services import emit

logger = logging.getLogger(__name__)


# Removals take the positions from here on, after any thread (at most 25 items).
FIRST_REMOVAL = 1000
# An item in these states may still be sent, or be on its platform without an answer yet.
OPEN_ITEM = (ThreadItemState.PENDING, ThreadItemState.SENDING, ThreadItemState.UNKNOWN)
TAKEN_DOWN = "TAKEN_DOWN"


def target_removed_on_platform(
    *, target_id: Id, now: dt.datetime | None = None, by: RemovedBy = RemovedBy.PLATFORM
) -> bool:
    """Mark the published target removed (by its platform, or by the user who took it down)
    and emit `post.removed`, once: False when it is not published or was marked removed
    already."""
    now = now or timezone.now()
    with transaction.atomic():
        claimed = Target.objects.filter(pk=target_id, state=TargetState.PUBLISHED, removed_at__isnull=True).update(
            removed_at=now, removed_by=by, removal_error="", updated_at=now
        )
        if not claimed:
            return False
        target = Target.objects.select_related("publish__team").get(pk=target_id)
        data = event_data(target.publish, targets=[target], removed_by=by.value)
        emit(team=target.publish.team, event_type=EventType.POST_REMOVED, data=data)
    return True


# --- taking a post down ------------------------------------------------------------------------


def removable(target: Target) -> bool:
    """A target whose post may be taken down: published, and not removed yet."""
    return target.state == TargetState.PUBLISHED and target.removed_at is None


def deletes(platform: str) -> bool:
    """Whether this service can delete a post on the platform."""
    try:
        return not client_for(platform).no_delete_reason
    except NoClient:
        return False


def unpublish(targets: Iterable[Target], *, now: dt.datetime) -> list[DeliveryJob]:
    """Queue the removal of each published target's post (with its replies where they are
    posts of their own), in the caller's transaction under the publish lock: the jobs
    written, to hand over once committed. A target whose removal is under way is left to it
    (asking twice sends nothing twice); one whose network cannot delete gets the reason."""
    jobs: list[DeliveryJob] = []
    for target in targets:
        try:
            client = client_for(target.platform)
        except NoClient:
            reason = f"{_name(target)} has no delete call here: delete it on the network."
        else:
            reason = client.no_delete_reason
        if reason:
            Target.objects.filter(pk=target.pk).update(removal_error=reason, updated_at=now)
            target.removal_error = reason
            continue
        items = list(ThreadItem.objects.filter(target=target).order_by("position"))
        if any(i.kind == ThreadItemKind.REMOVAL and i.state in OPEN_ITEM for i in items):
            continue
        sent = [i for i in items if i.kind != ThreadItemKind.REMOVAL]
        # What is not sent yet never will be: the post it would answer is going.
        unsent = [i for i in sent if i.state == ThreadItemState.PENDING]
        gone = "The post was taken down before this was sent."
        move_items(unsent, ThreadItemState.FAILED, error_code=TAKEN_DOWN, error_message=gone, updated_at=now)
        deleted: list[ThreadItem | None] = [None]
        if client.first_comment == REPLY:  # replies are posts: each goes on its own, once
            gone_already = {i.removes_id for i in items if i.kind == ThreadItemKind.REMOVAL and i.state == "published"}
            deleted += [i for i in sent if i.state == ThreadItemState.PUBLISHED and i.pk not in gone_already]
        start = max([FIRST_REMOVAL - 1, *(i.position for i in items)]) + 1
        removals = ThreadItem.objects.bulk_create(
            ThreadItem(target=target, kind=ThreadItemKind.REMOVAL, position=start + n, removes=item)
            for n, item in enumerate(deleted)
        )
        Target.objects.filter(pk=target.pk).update(removal_error="", updated_at=now)
        target.removal_error = ""
        jobs += [threads.queue(item, now=now) for item in removals]
    return jobs


@dataclass(frozen=True)
class Deleted:
    """What a removal deletes: the post's platform id, and the ref its publishing attempt kept."""

    post_id: str
    ref: Mapping[str, str]


def published_late(item: ThreadItem, *, now: dt.datetime) -> list[DeliveryJob]:
    """A reply or first comment whose send was under way when its post was taken down, and
    which the platform then published: deleted too where it is a post of its own (the jobs
    written); nothing where the network removed it with the post, or nothing is taken down."""
    asked = ThreadItem.objects.filter(target_id=item.target_id, kind=ThreadItemKind.REMOVAL, removes=None)
    if not asked.exclude(state=ThreadItemState.FAILED).exists():  # its post stays: so does the reply
        return []
    target = Target.objects.get(pk=item.target_id)
    if not deletes(target.platform) or client_for(target.platform).first_comment != REPLY:
        return []
    last = ThreadItem.objects.filter(target_id=item.target_id).order_by("-position").values_list("position", flat=True)
    removal = ThreadItem.objects.create(
        target=target, kind=ThreadItemKind.REMOVAL, position=max(FIRST_REMOVAL, last[0] + 1), removes=item
    )
    return [threads.queue(removal, now=now)]


def deleted_post(target: Target, removal: ThreadItem) -> Deleted:
    return _post_of(target if removal.removes_id is None else ThreadItem.objects.get(pk=removal.removes_id))


def _post_of(unit: Target | ThreadItem) -> Deleted:
    """A published unit's post: its platform id, and the ref its publishing attempt kept."""
    attempt = delivery.last_attempt(unit)
    return Deleted(unit.platform_post_id, dict(attempt.ref) if attempt is not None else {})


def delete(target: Target, deleted: Deleted) -> Outcome:
    """Ask the target's platform to delete one post, once (`platform_call`: no database
    connection is held while it answers)."""

    def call(client: PlatformClient, conn: Connection) -> Outcome:
        return client.delete(conn, deleted.post_id, deleted.ref)

    try:
        return platform_call(account=target.account, call=call)
    except NoClient:
        return Outcome(OutcomeKind.FAILED, error_code="PLATFORM_UNSUPPORTED", error_message=target.platform)


def read_back(client: PlatformClient, conn: Connection, deleted: Deleted) -> Outcome:
    """What a read-back learns of a delete that got no clear answer: PUBLISHED (done) when the
    platform says the post is gone; NOT_FOUND (the delete is not found done, so it may be sent
    again once that is proof) while it is still there. An error raises PlatformError."""
    if not client.exists(conn, deleted.post_id, deleted.ref):
        return Outcome(OutcomeKind.PUBLISHED, post_id=deleted.post_id)
    still = f"The post is still on {Platform(client.platform).label} after the delete."
    return Outcome(OutcomeKind.FAILED, error_code="NOT_FOUND", error_message=still)


def removal_settled(removal: ThreadItem, *, now: dt.datetime) -> None:
    """What a removal's outcome means for its target: the own post deleted, the target is
    removed by the user (once, with `post.removed`); a removal failed, its target's
    `removal_error` says so in the network's words."""
    if removal.state == ThreadItemState.PUBLISHED and removal.removes_id is None:
        target_removed_on_platform(target_id=removal.target_id, now=now, by=RemovedBy.USER)
    elif removal.state == ThreadItemState.FAILED:
        target = Target.objects.get(pk=removal.target_id)
        what = "the post" if removal.removes_id is None else "a reply of the post"
        message = f"{_name(target)} did not delete {what}: {removal.error_message or removal.error_code}"
        Target.objects.filter(pk=target.pk).update(removal_error=message, updated_at=now)


def _name(target: Target) -> str:
    return str(Platform(target.platform).label)


def target_check_removed(*, target: Target, now: dt.datetime | None = None) -> bool:
    """Ask the platform whether the published target's post is still there, and record its
    removal when the platform says it is gone. True when the target is (now) marked removed;
    False when the post is there or the platform could not say (that is logged)."""
    post = _post_of(target)

    def ask(client: PlatformClient, conn: Connection) -> bool:
        return client.exists(conn, post.post_id, post.ref)

    try:
        there = platform_call(account=target.account, call=ask)
    except (PlatformError, NotImplementedError, NoClient) as exc:
        logger.info("Could not tell whether target %s is still on %s: %r", target.pk, target.platform, exc)
        return False
    if there:
        return False
    target_removed_on_platform(target_id=target.pk, now=now)  # False: a parallel run marked it
    return True
