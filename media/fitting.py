"""Fitted renditions: a copy of an upload a platform takes when it refuses the file as it is
(a JPEG of a PNG, a downscale, an H.264/AAC MP4 of another video), made once per (upload,
profile) and reused by every later target and publish; the upload's own bytes are never touched.

Where: in the `media` lane, never in a dispatch thread. A delivery (or a thread item) whose
post needs a rendition not made yet hands the pairs to `media.fit` (`fit_hand_over`) with the
task that sends it, and waits; `media_fit` makes them one after another and sends that task
again. A `MediaFit` row per (upload, profile) keeps the making single and its outcome known:

- a lease: a fit takes it under the row's lock; a second fit of the same pair meanwhile adds
  its task to the row's `waiting` list (sent when the first settles) instead of making it
  again. A lease past its time (its worker died) is taken over, MAX_TRIES times at most.
- a failure, with a fixed message by code (the tool's own words, which name server paths, go
  to the log): the deliveries that asked since it failed fail with it (MEDIA_FIT_FAILED), so
  nothing loops; a later publish or a retry asks for the fit anew.

Bounded before work: the fit's cost (`formats.fit_megapixels`: width x height x frames) from
what is known of the upload is checked against MEDIA_FIT_BUDGET_MEGAPIXELS before the file is
read; a video not yet probed is probed first (bounded), and costed with what the probe found.
Then each rendition is one subprocess under `media.processing.run`'s limits (address space,
CPU seconds, MEDIA_FIT_TIMEOUT_SECONDS): `media/fit_image.py` (Pillow) for the "jpeg" profiles,
ffmpeg for the "h264-aac-mp4" ones.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import logging
import os
import secrets
import sys
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

from billiard.exceptions import SoftTimeLimitExceeded
from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.platforms import formats
from media import processing, storage
from media.models import FitState, MediaFit, MediaRendition, MediaState, MediaUpload, ProbeStatus

logger = logging.getLogger(__name__)

# Leases of one (upload, profile) taken without settling it (workers lost mid-fit) before it fails.
MAX_TRIES = 3
IMAGE_PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fit_image.py")
_IMAGE_EXITS = {2: "MEDIA_UNREADABLE", 3: "MEDIA_OUT_OF_MEMORY", 4: "MEDIA_FIT_OVER_BUDGET"}

Pair = tuple[str, str]  # (upload id, profile)
# A task to send when a fit settles: {"task": its name, "args": [...]}.
Then = Mapping[str, Any]
Facts = tuple[str, int | None, int | None, float | None]  # content type, width, height, duration


# What a user is told of a fit that failed, by code (the tool's own words go to the log).
MESSAGES = {
    **processing.MESSAGES,
    "MEDIA_FIT_OVER_BUDGET": "Converting the file would decode more pixels than this service allows.",
    "MEDIA_FIT_ERROR": "The rendition could not be made; try again later.",
}


class FitFailed(Exception):
    """A rendition cannot be made. `code` is stable, `message` fit to show."""

    def __init__(self, code: str, message: str = "") -> None:
        self.code = code
        self.message = message or MESSAGES.get(code) or MESSAGES["MEDIA_FIT_ERROR"]
        super().__init__(self.message)


def _lease() -> dt.timedelta:
    # A probe, a fit, and the storage round trips around them.
    return dt.timedelta(seconds=settings.MEDIA_PROBE_TIMEOUT_SECONDS + settings.MEDIA_FIT_TIMEOUT_SECONDS + 60)


# --- the dispatch side: asking ------------------------------------------------------------------


def fit_hand_over(*, pairs: Sequence[Pair], then: Then, since: dt.datetime) -> bool:
    """Queue the making of `pairs` in the media lane; `then` is sent when they are made or one
    failed. Failures recorded at `since` or later are not tried again. Never inside a
    transaction. False when the broker refused the task."""
    from media.tasks import fit

    limit = len(pairs) * int(_lease().total_seconds())
    try:
        fit.apply_async(
            args=([list(pair) for pair in pairs], dict(then), since.isoformat()),
            soft_time_limit=limit,
            time_limit=limit + 30,
            retry=False,
        )
    except Exception:  # the broker refused: the caller's own sweep asks again
        logger.warning("The broker did not take the fit of %s", list(pairs), exc_info=True)
        return False
    return True


def fit_failures(*, pairs: Sequence[Pair], since: dt.datetime) -> dict[Pair, str]:
    """By pair, the message of each fit among `pairs` that failed at `since` or later."""
    uploads: list[Any] = list({upload_id for upload_id, _ in pairs})
    failed = MediaFit.objects.filter(upload_id__in=uploads, state=FitState.FAILED, failed_at__gte=since)
    found = {(str(u), p): m for u, p, m in failed.values_list("upload_id", "profile", "error_message")}
    return {pair: found[pair] for pair in pairs if pair in found}


# --- the media lane: making ---------------------------------------------------------------------


class _Turn(enum.Enum):
    MINE = "mine"  # this worker holds the lease: make it
    MADE = "made"
    FAILED = "failed"
    WAITING = "waiting"  # another worker makes it and sends `then` when it settles


def media_fit(*, pairs: Sequence[Pair], then: Then, since: dt.datetime) -> None:
    """Make the renditions of `pairs` not made yet, one after another, stopping at the first
    that fails; then send `then`, unless some pair is another worker's to make (that worker
    sends it when it settles)."""
    waits = False
    for upload_id, profile in pairs:
        turn = _fit_one(upload_id, profile, then, since)
        if turn is _Turn.FAILED:
            waits = False  # the delivery fails now, whatever the other pairs do
            break
        waits = waits or turn is _Turn.WAITING
    if not waits:
        _send([then])


def _fit_one(upload_id: str, profile: str, then: Then, since: dt.datetime) -> _Turn:
    upload = MediaUpload.objects.filter(pk=upload_id, state=MediaState.READY).first()
    if upload is None:
        return _Turn.MADE  # deleted: the delivery finds that out itself
    turn, lease = _take(upload, profile, then, since)
    if turn is not _Turn.MINE:
        return turn
    failure = None
    try:
        rendition_for(upload=upload, profile=profile)
    except FitFailed as exc:
        failure = exc
    except SoftTimeLimitExceeded:
        failure = FitFailed("MEDIA_PROCESSING_TIMEOUT")
    except Exception:  # storage or database trouble: kept in the log, a plain failure for the user
        logger.exception("Making the %s rendition of %s raised", profile, upload_id)
        failure = FitFailed("MEDIA_FIT_ERROR")
    _settle(upload, profile, lease, failure)
    return _Turn.FAILED if failure else _Turn.MADE


def _take(upload: MediaUpload, profile: str, then: Then, since: dt.datetime) -> tuple[_Turn, dt.datetime | None]:
    """Take the lease of (upload, profile) unless it is made, failed since `since`, or leased
    to another worker (then `then` waits for it); the lease's end, the holder's token."""
    MediaFit.objects.get_or_create(upload=upload, profile=profile, defaults={"state": FitState.DONE})
    now = timezone.now()
    waiting: list[Any] = []
    with transaction.atomic():
        fit = MediaFit.objects.select_for_update().get(upload=upload, profile=profile)
        if MediaRendition.objects.filter(upload=upload, profile=profile).exists():
            return _Turn.MADE, None
        if fit.state == FitState.FAILED and fit.failed_at and fit.failed_at >= since:
            return _Turn.FAILED, None
        held = fit.state == FitState.MAKING
        if held and fit.lease_until and fit.lease_until > now:
            if dict(then) not in fit.waiting:
                fit.waiting = [*fit.waiting, dict(then)]
                fit.save(update_fields=["waiting", "updated_at"])
            return _Turn.WAITING, None
        if held and fit.tries >= MAX_TRIES:
            message = f"The rendition could not be made: its worker stopped {fit.tries} times before finishing."
            waiting = _fail(fit, FitFailed("MEDIA_FIT_ERROR", message), now)
        else:
            fit.state, fit.lease_until, fit.tries = FitState.MAKING, now + _lease(), fit.tries + 1 if held else 1
            fit.save(update_fields=["state", "lease_until", "tries", "updated_at"])
    if waiting:
        _send(waiting)
        return _Turn.FAILED, None
    return _Turn.MINE, fit.lease_until


def _settle(upload: MediaUpload, profile: str, lease: dt.datetime | None, failure: FitFailed | None) -> None:
    """Record how the fit this worker leased ended, and send the tasks that waited for it. A
    lease taken over meanwhile (this worker was taken for lost) is the new holder's to settle."""
    now = timezone.now()
    with transaction.atomic():
        fit = MediaFit.objects.select_for_update().get(upload=upload, profile=profile)
        if fit.state != FitState.MAKING or fit.lease_until != lease:
            return
        if failure is not None:
            waiting = _fail(fit, failure, now)
        else:
            waiting, fit.waiting = list(fit.waiting), []
            fit.state, fit.lease_until, fit.tries = FitState.DONE, None, 0
            fit.error_code = fit.error_message = ""
            fit.save()
    _send(waiting)


def _fail(fit: MediaFit, failure: FitFailed, now: dt.datetime) -> list[Any]:
    """Record the failure on the locked row; the tasks that waited for it."""
    waiting, fit.waiting = list(fit.waiting), []
    fit.state, fit.lease_until, fit.tries, fit.failed_at = FitState.FAILED, None, 0, now
    fit.error_code, fit.error_message = failure.code, failure.message[:500]
    fit.save()
    logger.info("The %s rendition of %s failed: %s", fit.profile, fit.upload_id, failure.code)
    return waiting


def _send(tasks: Sequence[Then]) -> None:
    """Send each task (after the commit that settled the fit); one the broker refuses is left
    to its own sweep (the delivery relay, the thread sweep)."""
    for task in tasks:
        try:
            current_app.signature(task["task"], args=list(task["args"]), immutable=True).apply_async(retry=False)
        except Exception:
            logger.warning("The broker did not take %s %s after a fit", task["task"], task["args"], exc_info=True)


# --- making one rendition ----------------------------------------------------------------------


def rendition_for(*, upload: MediaUpload, profile: str) -> MediaRendition:
    """The upload's rendition for `profile`, made now unless it exists. FitFailed when it
    cannot be made: over the budget (refused before the file is read), the file does not
    decode, a bound was hit, the tools are missing."""
    existing = MediaRendition.objects.filter(upload=upload, profile=profile).first()
    if existing is not None:
        return existing
    video = profile.startswith("h264-aac-mp4")
    if not video and not profile.startswith("jpeg"):
        raise FitFailed("MEDIA_FIT_ERROR", f"There is no rendition profile {profile}.")
    _check_budget(upload.width, upload.height, video, upload.duration_seconds, upload.frame_rate)
    with tempfile.TemporaryDirectory(prefix="fit-") as folder:
        made = os.path.join(folder, "out.mp4" if video else "out.jpg")
        with storage.local_path(upload.content_key) as source:
            facts = _h264(upload, source, made, profile) if video else _jpeg(source, made, profile)
        return _store(upload, profile, made, facts)


def _check_budget(
    width: int | None, height: int | None, video: bool, duration: float | None, frame_rate: float | None
) -> None:
    cost = formats.fit_megapixels(width, height, video=video, duration_seconds=duration, frame_rate=frame_rate)
    if refused := formats.over_budget(cost):
        raise FitFailed("MEDIA_FIT_OVER_BUDGET", refused)


def _jpeg(source: str, made: str, profile: str) -> Facts:
    # Pillow refuses, from the header alone, an image over the budget or the service's cap.
    max_pixels = min(settings.MEDIA_MAX_PIXELS, settings.MEDIA_FIT_BUDGET_MEGAPIXELS * 1_000_000)
    box = formats.box_of(profile)
    args = [sys.executable, "-I", IMAGE_PROGRAM, source, made, str(max_pixels)]
    if box:
        args.append(f"{box[0]}x{box[1]}")
    try:
        output, _ = processing.run(args, timeout=settings.MEDIA_FIT_TIMEOUT_SECONDS, exit_codes=_IMAGE_EXITS)
        size = json.loads(output)
    except processing.ProcessingError as exc:
        raise FitFailed(exc.code) from exc
    except ValueError as exc:
        raise FitFailed("MEDIA_FIT_ERROR") from exc
    return "image/jpeg", int(size["width"]), int(size["height"]), None


def _h264(upload: MediaUpload, source: str, made: str, profile: str) -> Facts:
    if not processing.available(settings.FFMPEG_BINARY):
        raise FitFailed("MEDIA_TOOLS_MISSING")
    try:
        if upload.probe_status != ProbeStatus.DONE:  # the sniff's facts, and no frame rate: read them now
            found = processing.probe(source)
            if found.duration_seconds is None:
                raise FitFailed("MEDIA_FIT_OVER_BUDGET", "The video's length could not be read: its cost is unknown.")
            _check_budget(found.width, found.height, True, found.duration_seconds, found.frame_rate)
        box = formats.box_of(profile)
        # Within the box (when given), keeping the aspect ratio; H.264 in 4:2:0 needs even sides.
        scale = f"scale='min(iw,{box[0]})':'min(ih,{box[1]})':force_original_aspect_ratio=decrease," if box else ""
        args = [
            settings.FFMPEG_BINARY, "-nostdin", "-v", "error", "-y", "-i", source,
            "-map", "0:v:0", "-map", "0:a:0?", "-sn", "-dn", "-map_metadata", "-1",
            "-vf", f"{scale}scale=trunc(iw/2)*2:trunc(ih/2)*2", "-fpsmax", "60",
            "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high", "-pix_fmt", "yuv420p",
            "-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-ac", "2",
            "-movflags", "+faststart", "-f", "mp4", made,
        ]  # fmt: skip
        processing.run(args, timeout=settings.MEDIA_FIT_TIMEOUT_SECONDS)  # its warnings are no failure
        found = processing.probe(made)
    except processing.ProcessingError as exc:
        raise FitFailed(exc.code) from exc
    return "video/mp4", found.width, found.height, found.duration_seconds


def _store(upload: MediaUpload, profile: str, made: str, facts: Facts) -> MediaRendition:
    content_type, width, height, duration = facts
    key = f"{upload.storage_key}.{profile}-{secrets.token_hex(4)}"
    size = storage.write_file(key, made)
    try:
        with transaction.atomic():
            return MediaRendition.objects.create(
                upload=upload,
                profile=profile,
                content_key=key,
                content_type=content_type,
                size_bytes=size,
                width=width,
                height=height,
                duration_seconds=duration,
            )
    except IntegrityError:  # another worker made it first (a lease taken over): keep theirs
        storage.delete(key)
        return MediaRendition.objects.get(upload=upload, profile=profile)
