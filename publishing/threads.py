"""Threads: a target's later posts (`ThreadItem`), each published as a reply to the post before
it once that post is published. A reply is a unit of the one delivery path, as a target's own
post is (`sending.job_run`, `publishing.delivery`): one outbox job and one attempt row per
send, its moves declared in `publishing.transitions`, what differs (a reply proven absent is
sent again) in `policy.REPLY`. What is the thread's own is here:

- order (`follow`): a reply's job is written in the transaction that publishes the post it
  answers (the target's own post, for the first), so at most one reply of a thread is in
  flight, and none is sent before every earlier one is published. Following a thread needs no
  sweep: a job the broker did not take is the relay's, as any job.
- a failed reply fails the later ones with THREAD_BROKEN, never sent: the post they would
  answer does not exist (`follow`).
- a reply's post: its own text and media, replying to its parent with the ids (and, on
  Bluesky, the cids) its platform needs, read from the attempts that published them
  (`reply_post`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from django.utils import timezone

from accounts.platforms.base import Post, ReplyTo
from publishing import outbox, validation
from publishing.models import DeliveryAttempt, DeliveryJob, Target, ThreadItem, ThreadItemState
from publishing.transitions import move_items


def follow(unit: Target | ThreadItem, *, now: dt.datetime) -> list[DeliveryJob]:
    """What follows a unit's new state in its thread, written in the caller's transaction:
    published, the job of the next reply (the first, after the target's own post); a failed
    reply fails the ones after it. The jobs written, to hand over once committed."""
    if isinstance(unit, ThreadItem) and unit.state == ThreadItemState.FAILED:
        _break_after(unit, now=now)
        return []
    if unit.state != "published":
        return []
    if isinstance(unit, Target):
        target_id, position = unit.pk, 1
    else:
        target_id, position = unit.target_id, unit.position + 1
    following = ThreadItem.objects.filter(target_id=target_id, position=position, state=ThreadItemState.PENDING).first()
    return [] if following is None else [queue(following, now=now)]


def queue(item: ThreadItem, *, now: dt.datetime) -> DeliveryJob:
    """Write the job of the pending item's next send: a new attempt number, in its lane (a
    reply with a video goes on `uploads`), claimable from the real moment it is written."""
    number = item.attempts + 1
    ThreadItem.objects.filter(pk=item.pk, state=ThreadItemState.PENDING).update(attempts=number, updated_at=now)
    item.attempts = number
    lane = outbox.lanes([(item.pk, item.media_ids, [])])[item.pk]
    return DeliveryJob.objects.create(
        target_id=item.target_id,
        item=item,
        number=number,
        dispatch_id=f"reply:{item.pk}:{number}",
        not_before=timezone.now(),
        lane=lane,
    )


def _break_after(item: ThreadItem, *, now: dt.datetime) -> None:
    """The items after a failed one are never sent: the post they would answer does not exist."""
    message = f"Item {item.position} of this thread failed, so the items after it were not sent."
    later = ThreadItem.objects.filter(
        target_id=item.target_id, position__gt=item.position, state=ThreadItemState.PENDING
    )
    move_items(later, ThreadItemState.FAILED, error_code="THREAD_BROKEN", error_message=message, updated_at=now)


def reply_post(target: Target, item: ThreadItem) -> Post:
    """The item's post as its platform client sees it, replying to the item before it (the
    target's post for the first). Raises InvalidRequest when its media is gone."""
    uploads = validation.uploads_by_id(team=target.publish.team, media_ids=item.media_ids)
    fit = target.platform_settings.get("fit_media") is not False
    post = validation.item_post(account=target.account, item=item, uploads=uploads, fit=fit)
    return replace(post, reply_to=_reply_to(target, item))


def _reply_to(target: Target, item: ThreadItem) -> ReplyTo:
    root = DeliveryAttempt.objects.filter(target=target, item=None, number=target.attempt_count)
    root_cid = _cid(root)
    if item.position == 1:
        return ReplyTo(
            parent_id=target.platform_post_id, root_id=target.platform_post_id, root_cid=root_cid, parent_cid=root_cid
        )
    parent = ThreadItem.objects.get(target=target, position=item.position - 1)
    return ReplyTo(
        parent_id=parent.platform_post_id,
        root_id=target.platform_post_id,
        parent_cid=_cid(DeliveryAttempt.objects.filter(item=parent, number=parent.attempts)),
        root_cid=root_cid,
    )


def _cid(attempts: Any) -> str:
    """The content id (Bluesky's cid) the published attempt kept in its ref; "" elsewhere."""
    return str((attempts.values_list("ref", flat=True).first() or {}).get("cid", ""))
