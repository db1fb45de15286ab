"""The worker's path for one unit sent to a platform once (a target's post, a reply of its
thread, or the deletion of one of them), run by the `deliver` task on the dispatch and uploads
lanes (DESIGN §4.3): claim the job (compare-and-set, `config.jobs.claim` or the fixed
statement of `publishing.statements`), prepare the post (renditions for refused files, made on
the media lane without a claim held), wait for the account's turn (`accounts.pacing`), record
`sending` (committed), call the platform once through `accounts.services` holding no database
connection, record the answer (`publishing.delivery`), and hand over what follows in its
thread. A delete (`publishing.removals`) skips the preparing and the posting turn. A second message for the
same job finds it claimed and stops: uniqueness lives in PostgreSQL, not in the broker."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping
from typing import Any

from django.db.models import F
from django.utils import timezone

from accounts import pacing
from accounts.models import AccountStatus
from accounts.platforms.base import Outcome, OutcomeKind, Post
from accounts.platforms.registry import NoClient
from accounts.services import account_publish
from config import dbpool
from config.errors import InvalidRequest
from config.jobs import claim
from media.models import MediaUpload
from publishing import delivery, removals, renditions, statements, threads, validation
from publishing.handover import send_after_commit
from publishing.models import (
    DeliveryAttempt,
    DeliveryJob,
    JobState,
    Target,
    ThreadItem,
    ThreadItemKind,
)
from publishing.transitions import JOB_SOURCES, move_jobs

logger = logging.getLogger(__name__)


def _claim(job_id: str) -> tuple[DeliveryJob, bool] | None:
    """The job, claimed by compare-and-set, with its target, account and publish (and its
    thread item, for a reply), and whether a thread may follow its post (its target has thread
    items; through the ORM, it is an item, or its platform takes threads, or it asks for a
    first comment: the answer then looks); None when it is not pending and due (another
    message for it ran, or it waits out a pause)."""
    now = timezone.now()
    if statements.enabled():
        return statements.claim(job_id, now)
    changes = {"claimed_at": now, "runs": F("runs") + 1}
    running, sources = JobState.RUNNING, JOB_SOURCES[JobState.RUNNING]  # the move the table declares
    if not claim(
        DeliveryJob, job_id, from_state=sources, to_state=running, due_field="not_before", now=now, changes=changes
    ):
        return None
    job = DeliveryJob.objects.select_related("target__account", "target__publish__team", "item").get(pk=job_id)
    target = job.target
    follows = job.item_id is not None or target.platform in validation.THREAD_PLATFORMS
    return job, follows or bool(target.platform_settings.get("first_comment"))


def _post_and_uploads(target: Target) -> tuple[Post, Mapping[str, MediaUpload]]:
    publish = target.publish
    text = publish.content if target.content is None else target.content
    media_ids = list(publish.media_ids if target.media_ids is None else target.media_ids)
    uploads = validation.uploads_by_id(team=publish.team, media_ids=media_ids)
    post = validation.effective_post(
        account=target.account, text=text, media_ids=media_ids, settings=target.platform_settings, uploads=uploads
    )
    return post, uploads


def post_of(target: Target, item: ThreadItem | None) -> Post:
    """What a unit sends: the target's post, or the reply that is its thread item."""
    return _post_and_uploads(target)[0] if item is None else threads.reply_post(target, item)


def _prepared(job: DeliveryJob, *, since: dt.datetime) -> tuple[Post, dict[str, Any]] | Outcome | renditions.Missing:
    """The post to send, with renditions standing in for the files its platform cannot take
    as they are, and the record of what is sent (the attempt's request, naming each file);
    the renditions still to make, when some are; a FAILED outcome instead when nothing can be
    sent: the media is gone, or a rendition cannot be made (its fit failed since `since`)."""
    target = job.target
    try:
        post = post_of(target, job.item if job.item_id is not None else None)
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


RECONNECT = "connect it again (the same account keeps its history)"


def _refusal(target: Target) -> Outcome | None:
    """A reason not to call the platform at all: a definitive failure, nothing sent."""
    account = target.account
    if account.status != AccountStatus.ACTIVE:
        then = RECONNECT if account.status == AccountStatus.DISCONNECTED else "re-authorize it in the dashboard"
        return Outcome(
            OutcomeKind.FAILED,
            error_code=f"ACCOUNT_{account.status.upper()}",
            error_message=f"The account is {account.status}; {then}, then retry.",
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
    removal = job.item if job.item is not None and job.item.kind == ThreadItemKind.REMOVAL else None
    prepared: tuple[Post, dict[str, Any]] | Outcome | renditions.Missing | removals.Deleted
    if removal is not None:  # a delete: nothing to prepare, and it takes no posting turn
        prepared = removals.deleted_post(job.target, removal)
    else:
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
        elif isinstance(prepared, removals.Deleted):
            request = {"delete": prepared.post_id}
            outcome = removals.delete(target, prepared)  # holding no database connection
        else:
            post, request = prepared
            outcome = _call(target, attempt, post)  # holding no database connection (platform_call)
    except Exception as exc:
        if isinstance(exc, InvalidRequest):  # refused before any call (a sandbox account in production)
            outcome = Outcome(OutcomeKind.FAILED, error_code=exc.code, error_message=exc.message)
        else:
            logger.exception("Sending %s raised %s; its outcome is unknown", job.dispatch_id, type(exc).__name__)
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
