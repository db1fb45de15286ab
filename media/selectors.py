"""Reads of media: for the API, and for publishing and the platform clients, which need a
team's ready files by id, their bytes as a stream, or a short-lived URL a platform can pull."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from django.core.files.base import File
from django.db.models import QuerySet

from media import processing, storage
from media.models import MediaRendition, MediaState, MediaUpload, ProbeStatus
from teams.models import Team


def upload_for_team(*, team: Team, media_id: str) -> MediaUpload | None:
    return MediaUpload.objects.filter(team=team, pk=media_id).first()


def team_of_upload(upload_id: str) -> str:
    """The team whose share of a lane work on the upload counts against ("" when it is gone:
    the work then finds nothing to do)."""
    return str(MediaUpload.objects.filter(pk=upload_id).values_list("team_id", flat=True).first() or "")


def ready_media(*, team: Team) -> QuerySet[MediaUpload]:
    return MediaUpload.objects.filter(team=team, state=MediaState.READY).order_by("-created_at", "-id")


def library_media(*, team: Team, search: str = "") -> QuerySet[MediaUpload]:
    """The team's confirmed files for the library page, newest first; `search` narrows them to
    file names containing it (any case)."""
    found = ready_media(team=team)
    return found.filter(filename__icontains=search) if search else found


def ready_media_by_ids(
    *, team: Team, media_ids: Sequence[str], hold: bool = False
) -> tuple[list[MediaUpload], list[str]]:
    """The team's ready uploads for `media_ids`, in the order given, and the ids that are not
    (absent, another team's, or not confirmed yet). With `hold`, inside a transaction about to
    store a publish naming them, the rows stay locked until it commits: a delete of an unused
    upload (`media_delete_unused`) then waits and sees the publish, or went first and the upload
    is missing here, never a publish naming a deleted file."""
    found_rows = ready_media(team=team).filter(pk__in=list(media_ids))
    if hold:  # rows come locked in the query's order, the same in every transaction: no deadlock
        found_rows = found_rows.select_for_update(no_key=True)
    found = {str(upload.pk): upload for upload in found_rows}
    return [found[i] for i in media_ids if i in found], [i for i in media_ids if i not in found]


def open_media(upload: MediaUpload) -> File:  # type: ignore[type-arg]
    """The file's bytes as a stream (close it after use); for clients that upload to a platform."""
    return storage.open_stream(upload.content_key)


def media_pull_url(upload: MediaUpload, *, lifetime_seconds: int | None = None) -> str:
    """A short-lived URL from which a platform fetches the file itself (Instagram, Threads,
    TikTok pull mode). Anyone holding it can read the file until it expires."""
    return storage.download_url(key=upload.content_key, media_id=str(upload.pk), lifetime_seconds=lifetime_seconds)


def media_refusal(upload: MediaUpload) -> tuple[str, str] | None:
    """(code, message) when the file cannot go anywhere: its probe failed, or what is known of
    it (the probe's facts, or the sniff's while the probe runs) is over the hard caps."""
    if upload.probe_status == ProbeStatus.FAILED:
        code = upload.probe_error_code or "MEDIA_UNREADABLE"
        return code, processing.public_message(code, upload.probe_error)
    refused = processing.caps_refusal(upload.width, upload.height, upload.duration_seconds)
    return (refused.code, refused.message) if refused else None


def open_rendition(rendition: MediaRendition) -> File:  # type: ignore[type-arg]
    return storage.open_stream(rendition.content_key)


def rendition_pull_url(rendition: MediaRendition) -> str:
    """A short-lived URL to a rendition, as `media_pull_url` is to an upload."""
    return storage.download_url(key=rendition.content_key, media_id=str(rendition.pk))


def downloadable(file_id: str) -> tuple[str, str, dt.datetime] | None:
    """(key, content type, last modified) of a ready upload or of one of its renditions: what
    a local download URL, signed for that id, serves."""
    upload = MediaUpload.objects.filter(pk=file_id, state=MediaState.READY).first()
    if upload is not None:
        return upload.content_key, upload.content_type, upload.confirmed_at or upload.created_at
    rendition = MediaRendition.objects.filter(pk=file_id, upload__state=MediaState.READY).first()
    if rendition is not None:
        return rendition.content_key, rendition.content_type, rendition.created_at
    return None


def renditions_made(pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], MediaRendition]:
    """The renditions made among (upload id, profile) pairs, by pair, in one query."""
    if not pairs:
        return {}
    rows = MediaRendition.objects.filter(upload_id__in={upload_id for upload_id, _ in pairs})
    made = {(str(r.upload_id), r.profile): r for r in rows}
    return {pair: made[pair] for pair in pairs if pair in made}
