"""What releasing a publish writes (DESIGN §4.3, §4.6): its targets queued, each with a new
attempt number and one delivery job (the outbox), or a release row that holds them until
their time; the scheduler's release of the publishes that are due, many at once; and the
purge of jobs long done (their attempts stay, as the evidence of what was sent).

These run inside the transaction of the publish transition that calls them
(`publishing.lifecycle`), under its lock on the publish, and give back the jobs they wrote:
that transition hands them to the broker once its transaction has committed (the scheduler's
release, `release.release_due`, does the same with its batches). Targets move only as
`publishing.transitions` declares.
"""

from __future__ import annotations

import datetime as dt
import time
from collections import defaultdict
from collections.abc import Sequence

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from config.db import purge
from media.models import MediaUpload
from publishing.models import (
    ApprovalStatus,
    DeliveryJob,
    Id,
    JobState,
    Publish,
    PublishStatus,
    ScheduledRelease,
    Target,
    TargetState,
)
from publishing.status import OUTCOME_EVENTS, derive_status, event_data
from publishing.transitions import move_targets
from webhooks.services import emit

# What releasing writes of a target besides its state: a new attempt, no outcome, and what it
# will send (a retry may have edited that in memory just before).
_QUEUED_FIELDS = [
    "attempt_count",
    "error_code",
    "error_message",
    "next_check_at",
    "updated_at",
    "content",
    "media_ids",
    "platform_settings",
    "text_key",
]


def queue(targets: Sequence[Target], *, now: dt.datetime, publish_media: Sequence[str]) -> list[DeliveryJob]:
    """Give `targets` (in memory) a new attempt number each and clear their last outcome; their
    outbox jobs, not yet saved, each in its lane (`lanes`; `publish_media` is what a target
    without media of its own sends). Their state is the caller's to set: a new target is
    written queued, a stored one is moved (`release`)."""
    lane_of = lanes([(target.pk, target.media_ids, publish_media) for target in targets])
    jobs = []
    for target in targets:
        target.attempt_count += 1
        target.error_code = target.error_message = ""
        target.next_check_at = None
        target.updated_at = now
        jobs.append(
            DeliveryJob(
                target=target,
                number=target.attempt_count,
                dispatch_id=f"deliver:{target.pk}:{target.attempt_count}",
                not_before=now,
                lane=lane_of[target.pk],
            )
        )
    return jobs


DISPATCH, UPLOADS = "dispatch", "uploads"


def lanes(targets: Sequence[tuple[Id, Sequence[str] | None, Sequence[str]]]) -> dict[Id, str]:
    """The lane of each (target id, its own media ids or None, its publish's media ids): a post
    with a video goes on `uploads`, where its long upload and processing polls wait among their
    kind, and every other post on `dispatch`, so that a text post never queues behind a video.
    One query when any target sends media, none otherwise."""
    sent = {key: own if own is not None else inherited for key, own, inherited in targets}
    media = {str(media_id) for ids in sent.values() for media_id in ids}
    videos = set()
    if media:
        found = MediaUpload.objects.filter(pk__in=media, content_type__startswith="video/")
        videos = {str(pk) for pk in found.values_list("pk", flat=True)}
    return {key: UPLOADS if videos.intersection(map(str, ids)) else DISPATCH for key, ids in sent.items()}


def release(publish: Publish, targets: Sequence[Target], *, now: dt.datetime) -> list[DeliveryJob]:
    """Queue `targets` for sending: a new attempt number each and one outbox job per target;
    the jobs written, for the calling transition to hand over after its commit."""
    ScheduledRelease.objects.filter(publish=publish).delete()
    jobs = queue(targets, now=now, publish_media=publish.media_ids)
    move_targets(targets, TargetState.QUEUED, fields=_QUEUED_FIELDS)
    publish.released_at = publish.released_at or now
    publish.completed_at = None
    return DeliveryJob.objects.bulk_create(jobs)


def schedule(publish: Publish, due_at: dt.datetime) -> None:
    """Replace the publish's release row: the old job is removed before the new one exists."""
    ScheduledRelease.objects.filter(publish=publish).delete()
    ScheduledRelease.objects.create(publish=publish, due_at=due_at)
    move_targets(publish.targets.all(), TargetState.SCHEDULED, updated_at=timezone.now())


def has_release(publish: Publish) -> bool:
    return ScheduledRelease.objects.filter(publish=publish).exists()


def release_pending() -> Exists:
    """`has_release` as an annotation (`release_pending`), for lists that ask it of every row."""
    return Exists(ScheduledRelease.objects.filter(publish=OuterRef("pk")))


def is_waiting(publish: Publish) -> bool:
    """Whether the publish still waits in the schedule queue, where a submitted publish can
    still be edited, rescheduled or unscheduled: scheduled, and its release row not yet taken
    by the scheduler. A publish read with the `release_pending` annotation is answered
    without a query."""
    if publish.status != PublishStatus.SCHEDULED:
        return False
    pending: bool | None = getattr(publish, "release_pending", None)
    return has_release(publish) if pending is None else pending


def unsent(publish: Publish) -> list[DeliveryJob]:
    """The publish's target jobs that never reached the broker: pending, unmarked and never run (one
    that ran and waits out a pause is the relay's to send when due). A refusal leaves a
    create's jobs so too, their mark taken off (`handover.send_jobs`)."""
    jobs = DeliveryJob.objects.filter(
        target__publish=publish, item=None, state=JobState.PENDING, enqueued_at__isnull=True, runs=0
    )
    return list(jobs.only("pk", "dispatch_id", "runs", "lane"))


def refused_by_broker(publish: Publish) -> bool:
    """True when the hand-over of the publish's jobs failed (a 503) and none of them has been
    taken since: the one case in which confirming a confirmed publish is answered again."""
    return DeliveryJob.objects.filter(
        target__publish=publish,
        item=None,
        state=JobState.PENDING,
        enqueued_at__isnull=True,
        runs=0,
        refused_at__isnull=False,
    ).exists()


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
        .only("pk", "team_id", "status", "released_at", "media_ids", "release__id")[:limit]
    )
    if not due:
        return 0, []
    now = timezone.now()  # the jobs are claimable from the real moment of release
    targets = list(
        Target.objects.filter(publish__in=due).only("pk", "publish_id", "state", "attempt_count", "media_ids")
    )
    # Handed over in due order: the publish due first is sent first.
    position = {publish.pk: n for n, publish in enumerate(due)}
    queued = sorted((t for t in targets if t.state == TargetState.SCHEDULED), key=lambda t: position[t.publish_id])
    media_of = {publish.pk: publish.media_ids for publish in due}
    lane_of = lanes([(t.pk, t.media_ids, media_of[t.publish_id]) for t in queued])
    ScheduledRelease.objects.filter(publish__in=due).delete()
    move_targets(
        Target.objects.filter(pk__in=[t.pk for t in queued]),
        TargetState.QUEUED,
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
            lane=lane_of[t.pk],
        )
        for t in queued
    )
    states: dict[Id, list[str]] = defaultdict(list)
    for target in targets:
        states[target.publish_id].append(TargetState.QUEUED if target.state == TargetState.SCHEDULED else target.state)
    _settle_released(due, states, now=now)
    return len(due), jobs


def _settle_released(due: Sequence[Publish], states: dict[Id, list[str]], *, now: dt.datetime) -> None:
    """Write the status of each released publish, one UPDATE per status; a publish that had no
    scheduled target left moves into its outcome as `status.settle` would move it."""
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
        for publish in publishes:
            if publish.status != status:
                publish.refresh_from_db()
                emit(team=publish.team, event_type=OUTCOME_EVENTS[status], data=event_data(publish))


PURGE_BUDGET_SECONDS = 30.0


def jobs_purge(*, now: dt.datetime | None = None) -> int:
    """Delete done jobs made over DONE_JOB_RETENTION_SECONDS ago, within the time budget; the
    rows deleted. A late duplicate message for a deleted job claims nothing."""
    before = (now or timezone.now()) - dt.timedelta(seconds=settings.DONE_JOB_RETENTION_SECONDS)
    done = DeliveryJob.objects.filter(state=JobState.DONE, created_at__lt=before)
    return purge(done, deadline=time.monotonic() + PURGE_BUDGET_SECONDS)
