"""Adding a publish to the queue: it is scheduled at the first posting-schedule slot, a minute
away or more, that every one of its accounts has and has free.

A slot is free for an account when no scheduled publish to that account goes at that instant
(`publishing.selectors.scheduled_instants_by_account`). Two creates racing for one slot are
kept apart by `QueueSlot`'s unique (account, instant): the second one's insert waits for the
first's commit, fails, and it moves on to the next slot. A row whose publish has left the slot
(an edit that dropped the account, say) is reclaimed by the next create that wants the slot.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef

from accounts.models import PostingSchedule, SocialAccount
from accounts.schedules import is_slot_instant, slot_instants
from config.errors import Conflict, InvalidRequest
from publishing.models import Publish, QueueSlot, Target, TargetState
from publishing.selectors import scheduled_instants_by_account

# A queued publish is never due sooner than this, so it can still be edited or moved.
LEAD = dt.timedelta(seconds=60)
# How far ahead a slot shared by every account is looked for.
HORIZON_WEEKS = 53
# Slots tried before a create gives up to concurrent ones (each failure means another create
# took that slot, so this many in a row is a queue under heavy contention).
_ATTEMPTS = 25


def first_free_slot(
    *,
    accounts: Sequence[SocialAccount],
    now: dt.datetime,
    skip: Collection[dt.datetime] = (),
    reserved: Mapping[Any, Collection[dt.datetime]] | None = None,
) -> dt.datetime:
    """The first slot instant at or after `now + LEAD` that every account has free (not in
    `skip`, nor in its `reserved` instants, by account id as a string). 400 NO_QUEUE_SLOTS naming an
    account that has no slots, or when no instant in the next year suits them all."""
    schedules = {s.account_id: s for s in PostingSchedule.objects.filter(account__in=accounts)}
    for account in accounts:
        schedule = schedules.get(account.pk)
        if schedule is None or not schedule.slots:
            raise InvalidRequest(
                f"{account} has no posting schedule slots; set them, or pick a time with scheduled_at.",
                code="NO_QUEUE_SLOTS",
                details={"field": "publish_mode", "account_id": str(account.pk)},
            )
    start = now + LEAD
    taken = scheduled_instants_by_account(accounts=accounts, start=start)
    driver = min(accounts, key=lambda account: len(schedules[account.pk].slots))
    for instant in slot_instants(schedules[driver.pk], start=start, weeks=HORIZON_WEEKS):
        if instant in skip:
            continue
        if all(
            instant not in taken.get(account.pk, ())
            and instant not in (reserved or {}).get(str(account.pk), ())
            and is_slot_instant(schedules[account.pk], instant)
            for account in accounts
        ):
            return instant
    raise InvalidRequest(
        "No posting schedule slot in the next year is free for every account of this publish.",
        code="NO_QUEUE_SLOTS",
        details={"field": "publish_mode", "account_ids": [str(account.pk) for account in accounts]},
    )


def take_slot(*, publish: Publish, accounts: Sequence[SocialAccount], now: dt.datetime) -> dt.datetime:
    """Hold the first free slot for `publish` (which may not be saved yet) and return its
    instant; call it inside the transaction that saves the publish at that time."""
    skip: set[dt.datetime] = set()
    for _ in range(_ATTEMPTS):
        instant = first_free_slot(accounts=accounts, now=now, skip=skip)
        rows = [QueueSlot(account=account, instant=instant, publish=publish) for account in accounts]
        try:
            with transaction.atomic():
                QueueSlot.objects.bulk_create(rows)
        except IntegrityError:
            if not _reclaimed(accounts, instant):
                skip.add(instant)
            continue
        return instant
    raise Conflict("Other requests took every slot this publish tried; add it to the queue again.", code="QUEUE_BUSY")


def free_slots(publish: Publish) -> None:
    """The publish leaves its slots (rescheduled, unscheduled or rejected)."""
    QueueSlot.objects.filter(publish=publish).delete()


def _reclaimed(accounts: Sequence[SocialAccount], instant: dt.datetime) -> bool:
    """Delete the rows at `instant` of these accounts whose publish no longer goes to that
    account at that instant; whether there were any."""
    still_there = Target.objects.filter(
        account=OuterRef("account"),
        publish=OuterRef("publish"),
        state=TargetState.SCHEDULED,
        publish__scheduled_at=OuterRef("instant"),
    )
    stale = QueueSlot.objects.filter(account__in=accounts, instant=instant).exclude(Exists(still_there))
    deleted, _ = stale.delete()
    return deleted > 0
