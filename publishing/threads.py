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
- the first comment (`platform_settings.first_comment`) is an item of its own kind at position
  0, written with the target (`comment_item`) and sent once the target's own post is
  published, beside the first reply: a reply by the same account where replies are posts (X,
  Bluesky, Threads), a comment on the post elsewhere (the client's `first_comment`). Nothing
  waits for it: when it fails, the replies go on and the target stays published, marked
  FIRST_COMMENT_FAILED with the comment's evidence; a retry sends it again (`comments_retried`).
- a removal (taking the post down, `publishing.removals`) is an item too, followed by what its
  outcome means for the target (`removals.removal_settled`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from django.utils import timezone

from accounts.platforms.base import Post, ReplyTo
from accounts.platforms.registry import NoClient, client_for
from publishing import outbox, validation
from publishing.models import (
    DeliveryAttempt,
    DeliveryJob,
    Target,
    TargetState,
    ThreadItem,
    ThreadItemKind,
    ThreadItemState,
)
from publishing.transitions import move_items

FIRST_COMMENT_FAILED = "FIRST_COMMENT_FAILED"


def follow(unit: Target | ThreadItem, *, now: dt.datetime) -> list[DeliveryJob]:
    """What follows a unit's new state in its thread, written in the caller's transaction:
    published, the job of the next reply (the first, after the target's own post); a failed
    reply fails the ones after it. The jobs written, to hand over once committed."""
    from publishing import removals  # removals queue through this module

    if isinstance(unit, ThreadItem) and unit.kind == ThreadItemKind.REMOVAL:
        removals.removal_settled(unit, now=now)
        return []
    if (
        isinstance(unit, ThreadItem)
        and unit.state == ThreadItemState.PUBLISHED
        and (late := removals.published_late(unit, now=now))
    ):
        return late  # its post is being taken down: the reply goes too
    if isinstance(unit, ThreadItem) and unit.kind == ThreadItemKind.COMMENT:
        if unit.state == ThreadItemState.FAILED:
            _comment_failed(unit, now=now)
        return []
    if isinstance(unit, ThreadItem) and unit.state == ThreadItemState.FAILED:
        _break_after(unit, now=now)
        return []
    if unit.state != "published":
        return []
    positions: tuple[int, ...]
    if isinstance(unit, Target):  # its first comment (position 0) and its first reply
        target_id, positions = unit.pk, (0, 1)
    else:
        target_id, positions = unit.target_id, (unit.position + 1,)
    following = ThreadItem.objects.filter(target_id=target_id, position__in=positions, state=ThreadItemState.PENDING)
    return [queue(item, now=now) for item in following.order_by("position")]


def comment_item(target: Target) -> ThreadItem | None:
    """The unsaved first comment the target's settings ask for; None when they ask for none
    or its platform cannot comment (validation refuses the setting there)."""
    text = target.platform_settings.get("first_comment")
    if not isinstance(text, str) or not text.strip():
        return None
    try:
        if client_for(target.platform).first_comment is None:
            return None
    except NoClient:
        return None
    return ThreadItem(target=target, kind=ThreadItemKind.COMMENT, position=0, content=text)


def save_comment(target: Target) -> None:
    """Store the first comment of a target not yet published in place of its stored one: its
    settings may have changed, and an unsent comment is only what they say."""
    ThreadItem.objects.filter(target=target, kind=ThreadItemKind.COMMENT).delete()
    if (item := comment_item(target)) is not None:
        item.save()


def _comment_failed(item: ThreadItem, *, now: dt.datetime) -> None:
    """The target stays published; its error says the comment did not go, with the evidence."""
    message = f"The post is published, but its first comment could not be posted: {item.error_message}"
    Target.objects.filter(pk=item.target_id, state=TargetState.PUBLISHED).update(
        error_code=FIRST_COMMENT_FAILED, error_message=message, updated_at=now
    )


def failed_comments(targets: list[Target]) -> list[ThreadItem]:
    """The failed first comments of the published targets among `targets`."""
    published = [t.pk for t in targets if t.state == TargetState.PUBLISHED]
    comments = ThreadItem.objects.filter(target_id__in=published, kind=ThreadItemKind.COMMENT)
    return list(comments.filter(state=ThreadItemState.FAILED))


def comments_retried(failed: list[ThreadItem], *, now: dt.datetime) -> list[DeliveryJob]:
    """Send again failed first comments (a retry): each is pending once more, with a new
    attempt, and its target's FIRST_COMMENT_FAILED is cleared."""
    if not failed:
        return []
    move_items(failed, ThreadItemState.PENDING, error_code="", error_message="", updated_at=now)
    Target.objects.filter(pk__in=[i.target_id for i in failed], error_code=FIRST_COMMENT_FAILED).update(
        error_code="", error_message="", updated_at=now
    )
    return [queue(item, now=now) for item in failed]


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
        target_id=item.target_id, kind=ThreadItemKind.REPLY, position__gt=item.position, state=ThreadItemState.PENDING
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
    if item.position <= 1:  # the first comment (0) and the first reply answer the post itself
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
