"""Threads: a target's later posts (`ThreadItem`), each published as a reply to the post before
it once the target's own post is published. The target's delivery is untouched by them: the
target is published when its own post is, and its items follow.

The publishing safety rules hold item by item (DESIGN §4):

- `thread_send` sends the target's first open item, and only once every earlier one is
  published: it is claimed pending -> sending by a compare-and-set committed before the
  platform is called, then the answer is recorded (`item_record`). Published: the next item
  is handed over. So at most one item of a thread is ever in flight.
- A definitive refusal fails the item; the later ones fail with THREAD_BROKEN, never sent
  (the post they would answer does not exist).
- No answer (a timeout, a 5xx, a worker lost mid-call) leaves the item unknown, and nothing
  more of its thread is sent until a read-back (`item_check`) settles it: found, it is
  published and the thread goes on; surely absent (not found once
  RECONCILE_ABSENT_AFTER_SECONDS have passed since it was sent), it is pending again and sent
  anew: the only item ever re-sent, never an earlier one.
- `threads_reconcile` (run by `publishing.reconcile`) picks up what a lost worker left: items
  in sending past DISPATCH_STALE_SECONDS (unknown, as `delivery.attempt_lost` does for
  targets), unknown items due for a read-back, and published targets whose next item no worker
  took. A lease in `next_check_at` keeps parallel runs from handing the same work over twice;
  the claim's compare-and-set makes a duplicate harmless anyway.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from accounts import pacing
from accounts.platforms.base import Connection, Outcome, OutcomeKind, PlatformClient, Post, ReplyTo
from accounts.services import account_publish, platform_call
from config import dbpool
from config.errors import InvalidRequest
from media.models import MediaUpload
from publishing import delivery, policy, renditions, validation
from publishing.models import DeliveryAttempt, Id, Target, TargetState, ThreadItem, ThreadItemState

logger = logging.getLogger(__name__)

# What differs from a target's delivery (a reply proven absent is sent again) is data:
# policy.REPLY.
POLICY = policy.REPLY
MAX_SENDS = POLICY.max_tries
FIRST_CHECK = POLICY.first_check
BATCH = 200
NO_REF = policy.NO_REF


def _hand_over_lease() -> dt.timedelta:
    # A hand-over the broker lost is made again by the sweep once this has passed.
    return dt.timedelta(seconds=settings.DISPATCH_RELAY_AFTER_SECONDS)


def _absent_after() -> dt.timedelta:
    return dt.timedelta(seconds=settings.RECONCILE_ABSENT_AFTER_SECONDS)


# --- handing over ------------------------------------------------------------------------------


def thread_hand_over(*, target_id: Id, now: dt.datetime | None = None) -> bool:
    """Queue the sending of the published target's next item, when it is pending and due (the
    run claims nothing of a target not published). The item is leased first (one UPDATE), so
    the sweep does not queue it again meanwhile. Never inside a transaction. True when a task
    was queued; a target without a thread costs one SELECT."""
    from publishing.tasks import send_thread

    now = now or timezone.now()
    first = _first_open(target_id)
    due = Q(next_check_at__isnull=True) | Q(next_check_at__lte=now)
    pending = ThreadItem.objects.filter(due, pk=first, state=ThreadItemState.PENDING)
    leased = first is not None and pending.update(next_check_at=now + _hand_over_lease(), updated_at=now)
    if not leased:
        return False
    try:
        send_thread.apply_async(args=(str(target_id),), retry=False)
    except Exception:  # the broker refused: the sweep hands it over once the lease is out
        logger.warning("The broker did not take the thread of target %s; handed over later", target_id, exc_info=True)
        return False
    return True


def _first_open(target_id: Id) -> Any:
    """The id of the target's first item not published; None when there is none."""
    items = ThreadItem.objects.filter(target_id=target_id).exclude(state=ThreadItemState.PUBLISHED)
    return items.order_by("position").values_list("pk", flat=True).first()


# --- the worker's path -------------------------------------------------------------------------


def thread_send(*, target_id: Id) -> None:
    """Send the target's next item: claim it (committed), call the platform once, record the
    answer; published, the item after it is handed over. A second run finds nothing to claim.
    An item whose renditions are not made yet is not claimed: their making goes to the media
    lane, which hands the thread over again."""
    if _waits_for_renditions(target_id):
        return
    item = item_claim(target_id=target_id)
    if item is None:
        return
    target = item.target
    wait = pacing.turn(account_id=target.account_id, platform=target.platform)
    if wait > 0:
        _wait_for_turn(item, wait)
        return
    try:
        post, _ = _post_of(target, item)
        fit = renditions.fitted(target.platform, post, since=item.created_at)
        if isinstance(fit, renditions.Missing):  # not made after all: back to pending, nothing sent
            outcome = Outcome(OutcomeKind.NOT_SENT, error_code="MEDIA_FIT_PENDING", error_message="Not fitted yet.")
        elif isinstance(fit, Outcome):  # MEDIA_FIT_FAILED: nothing is sent
            outcome = fit
        else:
            outcome = _call(target, item, renditions.with_renditions(post, fit))
    except Exception as exc:
        if isinstance(exc, InvalidRequest):  # its media is gone: nothing was sent
            outcome = Outcome(OutcomeKind.FAILED, error_code=exc.code, error_message=exc.message)
        else:
            logger.exception("Sending item %s of target %s raised; its outcome is unknown", item.position, target.pk)
            outcome = Outcome(OutcomeKind.UNKNOWN, error_code="CLIENT_ERROR", error_message=type(exc).__name__)
    if item_record(item_id=item.pk, outcome=outcome) == ThreadItemState.PUBLISHED:
        thread_hand_over(target_id=target_id)


def _wait_for_turn(item: ThreadItem, wait: float) -> None:
    """Put the just-claimed item back, nothing sent and its send not counted, until its account
    may post again (accounts.pacing): the sweep hands it over once that time has come."""
    now = timezone.now()
    ThreadItem.objects.filter(pk=item.pk, state=ThreadItemState.SENDING).update(
        state=ThreadItemState.PENDING,
        attempts=F("attempts") - 1,
        started_at=None,
        next_check_at=now + dt.timedelta(seconds=wait),
        updated_at=now,
    )


def _waits_for_renditions(target_id: Id) -> bool:
    """Whether the target's next item (pending, its target published) needs renditions not
    made yet. Then their making is handed to the media lane with this task to send again once
    they are made (or one failed), and the item's hand-over lease is renewed, so the sweep
    does not send it meanwhile; should that message be lost, the sweep sends it once the
    lease is out. A failed fit is not waited for: the claim's path records it."""
    from publishing.tasks import send_thread

    first = _first_open(target_id)
    items = ThreadItem.objects.select_related("target__account", "target__publish__team")
    item = items.filter(pk=first, state=ThreadItemState.PENDING, target__state=TargetState.PUBLISHED).first()
    if item is None or not item.media_ids:
        return False
    try:
        post, _ = _item_post(item.target, item)
    except InvalidRequest:  # its media is gone: the claim's path records that
        return False
    missing = renditions.fitted(item.target.platform, post, since=item.created_at)
    if not isinstance(missing, renditions.Missing):
        return False
    now = timezone.now()
    pending = ThreadItem.objects.filter(pk=item.pk, state=ThreadItemState.PENDING)
    pending.update(next_check_at=now + _hand_over_lease(), updated_at=now)
    then = {"task": send_thread.name, "args": [str(target_id)]}
    renditions.hand_over(missing, then=then, since=item.created_at)
    return True


def item_claim(*, target_id: Id) -> ThreadItem | None:
    """The target's first open item, moved pending -> sending by compare-and-set when the
    target is published and every earlier item is; None when there is nothing to send."""
    now = timezone.now()
    # A published target stays published (transitions.py): checked once, before the claim.
    published = Target.objects.filter(pk=target_id, state=TargetState.PUBLISHED).exists()
    first = _first_open(target_id) if published else None
    if first is None:
        return None
    # The compare-and-set is on the item's own row (no join), so that of two runs racing for
    # it, the one that waited re-reads its state after the other's commit and finds it taken.
    claimed = ThreadItem.objects.filter(pk=first, state=ThreadItemState.PENDING).update(
        state=ThreadItemState.SENDING,
        attempts=F("attempts") + 1,
        started_at=now,
        next_check_at=None,
        ref={},
        updated_at=now,
    )
    if not claimed:
        return None
    return ThreadItem.objects.select_related("target__account", "target__publish__team").get(pk=first)


def _post_of(target: Target, item: ThreadItem) -> tuple[Post, Mapping[str, MediaUpload]]:
    """The item's post, replying to the item before it (the target's post for the first), and
    its uploads."""
    post, uploads = _item_post(target, item)
    return replace(post, reply_to=_reply_to(target, item)), uploads


def _item_post(target: Target, item: ThreadItem) -> tuple[Post, Mapping[str, MediaUpload]]:
    uploads = validation.uploads_by_id(team=target.publish.team, media_ids=item.media_ids)
    fit = target.platform_settings.get("fit_media") is not False
    return validation.item_post(account=target.account, item=item, uploads=uploads, fit=fit), uploads


def _reply_to(target: Target, item: ThreadItem) -> ReplyTo:
    root_ref = DeliveryAttempt.objects.filter(target=target, number=target.attempt_count).values_list("ref", flat=True)
    root_cid = str((root_ref.first() or {}).get("cid", ""))
    if item.position == 1:
        return ReplyTo(
            parent_id=target.platform_post_id, root_id=target.platform_post_id, root_cid=root_cid, parent_cid=root_cid
        )
    parent = ThreadItem.objects.get(target=target, position=item.position - 1)
    return ReplyTo(
        parent_id=parent.platform_post_id,
        root_id=target.platform_post_id,
        parent_cid=str(parent.ref.get("cid", "")),
        root_cid=root_cid,
    )


def _call(target: Target, item: ThreadItem, post: Post) -> Outcome:
    return account_publish(account=target.account, post=post, save_ref=_save_ref(item))


def _save_ref(item: ThreadItem) -> Any:
    saved: dict[str, str] = dict(item.ref)

    def save(ref: Mapping[str, str]) -> None:
        # Autocommit: stored before the call that could create the post.
        saved.update(ref)
        ThreadItem.objects.filter(pk=item.pk).update(ref=dict(saved))
        dbpool.release()  # the next call to the platform is waited for without it
        item.ref = dict(saved)

    return save


# --- recording answers -------------------------------------------------------------------------


@transaction.atomic
def item_record(*, item_id: Id, outcome: Outcome, now: dt.datetime | None = None) -> ThreadItemState | None:
    """Record the platform's answer for an item in sending; None when it was settled
    meanwhile (reconciled as unknown after its worker was taken for lost)."""
    item = ThreadItem.objects.select_for_update().get(pk=item_id)
    if item.state != ThreadItemState.SENDING:
        return None
    now = now or timezone.now()
    if outcome.kind is OutcomeKind.NOT_SENT and item.attempts < MAX_SENDS:
        pause = POLICY.backoff(item.attempts, outcome.retry_after)
        item.state, item.next_check_at = ThreadItemState.PENDING, now + pause
        item.error_code, item.error_message = outcome.error_code, outcome.error_message
        item.response = delivery.evidence(outcome)
        item.save()
        return ThreadItemState.PENDING
    if outcome.kind is OutcomeKind.NOT_SENT:
        message = f"Not sent after {item.attempts} tries: {outcome.error_message}".strip(": ")
        outcome = replace(
            outcome, kind=OutcomeKind.FAILED, error_code=outcome.error_code or "NOT_SENT", error_message=message
        )
    _apply(item, outcome, now=now)
    return ThreadItemState(item.state)


def _apply(item: ThreadItem, outcome: Outcome, *, now: dt.datetime) -> None:
    """Record a settled or open outcome on the item and save it; a failure breaks the thread."""
    item.ref = {**item.ref, **outcome.ref}
    item.response = delivery.evidence(outcome)
    item.error_code, item.error_message = outcome.error_code, outcome.error_message
    if outcome.kind is OutcomeKind.PUBLISHED:
        item.state, item.published_at, item.next_check_at = ThreadItemState.PUBLISHED, now, None
        item.platform_post_id, item.platform_post_url = outcome.post_id, outcome.url
        item.error_code = item.error_message = ""
    elif outcome.kind is OutcomeKind.FAILED:
        item.state, item.next_check_at = ThreadItemState.FAILED, None
        item.error_code = outcome.error_code or "PLATFORM_ERROR"
        item.error_message = outcome.error_message or "The platform refused the post."
    else:  # processing or unknown: the platform may have it, so it is read back
        item.state, item.next_check_at, item.checks = ThreadItemState.UNKNOWN, now + FIRST_CHECK, 0
    item.save()
    logger.info("Thread item %s of target %s: %s", item.position, item.target_id, item.state)
    if item.state == ThreadItemState.FAILED:
        _break_after(item, now=now)


def _break_after(item: ThreadItem, *, now: dt.datetime) -> None:
    """The items after a failed one are never sent: the post they would answer does not exist."""
    message = f"Item {item.position} of this thread failed, so the items after it were not sent."
    later = ThreadItem.objects.filter(
        target_id=item.target_id, position__gt=item.position, state=ThreadItemState.PENDING
    )
    later.update(state=ThreadItemState.FAILED, error_code="THREAD_BROKEN", error_message=message, updated_at=now)


# --- the reconciler's path ---------------------------------------------------------------------


@transaction.atomic
def item_lost(*, item_id: Id, now: dt.datetime | None = None) -> bool:
    """An item left in sending with no answer (its worker died or timed out mid-call): the
    post may exist, so it becomes unknown and is read back, never sent again blindly."""
    item = ThreadItem.objects.select_for_update().get(pk=item_id)
    if item.state != ThreadItemState.SENDING:
        return False
    lost = Outcome(
        OutcomeKind.UNKNOWN,
        error_code="NO_ANSWER",
        error_message="The sending worker stopped before the platform answered.",
    )
    _apply(item, lost, now=now or timezone.now())
    return True


def item_check(*, item_id: Id, now: dt.datetime | None = None) -> None:
    """Ask the platform about one unknown item: by its saved ref (record key, container) when
    there is one, otherwise among the replies to its parent; then record what it said."""
    item = ThreadItem.objects.select_related("target__account", "target__publish__team").get(pk=item_id)
    if item.state != ThreadItemState.UNKNOWN:
        return
    target = item.target

    def ask(client: PlatformClient, conn: Connection) -> Outcome:
        outcome = client.check(conn, item.ref) if item.ref else None
        if outcome is None or outcome.error_code == NO_REF:
            since = (item.started_at or item.created_at) - dt.timedelta(minutes=1)
            outcome = client.find_recent(conn, _post_of(target, item)[0], since)
        return outcome

    try:
        outcome = platform_call(account=target.account, call=ask)
    except Exception:
        logger.exception("Checking item %s of target %s failed; it is asked again later", item.position, target.pk)
        outcome = Outcome(OutcomeKind.UNKNOWN, error_code="CHECK_FAILED")
    settled = item_check_record(item_id=item.pk, outcome=outcome, now=now)
    if settled in (ThreadItemState.PENDING, ThreadItemState.PUBLISHED):  # absent (re-sent) or found
        thread_hand_over(target_id=target.pk, now=now)


@transaction.atomic
def item_check_record(*, item_id: Id, outcome: Outcome, now: dt.datetime | None = None) -> ThreadItemState | None:
    """Record what a read-back learned of an unknown item. Not found soon after it was sent
    proves nothing yet (platforms create posts asynchronously); once RECONCILE_ABSENT_AFTER_SECONDS
    have passed, not found is proof of absence and the item is pending again (it is re-sent,
    up to MAX_SENDS sends in all); another refusal fails it."""
    item = ThreadItem.objects.select_for_update().get(pk=item_id)
    if item.state != ThreadItemState.UNKNOWN:
        return None
    now = now or timezone.now()
    item.checks += 1
    too_soon = now - (item.started_at or item.created_at) < _absent_after()
    if outcome.kind is OutcomeKind.PUBLISHED or (outcome.kind is OutcomeKind.FAILED and not too_soon):
        if outcome.error_code == "NOT_FOUND" and item.attempts < MAX_SENDS:
            item.state, item.next_check_at, item.ref = ThreadItemState.PENDING, None, {}
            item.error_code, item.error_message = outcome.error_code, "Not found after its send: sent again."
            item.save()
            return ThreadItemState.PENDING
        _apply(item, outcome, now=now)
        return ThreadItemState(item.state)
    item.next_check_at = POLICY.next_check(now, item.checks)
    item.save()
    return ThreadItemState.UNKNOWN


def threads_reconcile(*, now: dt.datetime | None = None) -> int:
    """Settle what lost workers left of threads: stale sending items become unknown, due
    unknown items are read back, and published targets whose next item is pending and due
    are handed over again. Returns the items checked or handed over."""
    now = now or timezone.now()
    stale = ThreadItem.objects.filter(
        state=ThreadItemState.SENDING, started_at__lt=now - dt.timedelta(seconds=settings.DISPATCH_STALE_SECONDS)
    )
    for item_id in list(stale.values_list("pk", flat=True)[:BATCH]):
        item_lost(item_id=item_id, now=now)
    with transaction.atomic():
        due = list(
            ThreadItem.objects.select_for_update(skip_locked=True)
            .filter(state=ThreadItemState.UNKNOWN, next_check_at__lte=now)
            .order_by("next_check_at")
            .values_list("pk", flat=True)[:BATCH]
        )
        # A lease: a parallel run skips these while this one asks the platforms.
        lease = dt.timedelta(seconds=settings.RECONCILE_CHECK_LEASE_SECONDS)
        ThreadItem.objects.filter(pk__in=due).update(next_check_at=now + lease)
    for item_id in due:
        item_check(item_id=item_id, now=now)
    return len(due) + _hand_over_stalled(now)


def _hand_over_stalled(now: dt.datetime) -> int:
    """Hand over the threads whose next item waits with no worker on it: the target published,
    every earlier item published, and the item's lease (or, never leased, the target's
    publication) older than a hand-over's lease."""
    earlier_open = ThreadItem.objects.filter(
        target_id=OuterRef("target_id"), position__lt=OuterRef("position")
    ).exclude(state=ThreadItemState.PUBLISHED)
    due = Q(next_check_at__lte=now) | Q(next_check_at__isnull=True, target__published_at__lt=now - _hand_over_lease())
    stalled = (
        ThreadItem.objects.filter(due, state=ThreadItemState.PENDING, target__state=TargetState.PUBLISHED)
        .filter(~Exists(earlier_open))
        .values_list("target_id", flat=True)[:BATCH]
    )
    handed = 0
    for target_id in list(stalled):
        handed += thread_hand_over(target_id=target_id, now=now)
    return handed
