"""The worker side of publishing: handing outbox jobs to the broker, sending a unit (a
target's post, or a reply of its thread) to its platform, releasing due scheduled publishes,
relaying jobs the broker never took, and reconciling units whose outcome is still open
(DESIGN §4.3, §4.4, §4.6).

Written jobs reach the broker through `send_after_commit`, once the transaction that wrote
them has committed: a publish transition hands over the jobs it wrote itself
(`publishing.lifecycle`), the scheduler's release, the relay and the worker's answers (the next
reply of a thread, `publishing.threads`) theirs here. Nothing that
calls a transition has a step to add after it.

A delivery never makes a fitted rendition: one whose post needs a rendition not made yet
gives its claim back and hands the making to the media lane (`media.fit`), which hands the job
over again when it is made or failed (`publishing.renditions`, `media.fitting`).

Uniqueness lives in PostgreSQL, not in the broker: a job is claimed with a compare-and-set
(`UPDATE ... WHERE state = 'pending'`), so a duplicate message, a redelivery after a lost
worker or a double relay does nothing. The broker is never called inside a transaction. The
claim, the selection of lost workers' rows and the hand-over by lane are `config.jobs`', which
webhook deliveries share.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import operator
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from django.conf import settings
from django.db import transaction
from django.db.models import F, Max, Q, QuerySet
from django.db.models.functions import Trunc
from django.utils import timezone

from accounts import pacing
from accounts.models import AccountStatus
from accounts.platforms.base import Connection, Outcome, OutcomeKind, PlatformClient, Post
from accounts.platforms.registry import NoClient
from accounts.services import account_publish, platform_call
from config import broker, dbpool
from config.celery import app
from config.errors import InvalidRequest
from config.jobs import Message, claim, hand_over, stale
from media.models import MediaUpload
from publishing import delivery, hotpath, outbox, policy, renditions, threads, validation
from publishing.models import (
    AttemptState,
    DeliveryAttempt,
    DeliveryJob,
    Id,
    JobState,
    ScheduledRelease,
    Target,
    TargetState,
    ThreadItem,
    ThreadItemState,
)
from publishing.transitions import JOB_SOURCES, move_jobs

logger = logging.getLogger(__name__)

# A job the broker took but no worker claimed within this time is sent again (harmless:
# the claim is a compare-and-set).
RELAY_AFTER = dt.timedelta(seconds=settings.DISPATCH_RELAY_AFTER_SECONDS)
BATCH = 200
# Jobs (relay) and publishes (release) handed over per transaction and broker round trip, and
# how long one run of either goes on before leaving the rest to the next tick (well inside the
# tasks' 50 s soft time limit).
RELAY_BATCH = 1000
RELEASE_BATCH = 250
RELAY_BUDGET_SECONDS = 30.0
RELEASE_BUDGET_SECONDS = 30.0
NO_REF = policy.NO_REF


class DispatchUncertain(Exception):
    """The broker did not take the jobs; they stay pending and the relay will send them."""


# --- to the broker ----------------------------------------------------------------------------


class _Job(NamedTuple):
    """What handing a job over needs: its id, its message's task id, its claim count, the
    enqueued mark it was written with (None: it is marked once the broker took it), and its
    lane (the queue its message goes on)."""

    pk: str
    dispatch_id: str
    runs: int
    marked: dt.datetime | None = None
    lane: str = outbox.DISPATCH


def _jobs_of(jobs: Iterable[DeliveryJob | Id]) -> list[_Job]:
    """Job instances as they are (no query); ids looked up in one SELECT."""
    found: list[_Job] = []
    ids: list[str] = []
    for job in jobs:
        if isinstance(job, DeliveryJob):
            marked = None if "enqueued_at" in job.get_deferred_fields() else job.enqueued_at
            found.append(_Job(str(job.pk), job.dispatch_id, job.runs, marked, job.lane))
        else:
            ids.append(str(job))
    if ids:
        rows = DeliveryJob.objects.filter(pk__in=ids).values_list("pk", "dispatch_id", "runs", "lane")
        found += [_Job(str(pk), dispatch_id, runs, None, lane) for pk, dispatch_id, runs, lane in rows]
    return found


def _hand_over(found: Sequence[_Job]) -> None:
    """Send one `deliver` message per job on its lane's queue, each lane's in one round trip
    (`config.jobs.hand_over`; in eager mode each task runs here instead)."""
    from publishing.tasks import deliver

    hand_over(deliver, [Message(job.dispatch_id, (job.pk,), job.lane) for job in found])


def _group(jobs: Sequence[_Job], key: Callable[[_Job], Any]) -> dict[Any, list[str]]:
    """The ids of `jobs` by `key`."""
    groups: dict[Any, list[str]] = defaultdict(list)
    for job in jobs:
        groups[key(job)].append(job.pk)
    return groups


def _mark_enqueued(jobs: Sequence[_Job]) -> None:
    """One UPDATE: the jobs the broker took are enqueued now, unless a worker ran one
    meanwhile (its `runs` moved on, or it is no longer pending): that one is the relay's to
    send again when due."""
    by_runs = _group(jobs, key=lambda job: job.runs)
    if not by_runs:
        return
    taken = functools.reduce(operator.or_, (Q(pk__in=ids, runs=runs) for runs, ids in by_runs.items()))
    DeliveryJob.objects.filter(taken, state=JobState.PENDING).update(enqueued_at=timezone.now())


def send_jobs(jobs: Iterable[DeliveryJob | Id]) -> None:
    """Hand jobs to the broker in one go over a pooled connection; raise DispatchUncertain
    when it fails. DeliveryJob instances are used as they are, ids are looked up.

    A job is marked enqueued (one UPDATE) once the broker took its message, unless it was
    written with its mark already (a create's jobs, which `lifecycle.publish_create` hands
    over right after their commit: no second write). When the broker refuses, the jobs are
    left unmarked, so the relay sends them at its next run. A process that dies between a
    create's commit and its hand-over leaves marked jobs, which the relay sends once the mark
    is RELAY_AFTER old."""
    found = _jobs_of(jobs)
    if not found:
        return
    try:
        _hand_over(found)
        _mark_enqueued([job for job in found if job.marked is None])
    except Exception as exc:  # any broker failure: connection refused, timeout, full disk
        logger.warning("The broker did not take %d delivery jobs: %s", len(found), type(exc).__name__)
        _refused(found)
        raise DispatchUncertain(str(exc)) from exc


def _refused(jobs: Sequence[_Job]) -> None:
    """Record the refusal of jobs still pending and unmarked (or carrying the mark they were
    written with), and take that mark off: only a confirm repeated after this refusal hands
    them over again; a confirm racing the first one's hand-over finds nothing refused and is
    a 422. A job some relay marked meanwhile is left to it."""
    unmarked = Q(enqueued_at__isnull=True)
    for marked, ids in _group(jobs, key=lambda job: job.marked).items():
        if marked is not None:
            unmarked |= Q(pk__in=ids, enqueued_at=marked)
    DeliveryJob.objects.filter(unmarked, pk__in=[job.pk for job in jobs], state=JobState.PENDING).update(
        refused_at=timezone.now(), enqueued_at=None
    )


def send_after_commit(jobs: Iterable[DeliveryJob], *, quietly: bool = False) -> bool:
    """The one hand-over of written jobs to the broker, called once the transaction that
    wrote them has committed (never inside it: a worker could claim a job not yet visible, or
    one then rolled back): by the publish transition that wrote them (`publishing.lifecycle`),
    the scheduler's release and the relay. True when the broker took them. When it refuses,
    the jobs stay pending for the relay and DispatchUncertain is raised (a create or a confirm
    answers 503 with the publish's id), unless `quietly` (for callers with no one to tell):
    then False."""
    try:
        send_jobs(jobs)
    except DispatchUncertain:
        if not quietly:
            raise
        return False
    return True


def _relay_batch(now: dt.datetime, after: tuple[dt.datetime, str] | None) -> list[DeliveryJob]:
    """Lock and mark a batch of due jobs (SKIP LOCKED), in `not_before` order past `after`."""
    due = (
        DeliveryJob.objects.select_for_update(skip_locked=True)
        .filter(state=JobState.PENDING, not_before__lte=now)
        .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=now - RELAY_AFTER))
    )
    if after is not None:
        due = due.filter(Q(not_before__gt=after[0]) | Q(not_before=after[0], pk__gt=after[1]))
    with transaction.atomic():
        jobs = list(
            due.order_by("not_before", "pk").only("pk", "dispatch_id", "runs", "not_before", "lane")[:RELAY_BATCH]
        )
        # Mark them taken for now so a parallel relay skips them; send_jobs sets the real time.
        DeliveryJob.objects.filter(pk__in=[job.pk for job in jobs]).update(enqueued_at=now)
    return jobs


def relay(*, now: dt.datetime | None = None) -> int:
    """Send due pending jobs the broker never took, or took long ago without a worker
    claiming them, batch after batch until none is left or the time budget is spent. Rows
    are claimed with SKIP LOCKED so concurrent relays share the work; each batch goes to the
    broker in one hand-over. Returns the jobs handed over."""
    now = now or timezone.now()
    deadline = time.monotonic() + RELAY_BUDGET_SECONDS
    sent, after = 0, None
    while time.monotonic() < deadline:
        jobs = _relay_batch(now, after)
        if not jobs:
            break
        if not send_after_commit(jobs, quietly=True):
            ids = [job.pk for job in jobs]
            DeliveryJob.objects.filter(pk__in=ids, state=JobState.PENDING, enqueued_at=now).update(enqueued_at=None)
            break
        sent += len(jobs)
        if len(jobs) < RELAY_BATCH:
            break
        after = (jobs[-1].not_before, str(jobs[-1].pk))  # each job at most once a run
    return sent


# --- sending a target ------------------------------------------------------------------------


def _claim(job_id: str) -> tuple[DeliveryJob, bool] | None:
    """The job, claimed by compare-and-set, with its target, account and publish (and its
    thread item, for a reply), and whether a thread may follow its post (its target has thread
    items; through the ORM, its platform takes threads: the answer then looks); None when it
    is not pending and due (another message for it ran, or it waits out a pause)."""
    now = timezone.now()
    if hotpath.enabled():
        return hotpath.claim(job_id, now)
    changes = {"claimed_at": now, "runs": F("runs") + 1}
    running, sources = JobState.RUNNING, JOB_SOURCES[JobState.RUNNING]  # the move the table declares
    if not claim(
        DeliveryJob, job_id, from_state=sources, to_state=running, due_field="not_before", now=now, changes=changes
    ):
        return None
    job = DeliveryJob.objects.select_related("target__account", "target__publish__team", "item").get(pk=job_id)
    return job, job.target.platform in validation.THREAD_PLATFORMS


def _post_and_uploads(target: Target) -> tuple[Post, Mapping[str, MediaUpload]]:
    publish = target.publish
    text = publish.content if target.content is None else target.content
    media_ids = list(publish.media_ids if target.media_ids is None else target.media_ids)
    uploads = validation.uploads_by_id(team=publish.team, media_ids=media_ids)
    post = validation.effective_post(
        account=target.account, text=text, media_ids=media_ids, settings=target.platform_settings, uploads=uploads
    )
    return post, uploads


def _post_of(target: Target, item: ThreadItem | None) -> Post:
    """What a unit sends: the target's post, or the reply that is its thread item."""
    return _post_and_uploads(target)[0] if item is None else threads.reply_post(target, item)


def _prepared(job: DeliveryJob, *, since: dt.datetime) -> tuple[Post, dict[str, Any]] | Outcome | renditions.Missing:
    """The post to send, with renditions standing in for the files its platform cannot take
    as they are, and the record of what is sent (the attempt's request, naming each file);
    the renditions still to make, when some are; a FAILED outcome instead when nothing can be
    sent: the media is gone, or a rendition cannot be made (its fit failed since `since`)."""
    target = job.target
    try:
        post = _post_of(target, job.item if job.item_id is not None else None)
    except InvalidRequest as exc:
        return Outcome(OutcomeKind.FAILED, error_code=exc.code, error_message=exc.message)
    fitted = renditions.fitted(target.platform, post, since=since)
    if isinstance(fitted, Outcome | renditions.Missing):
        return fitted
    post = renditions.with_renditions(post, fitted)
    request: dict[str, Any] = {
        "text": post.text,
        "media_ids": [m.id for m in post.media],
        "platform_settings": dict(post.settings),
    }
    if post.media:
        request["media"] = renditions.sent_record(post)
    return post, request


def _save_ref(attempt: DeliveryAttempt) -> Any:
    saved: dict[str, str] = dict(attempt.ref)

    def save(ref: Mapping[str, str]) -> None:
        # Autocommit: stored before the call that could create the post. The connection goes
        # back to the pool at once: the next call to the platform is waited for without it.
        saved.update(ref)
        DeliveryAttempt.objects.filter(pk=attempt.pk).update(ref=dict(saved))
        dbpool.release()
        attempt.ref = dict(saved)  # what attempt_finish merges the answer's ref into

    return save


def _refusal(target: Target) -> Outcome | None:
    """A reason not to call the platform at all: a definitive failure, nothing sent."""
    account = target.account
    if account.status != AccountStatus.ACTIVE:
        return Outcome(
            OutcomeKind.FAILED,
            error_code=f"ACCOUNT_{account.status.upper()}",
            error_message=f"The account is {account.status}; re-authorize it in the dashboard, then retry.",
        )
    return None


def job_run(*, job_id: str) -> None:
    """Send one unit (a target's post, or a reply of its thread): claim the job, record
    `sending` (committed), call the platform once, record the answer, hand over what follows
    in its thread. A second message for the same job finds it claimed and stops."""
    claimed = _claim(job_id)
    if claimed is None:
        return
    job, has_thread = claimed
    account, publish = job.target.account, job.target.publish
    # Read once; a queued target's post no longer changes. A fit failed since the job was
    # written fails it; one older (another publish's, before a retry) is asked for again.
    prepared = _prepared(job, since=job.created_at)
    if isinstance(prepared, renditions.Missing):
        _wait_for_renditions(job, prepared)
        return
    if isinstance(prepared, tuple) and account.status == AccountStatus.ACTIVE:  # a post will go out
        wait = pacing.turn(account_id=account.pk, platform=account.platform)
        if wait > 0:
            _wait_for_turn(job, wait)
            return
    attempt = delivery.attempt_start(job=job)
    if attempt is None:
        move_jobs(DeliveryJob.objects.filter(pk=job.pk), JobState.DONE)
        return
    target = job.target
    # Read by the claim a moment ago; a queued target's publish and content no longer change.
    target.account, target.publish = account, publish
    request: dict[str, Any] = {}
    try:
        refusal = _refusal(target)
        if refusal is not None:
            outcome = refusal
        elif isinstance(prepared, Outcome):  # nothing can be sent: nothing was
            outcome = prepared
        else:
            post, request = prepared
            outcome = _call(target, attempt, post)  # holding no database connection (platform_call)
    except Exception as exc:
        if isinstance(exc, InvalidRequest):  # refused before any call (a sandbox account in production)
            outcome = Outcome(OutcomeKind.FAILED, error_code=exc.code, error_message=exc.message)
        else:
            logger.exception("Sending %s raised; its outcome is unknown", job.dispatch_id)
            outcome = Outcome(OutcomeKind.UNKNOWN, error_code="CLIENT_ERROR", error_message=type(exc).__name__)
    follows = delivery.attempt_finish(attempt=attempt, outcome=outcome, request=request, thread=has_thread)
    send_after_commit(follows, quietly=True)  # refused: the relay sends them


def _wait_for_turn(job: DeliveryJob, wait: float) -> None:
    """Give the claim back (the job is pending again, its run not counted) until the account
    may post again (accounts.pacing): the relay sends it once that time has come."""
    now = timezone.now()
    back = DeliveryJob.objects.filter(pk=job.pk)
    later = now + dt.timedelta(seconds=wait)
    move_jobs(back, JobState.PENDING, runs=F("runs") - 1, not_before=later, enqueued_at=None, updated_at=now)


def _wait_for_renditions(job: DeliveryJob, missing: renditions.Missing) -> None:
    """Give the claim back (the job is pending again, its run not counted) and hand the making
    of the missing renditions to the media lane, which hands the job over again once they are
    made or one failed: a transcode never holds a dispatch thread. Should that message be
    lost, the relay sends the job again (its mark is now), and a fit already under way is
    waited for, not made twice (`media.fitting`)."""
    from publishing.tasks import deliver

    now = timezone.now()
    back = DeliveryJob.objects.filter(pk=job.pk)
    if not move_jobs(back, JobState.PENDING, runs=F("runs") - 1, enqueued_at=now, updated_at=now):
        return
    then = {"task": deliver.name, "args": [str(job.pk)]}
    if not renditions.hand_over(missing, then=then, since=job.created_at):
        back.filter(state=JobState.PENDING, enqueued_at=now).update(enqueued_at=None)  # the relay's next run


def _call(target: Target, attempt: DeliveryAttempt, post: Post) -> Outcome:
    try:
        return account_publish(account=target.account, post=post, save_ref=_save_ref(attempt))
    except NoClient:
        return Outcome(OutcomeKind.FAILED, error_code="PLATFORM_UNSUPPORTED", error_message=target.platform)


# --- scheduling -------------------------------------------------------------------------------


def release_due(*, now: dt.datetime | None = None, on_backlog: Callable[[], None] | None = None) -> int:
    """Release every scheduled publish due at `now`, RELEASE_BATCH publishes a transaction
    (`outbox.publishes_release_due`: SKIP LOCKED, so two runs never release one publish),
    each batch's jobs handed to the broker in one go after its commit; jobs the broker refuses
    stay pending for the relay (after one refusal the run stops trying and leaves the later
    batches' jobs to it too). `on_backlog` is called once when the first batch was full (more
    is due than one batch), so that the caller can ask for help. Stops when nothing due is
    left free or the time budget is spent (the next tick goes on). Returns the publishes
    released."""
    now = now or timezone.now()
    deadline = time.monotonic() + RELEASE_BUDGET_SECONDS
    released, refused = 0, False
    while time.monotonic() < deadline:
        locked, jobs = outbox.publishes_release_due(now=now, limit=RELEASE_BATCH)
        if locked == RELEASE_BATCH and released == 0 and on_backlog is not None:
            on_backlog()
        released += locked
        if not refused:
            refused = not send_after_commit(jobs, quietly=True)
        if locked < RELEASE_BATCH:
            break
    return released


def release_moments(*, after: dt.datetime, within: dt.timedelta) -> list[dt.datetime]:
    """When to run a release so that publishes due after `after` and no later than `after +
    within` go out on time rather than at the next tick: the latest due time within each
    second that has any (a run releases everything due by its moment, so a publish is released
    less than a second after its due time, on the dot when a second's publishes share one)."""
    second = Trunc("due_at", "second", tzinfo=dt.UTC)
    rows = (
        ScheduledRelease.objects.filter(due_at__gt=after, due_at__lte=after + within)
        .annotate(second=second)
        .values("second")
        .annotate(last=Max("due_at"))
        .order_by("second")
    )
    return [row["last"] for row in rows]


# --- reconciliation ---------------------------------------------------------------------------


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

    def ask(client: PlatformClient, conn: Connection) -> Outcome:
        outcome = client.check(conn, attempt.ref) if attempt.ref else None
        if outcome is None or outcome.error_code == NO_REF:  # the ref cannot settle it
            since = (attempt.started_at or attempt.created_at) - dt.timedelta(minutes=1)
            outcome = client.find_recent(conn, _post_of(target, item), since)
        return outcome

    try:
        outcome = platform_call(account=target.account, call=ask)
    except Exception:
        logger.exception("Checking %s of target %s failed; it is asked again later", item_id or "the post", target.pk)
        outcome = Outcome(OutcomeKind.UNKNOWN, error_code="CHECK_FAILED")
    follows = delivery.check_record(target_id=target.pk, item_id=item_id, outcome=outcome, now=now)
    send_after_commit(follows, quietly=True)  # refused: the relay sends them
