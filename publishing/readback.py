"""Settling what is open (DESIGN §4.4, §4.6): `reconcile` (the control lane, every few
seconds) turns attempts left `sending` by a lost worker into unknown, puts back jobs whose
worker was lost before sending, and hands each processing or unknown unit that is due to the
uploads lane, where `check` reads it back from its platform, by its saved ref or among the
account's recent posts (for a delete: whether the post is gone), never sending it again blind;
what the read-back learned is recorded by `publishing.delivery.check_record`."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.platforms.base import Connection, Outcome, OutcomeKind, PlatformClient
from accounts.services import platform_call
from config import broker
from config.celery import app
from config.jobs import stale
from publishing import delivery, policy, removals, sending
from publishing.handover import send_after_commit
from publishing.models import (
    AttemptState,
    DeliveryAttempt,
    DeliveryJob,
    Id,
    JobState,
    Target,
    TargetState,
    ThreadItem,
    ThreadItemKind,
    ThreadItemState,
)

logger = logging.getLogger(__name__)

BATCH = 200


def _stale_after() -> dt.timedelta:
    # No live worker can still be inside a call past the deliver task's hard time limit.
    return dt.timedelta(seconds=settings.DISPATCH_STALE_SECONDS)


def reconcile(*, now: dt.datetime | None = None) -> int:
    """Settle what is open: attempts left in `sending` become unknown, jobs whose worker was
    lost before sending go back to the queue, then processing and unknown units (targets and
    replies) that are due are handed to the `uploads` lane to be read back from their platform
    (`check`, one task each: a read-back waits on the platform, and a run of them must not
    hold the control lane). Returns the read-backs handed over or made."""
    now = now or timezone.now()
    # Lost workers' rows (config.jobs.stale), each settled by its unit's own rules: an
    # attempt left sending may have reached the platform, so it is read back, never re-sent.
    attempts, after = DeliveryAttempt.objects.all(), _stale_after()
    unanswered = stale(attempts, state=AttemptState.SENDING, older_than=after, now=now, since_field="started_at")
    for attempt_id in list(unanswered.values_list("pk", flat=True)[:BATCH]):
        delivery.attempt_lost(attempt_id=attempt_id)
    abandoned = stale(DeliveryJob.objects.all(), state=JobState.RUNNING, older_than=after, now=now)
    for job_id in list(abandoned.values_list("pk", flat=True)[:BATCH]):
        delivery.job_recover(job_id=job_id)
    targets = _due_checks(Target.objects.filter(state__in=(TargetState.PROCESSING, TargetState.UNKNOWN)), now)
    items = _due_checks(ThreadItem.objects.filter(state=ThreadItemState.UNKNOWN), now)
    due: list[tuple[Id, Id | None]] = [(target_id, None) for target_id in targets]
    due += list(ThreadItem.objects.filter(pk__in=items).values_list("target_id", "pk"))
    _hand_over_checks(due, now=now)
    return len(due)


def _due_checks(open_units: QuerySet[Any], now: dt.datetime) -> list[Id]:
    """The ids of the open units whose read-back is due, leased (SKIP LOCKED), so that a
    parallel run skips them while this one asks the platforms."""
    with transaction.atomic():
        due = list(
            open_units.select_for_update(skip_locked=True)
            .filter(next_check_at__lte=now)
            .order_by("next_check_at")
            .values_list("pk", flat=True)[:BATCH]
        )
        lease = dt.timedelta(seconds=settings.RECONCILE_CHECK_LEASE_SECONDS)
        open_units.model.objects.filter(pk__in=due).update(next_check_at=now + lease)
    return due


def _hand_over_checks(units: Sequence[tuple[Id, Id | None]], *, now: dt.datetime) -> None:
    """Send one `publishing.check` message per unit (target id, item id or None), in one round
    trip; in eager mode (tests, tools) each is checked here, as of `now`. When the broker
    refuses, the units' lease is taken off, so the next run hands them over again."""
    from publishing.tasks import check as check_task

    if not units:
        return
    if app.conf.task_always_eager:
        for target_id, item_id in units:
            check(target_id=target_id, item_id=item_id, now=now)
        return
    calls: list[broker.Call] = [
        (f"check:{item_id or target_id}:{now.timestamp():.3f}", (str(target_id), *([str(item_id)] if item_id else [])))
        for target_id, item_id in units
    ]
    try:
        broker.send(app, check_task, calls, timeout=settings.CELERY_BROKER_CONNECTION_TIMEOUT)
    except Exception:  # noqa: BLE001 - any broker failure: the next run hands them over
        logger.warning("The broker did not take %d read-backs; handed over at the next run", len(calls))
        for model, ids in ((Target, [t for t, i in units if i is None]), (ThreadItem, [i for _, i in units if i])):
            model.objects.filter(pk__in=ids, next_check_at__gt=now).update(next_check_at=now)


def check(*, target_id: Id, item_id: Id | None = None, now: dt.datetime | None = None) -> None:
    """Ask the platform about one open unit (the target, or its thread item `item_id`): by its
    saved ref (container, upload, record key) when there is one, otherwise among the
    account's recent posts; then record what it said and hand over what that wrote."""
    target = Target.objects.select_related("account", "publish__team").get(pk=target_id)
    item = None if item_id is None else ThreadItem.objects.get(pk=item_id)
    attempt = delivery.last_attempt(target if item is None else item)
    if attempt is None:
        return

    removed = removals.deleted_post(target, item) if item is not None and item.kind == ThreadItemKind.REMOVAL else None

    def ask(client: PlatformClient, conn: Connection) -> Outcome:
        if removed is not None:  # a delete: done when the post is gone
            return removals.read_back(client, conn, removed)
        outcome = client.check(conn, attempt.ref) if attempt.ref else None
        if outcome is None or outcome.error_code == policy.NO_REF:  # the ref cannot settle it
            since = (attempt.started_at or attempt.created_at) - dt.timedelta(minutes=1)
            outcome = client.find_recent(conn, sending.post_of(target, item), since)
        return outcome

    try:
        outcome = platform_call(account=target.account, call=ask)
    except Exception:
        logger.exception("Checking %s of target %s failed; it is asked again later", item_id or "the post", target.pk)
        outcome = Outcome(OutcomeKind.UNKNOWN, error_code="CHECK_FAILED")
    follows = delivery.check_record(target_id=target.pk, item_id=item_id, outcome=outcome, now=now)
    send_after_commit(follows, quietly=True)  # refused: the relay sends them
