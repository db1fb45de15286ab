"""Writes for media uploads: create, receive bytes, fetch from a URL, confirm, clean up.

The upload row is the truth. Bytes arrive by a PUT to a presigned URL or by a fetch task, but
an upload becomes `ready` only through `media_confirm`, which fixes what was actually stored
under a key of its own (`content_key`), checks that, and from then on only that is served.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
from collections.abc import Iterable, Iterator
from functools import partial

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import SuspiciousFileOperation
from django.db import transaction
from django.db.models import F, Q, Sum
from django.utils import timezone
from django.utils.text import get_valid_filename

from config import lanes, outbound
from config.errors import Conflict, InvalidRequest, NotFound, QuotaExceeded, Unprocessable
from media import probing, sniff, storage
from media.models import ALT_TEXT_MAX_LENGTH, FetchStatus, MediaState, MediaUpload, ProbeStatus
from teams.models import Team

logger = logging.getLogger(__name__)

MAX_FETCH_ATTEMPTS = 3


class FetchRefused(Exception):
    """The source server answered, but not with the file."""

    def __init__(self, status: int) -> None:
        self.code = f"HTTP_{status}"
        super().__init__(f"the server answered HTTP {status}")


def clean_filename(filename: str) -> str:
    """The last path component, reduced to safe characters, at most 255 long."""
    base = os.path.basename(filename.replace("\\", "/")).strip()
    try:
        cleaned = get_valid_filename(base)
    except SuspiciousFileOperation:  # names like ".."
        cleaned = ""
    stem, extension = os.path.splitext(cleaned)
    return (stem[: 255 - len(extension)] + extension) if cleaned else "upload"


def storage_used(*, team: Team) -> int:
    """Bytes counted against the team's plan: ready files and uploads still in progress."""
    total = MediaUpload.objects.filter(team=team).aggregate(total=Sum("size_bytes"))["total"]
    return int(total or 0)


def move_to_team(*, source: Team, target: Team) -> dict[str, int]:
    """Give the source team's uploads to `target`, inside the transaction of a team deletion
    (`teams.moves`). Only the owner changes: the bytes stay under their keys, which keep naming
    the team that uploaded them."""
    moved = MediaUpload.objects.filter(team=source).update(team=target, updated_at=timezone.now())
    return {"moved_media": moved}


def _check_storage_quota(*, team: Team, adding: int) -> None:
    limit_gb, limit = team.plan.media_storage_gb, team.plan.media_storage_bytes
    if limit is None:
        return
    used = storage_used(team=team)
    if used + adding > limit:
        raise QuotaExceeded(
            f"The plan allows {limit_gb} GB of media and {used} bytes are used.",
            code="STORAGE_QUOTA_EXCEEDED",
            details={"media_storage_gb": limit_gb, "media_storage_bytes": used, "size_bytes": adding},
        )


def _check_source_url(url: str) -> None:
    try:
        outbound.check_url(url)
    except outbound.OutboundError as exc:
        raise InvalidRequest(f"source_url cannot be fetched: {exc}", code="INVALID_SOURCE_URL") from exc


@transaction.atomic
def media_create(
    *,
    team: Team,
    user: User | None,
    filename: str,
    content_type: str,
    size_bytes: int | None,
    source_url: str = "",
    alt_text: str = "",
) -> MediaUpload:
    """Register an upload. Without source_url the client PUTs the bytes to `upload_url(...)`;
    with it a task fetches them. Either way, confirm follows."""
    if size_bytes is None and not source_url:
        raise InvalidRequest("size_bytes is required unless source_url is given.", code="SIZE_REQUIRED")
    if source_url:
        _check_source_url(source_url)
    alt_text = _checked_alt_text(alt_text)
    Team.objects.select_for_update().filter(pk=team.pk).first()  # serialise quota checks per team
    _check_storage_quota(team=team, adding=size_bytes or 0)
    upload = MediaUpload(
        team=team,
        created_by=user,
        filename=clean_filename(filename),
        content_type=content_type,
        size_bytes=size_bytes,
        source_url=source_url,
        alt_text=alt_text,
        fetch_status=FetchStatus.PENDING if source_url else "",
    )
    upload.storage_key = f"teams/{team.pk}/media/{upload.pk}"
    upload.save()
    if source_url:
        transaction.on_commit(lambda: _enqueue_fetch(upload.pk))
    return upload


def upload_url(upload: MediaUpload) -> tuple[str | None, dict[str, str]]:
    """Where and how to PUT the file; (None, {}) for uploads the service fetches itself."""
    if upload.source_url or upload.size_bytes is None:
        return None, {}
    return storage.presigned_upload(
        key=upload.storage_key, media_id=str(upload.pk), content_type=upload.content_type, size=upload.size_bytes
    )


def _enqueue_fetch(upload_id: object) -> None:
    from media.tasks import fetch_source

    try:
        fetch_source.delay(str(upload_id))
    except Exception:  # the broker is down: the sweeper sends it later
        logger.warning("Could not enqueue the fetch of upload %s; the sweeper will", upload_id, exc_info=True)


def _chunks_capped(body: Iterable[bytes], *, expected: int) -> Iterator[bytes]:
    received = 0
    for chunk in body:
        received += len(chunk)
        if received > expected:
            raise InvalidRequest("The body is larger than the declared size.", code="SIZE_MISMATCH")
        yield chunk


def _already_confirmed() -> Conflict:
    return Conflict("This upload is confirmed: its bytes can no longer be replaced.", code="UPLOAD_ALREADY_CONFIRMED")


def media_receive(*, upload: MediaUpload, content_type: str, content_length: str | None, body: Iterable[bytes]) -> int:
    """Store the body of a PUT to a local upload URL. The URL's signature was checked by the
    caller; here the request must match the declared type and size exactly, as S3 enforces, and
    the upload must still be unconfirmed: confirmed bytes are never replaced (409)."""
    if upload.source_url or upload.size_bytes is None:
        raise NotFound("No upload is waiting for bytes here.")
    if upload.state != MediaState.UNCONFIRMED:
        raise _already_confirmed()
    if content_type.split(";")[0].strip().lower() != upload.content_type:
        raise InvalidRequest(f"Content-Type must be {upload.content_type}.", code="CONTENT_TYPE_MISMATCH")
    if content_length != str(upload.size_bytes):
        raise InvalidRequest(f"Content-Length must be {upload.size_bytes}.", code="SIZE_MISMATCH")
    staged, written = storage.stage(upload.storage_key, _chunks_capped(body, expected=upload.size_bytes))
    try:
        if written != upload.size_bytes:
            raise InvalidRequest("The body ended before the declared size.", code="SIZE_MISMATCH")
        _put_in_place(upload, staged)
    finally:
        storage.delete(staged)  # gone already once it is in place
    return written


@transaction.atomic
def _put_in_place(upload: MediaUpload, staged: str) -> None:
    # The row lock orders this rename with media_confirm's snapshot: the new bytes land before
    # confirm looks at them, or after it has confirmed the upload, and then not at all.
    state = MediaUpload.objects.select_for_update().filter(pk=upload.pk).values_list("state", flat=True).first()
    if state is None:
        raise NotFound("No upload is waiting for bytes here.")
    if state != MediaState.UNCONFIRMED:
        raise _already_confirmed()
    storage.promote(staged, upload.storage_key)


def _check_stored(upload: MediaUpload, key: str) -> sniff.Sniffed:
    """What the bytes under `key` are, or a 422 when they are not what the upload declared."""
    stored_size = storage.size(key)
    if stored_size != upload.size_bytes:
        raise Unprocessable(
            f"The stored file has {stored_size} bytes, not the declared {upload.size_bytes}.",
            code="SIZE_MISMATCH",
            details={"declared": upload.size_bytes, "stored": stored_size},
        )
    try:
        found = sniff.sniff(lambda offset, length: storage.read_range(key, offset, length), stored_size)
    except sniff.Unreadable as exc:
        raise Unprocessable(
            f"The file cannot be read as {upload.content_type}: {exc}.", code="UNRECOGNISED_MEDIA"
        ) from exc
    if found.content_type is None:
        raise Unprocessable("The file is not a PNG, JPEG, WebP, GIF, MP4 or QuickTime file.", code="UNRECOGNISED_MEDIA")
    if found.content_type != upload.content_type:
        raise Unprocessable(
            f"The file is {found.content_type}, not the declared {upload.content_type}.",
            code="CONTENT_TYPE_MISMATCH",
            details={"declared": upload.content_type, "detected": found.content_type},
        )
    return found


def _check_fetched(upload: MediaUpload) -> None:
    if upload.fetch_status in (FetchStatus.PENDING, FetchStatus.FETCHING):
        raise Conflict(
            "The service is still fetching source_url; confirm again once fetch_status is done.",
            code="FETCH_IN_PROGRESS",
            details={"fetch_status": upload.fetch_status},
        )
    if upload.fetch_status == FetchStatus.FAILED:
        raise Unprocessable(f"Fetching source_url failed: {upload.fetch_error}", code="FETCH_FAILED")


@transaction.atomic
def media_confirm(*, team: Team, media_id: str, alt_text: str | None = None) -> MediaUpload:
    """Check the stored bytes (present, of the declared size, really of the declared type) and
    mark the upload ready. 404 when there is no such unconfirmed upload, as the spec says.

    The bytes are first snapshotted to `content_key`, a key no upload URL can write to; that
    snapshot is what is checked and, from then on, served. So neither a PUT racing this confirm
    nor a later one through a presigned S3 URL (valid 15 minutes, not revocable) changes them."""
    upload = MediaUpload.objects.select_for_update().filter(team=team, pk=media_id).first()
    if upload is None or upload.state != MediaState.UNCONFIRMED:
        raise NotFound("No unconfirmed upload with this id.", code="MEDIA_NOT_FOUND")
    if upload.source_url:
        _check_fetched(upload)
    if alt_text is not None:
        upload.alt_text = _checked_alt_text(alt_text)
    content_key = f"{upload.storage_key}.confirmed"
    if not storage.snapshot(upload.storage_key, content_key):
        raise Conflict("No file has been uploaded yet: PUT it to upload_url first.", code="FILE_NOT_UPLOADED")
    try:
        found = _check_stored(upload, content_key)
    except Exception:
        storage.delete(content_key)  # the upload stays as it was: PUT the right file, confirm again
        raise
    upload.content_key = content_key
    upload.state = MediaState.READY
    upload.confirmed_at = timezone.now()
    upload.detected_type = found.content_type or ""
    upload.width, upload.height, upload.duration_seconds = found.width, found.height, found.duration_seconds
    upload.probe_status = probing.initial_status()
    upload.save()
    if upload.probe_status == ProbeStatus.PENDING:  # ffprobe runs in a worker, never in this request
        transaction.on_commit(partial(probing.enqueue_probe, upload.pk))
    # Only once committed: rolled back, the upload would still need the bytes it was sent.
    transaction.on_commit(partial(storage.delete, upload.storage_key), robust=True)
    return upload


# --- the library: describing and deleting confirmed files -----------------------------------


def _checked_alt_text(alt_text: str) -> str:
    alt_text = alt_text.strip()
    if len(alt_text) > ALT_TEXT_MAX_LENGTH:
        raise InvalidRequest(
            f"The description has {len(alt_text)} characters; X, the strictest network, "
            f"takes at most {ALT_TEXT_MAX_LENGTH}.",
            code="ALT_TEXT_TOO_LONG",
            details={"max_length": ALT_TEXT_MAX_LENGTH, "length": len(alt_text)},
        )
    return alt_text


@transaction.atomic
def media_set_alt_text(*, team: Team, media_id: str, alt_text: str) -> MediaUpload:
    """Describe an upload for screen readers. Publishes sent from then on carry the new text
    to the networks that take one; posts already out keep what they were sent with."""
    alt_text = _checked_alt_text(alt_text)
    upload = MediaUpload.objects.select_for_update().filter(team=team, pk=media_id).first()
    if upload is None:
        raise NotFound("No such upload.", code="MEDIA_NOT_FOUND")
    upload.alt_text = alt_text
    upload.save(update_fields=["alt_text", "updated_at"])
    return upload


@transaction.atomic
def media_delete_unused(*, team: Team, media_id: str) -> None:
    """Delete a confirmed upload of the team and its files, unless a publish names it (draft,
    scheduled or sent): its media would then be missing, so the 409 names those publishes."""
    from publishing.selectors import publishes_using_media  # publishing reads media: no cycle at import

    upload = MediaUpload.objects.select_for_update().filter(team=team, pk=media_id, state=MediaState.READY).first()
    if upload is None:
        raise NotFound("No such file in the library.", code="MEDIA_NOT_FOUND")
    users = publishes_using_media(team=team, media_id=str(upload.pk))
    if users:
        raise Conflict(
            f"{upload.filename} is used by {len(users)} post(s); it can be deleted once no post uses it.",
            code="MEDIA_IN_USE",
            details={"publish_ids": [str(p.pk) for p in users]},
        )
    keys = [upload.storage_key, upload.content_key, *upload.renditions.values_list("content_key", flat=True)]
    upload.delete()
    # The files go once the row is gone for good: rolled back, the row would need them.
    for key in keys:
        transaction.on_commit(partial(storage.delete, key), robust=True)


# --- fetching source_url ------------------------------------------------------------------


def _claim_fetch(upload_id: str) -> MediaUpload | None:
    claimed = MediaUpload.objects.filter(pk=upload_id, fetch_status=FetchStatus.PENDING).update(
        fetch_status=FetchStatus.FETCHING, fetch_started_at=timezone.now(), fetch_attempts=F("fetch_attempts") + 1
    )
    return MediaUpload.objects.select_related("team__plan").get(pk=upload_id) if claimed else None


def _finish_fetch(upload: MediaUpload, *, size: int | None = None, error: str = "") -> None:
    changes: dict[str, object] = {"fetch_status": FetchStatus.FAILED if error else FetchStatus.DONE}
    changes["fetch_error"] = error[:500]
    if size is not None:
        changes["size_bytes"] = size
    MediaUpload.objects.filter(pk=upload.pk, fetch_status=FetchStatus.FETCHING).update(**changes)


def _download(upload: MediaUpload) -> int:
    cap = upload.size_bytes or settings.MEDIA_MAX_BYTES
    with outbound.stream(
        upload.source_url,
        max_bytes=cap,
        deadline_seconds=settings.MEDIA_FETCH_DEADLINE_SECONDS,
        min_bytes_per_second=settings.MEDIA_FETCH_MIN_BYTES_PER_SECOND,
        min_rate_after_seconds=settings.MEDIA_FETCH_MIN_RATE_AFTER_SECONDS,
    ) as response:
        if not 200 <= response.status_code < 300:
            raise FetchRefused(response.status_code)
        return storage.write_stream(upload.storage_key, response.iter_bytes())


def _fetch_error(exc: Exception) -> str:
    if isinstance(exc, outbound.OutboundError) and exc.code == "TOO_SLOW":
        rate = f"{settings.MEDIA_FETCH_MIN_BYTES_PER_SECOND / 1024:g} KB/s"
        return (
            f"FETCH_TOO_SLOW: The source sent less than {rate}; host it somewhere faster or upload the file directly."
        )
    return f"{getattr(exc, 'code', 'FETCH_FAILED')}: {exc}"


def _run_fetch(upload: MediaUpload) -> None:
    try:
        size = _download(upload)
        _check_storage_quota(team=upload.team, adding=size - (upload.size_bytes or 0))
    except (outbound.OutboundError, FetchRefused, QuotaExceeded) as exc:
        storage.delete(upload.storage_key)
        _finish_fetch(upload, error=_fetch_error(exc))
        return
    _finish_fetch(upload, size=size)


def _defer_fetch(upload_id: str) -> None:
    """Hand the fetch back to the broker, still pending. A pending fetch's `fetch_started_at`
    says when it was last handed back: the sweep leaves it alone while that is recent, and a
    second message arriving meanwhile (a duplicate: its own round would come no sooner than
    LANE_RETRY_SECONDS) ends there, so one upload never has two messages going round."""
    from media import tasks  # media.tasks imports this module

    now = timezone.now()
    recently = now - dt.timedelta(seconds=settings.LANE_RETRY_SECONDS / 2)
    pending = MediaUpload.objects.filter(pk=upload_id, fetch_status=FetchStatus.PENDING)
    if pending.filter(Q(fetch_started_at=None) | Q(fetch_started_at__lt=recently)).update(fetch_started_at=now):
        lanes.later(tasks.fetch_source, upload_id)


def media_fetch_source(*, upload_id: str) -> None:
    """Fetch an upload's source_url into storage, in one of its team's slots of the `fetch`
    lane. Idempotent: only a pending fetch is claimed, so a duplicate task message does
    nothing. When the team already holds its share of the lane, the fetch is not claimed: it
    stays pending, costs no attempt, and its task comes back a little later."""
    from media import tasks  # media.tasks imports this module

    pending = MediaUpload.objects.filter(pk=upload_id, fetch_status=FetchStatus.PENDING)
    team_id = pending.values_list("team_id", flat=True).first()
    if team_id is None:
        return
    with lanes.team_share("fetch", team_id, lease_seconds=tasks.FETCH_TIME_LIMIT) as held:
        if not held:
            _defer_fetch(upload_id)
            return
        upload = _claim_fetch(upload_id)
        if upload is not None:
            _run_fetch(upload)


def media_sweep_fetches() -> int:
    """Re-send fetches whose task message was lost (broker down at create) and take back
    fetches whose worker died mid-way; give up after a few attempts. Returns fetches re-sent."""
    from media import tasks  # media.tasks imports this module

    now = timezone.now()
    # Past the task's hard limit, no worker can still be running the fetch.
    stale_start = now - dt.timedelta(seconds=tasks.FETCH_TIME_LIMIT)
    lost = MediaUpload.objects.filter(fetch_status=FetchStatus.FETCHING, fetch_started_at__lt=stale_start)
    lost.filter(fetch_attempts__gte=MAX_FETCH_ATTEMPTS).update(
        fetch_status=FetchStatus.FAILED, fetch_error="WORKER_LOST: the fetch did not finish after several attempts"
    )
    lost.update(fetch_status=FetchStatus.PENDING)
    # Not a fetch handed back for its team's share just now: its message is going round.
    quiet = now - dt.timedelta(seconds=max(30.0, 3 * settings.LANE_RETRY_SECONDS))
    waiting = MediaUpload.objects.filter(
        Q(fetch_started_at=None) | Q(fetch_started_at__lt=quiet), fetch_status=FetchStatus.PENDING, created_at__lt=quiet
    ).values_list("pk", flat=True)
    ids = list(waiting[:500])
    for upload_id in ids:
        _enqueue_fetch(upload_id)
    return len(ids)


def media_delete_unconfirmed(*, older_than: dt.timedelta | None = None) -> int:
    """Delete uploads never confirmed within the retention window, with their stored bytes."""
    age = older_than or dt.timedelta(hours=settings.MEDIA_UNCONFIRMED_RETENTION_HOURS)
    expired = MediaUpload.objects.filter(state=MediaState.UNCONFIRMED, created_at__lt=timezone.now() - age)
    deleted = 0
    for upload in expired.iterator():
        media_delete(upload=upload)
        deleted += 1
    return deleted


def media_delete(*, upload: MediaUpload) -> None:
    # Both keys: the upload key may hold bytes PUT after confirm through a still-valid URL.
    storage.delete(upload.storage_key)
    for key in upload.renditions.values_list("content_key", flat=True):
        storage.delete(key)
    if upload.content_key:
        storage.delete(upload.content_key)
    upload.delete()
