"""Probing a confirmed upload with ffprobe, in a worker: the cheap sniff of `media_confirm`
marked it ready; this finds the codecs, frame rate, bit rate and exact dimensions and stores
them on the upload, or records why the file cannot be used (`probe_status` failed, with a code
a create then names).

States: confirm sets `pending` (or `skipped` where ffprobe is not installed); `media_probe`
moves pending to `done` or `failed` by a conditional update, so a second task message for the
same upload finds nothing to do. A create never waits for a pending probe: it judges by what
the sniff found.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings
from django.utils import timezone

from media import processing, storage
from media.models import MediaState, MediaUpload, ProbeStatus

logger = logging.getLogger(__name__)

SWEEP_AFTER = dt.timedelta(minutes=5)


def initial_status() -> ProbeStatus:
    """What a confirm records: pending, or skipped on a machine without ffprobe."""
    return ProbeStatus.PENDING if processing.available(settings.FFPROBE_BINARY) else ProbeStatus.SKIPPED


def enqueue_probe(upload_id: object) -> None:
    from media.tasks import probe

    try:
        probe.delay(str(upload_id))
    except Exception:  # the broker is down: the sweeper sends it later
        logger.warning("Could not enqueue the probe of upload %s; the sweeper will", upload_id, exc_info=True)


def media_probe(*, upload_id: str) -> None:
    """Probe a pending upload and record what was found, or why it is refused."""
    upload = MediaUpload.objects.filter(pk=upload_id, state=MediaState.READY, probe_status=ProbeStatus.PENDING).first()
    if upload is None:
        return
    try:
        with storage.local_path(upload.content_key) as path:
            found = processing.probe(path)
        if refused := processing.refusal(found):
            raise refused
    except processing.ProcessingError as exc:
        _record(upload, probe_status=ProbeStatus.FAILED, probe_error_code=exc.code, probe_error=exc.message[:500])
        return
    _record(
        upload,
        probe_status=ProbeStatus.DONE,
        container=found.container,
        video_codec=found.video_codec,
        audio_codec=found.audio_codec,
        frame_rate=found.frame_rate,
        bit_rate=found.bit_rate,
        aspect_ratio=found.aspect_ratio,
        width=found.width or upload.width,
        height=found.height or upload.height,
        duration_seconds=found.duration_seconds or upload.duration_seconds,
    )


def _record(upload: MediaUpload, **changes: object) -> None:
    now = timezone.now()
    MediaUpload.objects.filter(pk=upload.pk, probe_status=ProbeStatus.PENDING).update(
        probed_at=now, updated_at=now, **changes
    )


def media_sweep_probes() -> int:
    """Send again the probes whose task message was lost (broker down at confirm, a worker
    killed mid-probe); returns how many were sent."""
    stale = timezone.now() - SWEEP_AFTER
    waiting = MediaUpload.objects.filter(probe_status=ProbeStatus.PENDING, confirmed_at__lt=stale)
    ids = list(waiting.values_list("pk", flat=True)[:500])
    for upload_id in ids:
        enqueue_probe(upload_id)
    return len(ids)
