"""Fitted renditions in a post: which uploads the platform cannot take as they are, the
renditions made for them (`media.fitting`), and the post with those standing in.

A delivery (`publishing.dispatch`) and a thread item (`publishing.threads`) fit their post the
same way, before the call that could create it. The original uploads are never changed.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any

from accounts.platforms import formats
from accounts.platforms.base import Media, Outcome, OutcomeKind, Post
from media import fitting
from media.models import MediaRendition, MediaUpload
from media.selectors import open_rendition, rendition_pull_url

logger = logging.getLogger(__name__)


def fitted(platform: str, post: Post, uploads: Mapping[str, MediaUpload]) -> dict[str, MediaRendition] | Outcome:
    """By upload id, the renditions `platform` needs in place of uploads it does not take as
    they are, made now (or found made). A FAILED outcome (MEDIA_FIT_FAILED) when one cannot be
    made or still does not fit: nothing is sent then."""
    if platform not in formats.FORMATS:
        return {}
    made: dict[str, MediaRendition] = {}
    for media in post.media:
        profile = formats.profile_for(platform, media) if media.fit else None
        if profile is None or media.id in made:
            continue
        try:
            rendition = fitting.rendition_for(upload=uploads[media.id], profile=profile)
        except fitting.FitFailed as exc:
            return _fit_failed(media, f"the {profile} rendition could not be made: {exc.message}")
        except Exception as exc:  # storage or database trouble: nothing was sent, fail plainly
            logger.exception("Making the %s rendition of %s raised", profile, media.id)
            return _fit_failed(media, f"the {profile} rendition could not be made ({type(exc).__name__})")
        if left := formats.findings(platform, sent(media, rendition)):
            return _fit_failed(media, f"the {profile} rendition still does not fit: {left[0].message}")
        made[media.id] = rendition
    return made


def with_renditions(post: Post, renditions: Mapping[str, MediaRendition]) -> Post:
    """`post` with each rendition standing in for the upload it fits."""
    if not renditions:
        return post
    return dataclasses.replace(post, media=[sent(m, renditions.get(m.id)) for m in post.media])


def sent_record(post: Post) -> list[dict[str, Any]]:
    """What went out, for the attempt's request: each file's upload id and rendition (None:
    the upload as it is)."""
    return [
        {"media_id": m.id, "rendition": m.rendition, "content_type": m.content_type, "size_bytes": m.size_bytes}
        for m in post.media
    ]


def sent(media: Media, rendition: MediaRendition | None) -> Media:
    """The media a client is given for `media`: the rendition in its place, when there is one."""
    if rendition is None:
        return media
    return dataclasses.replace(
        media,
        content_type=rendition.content_type,
        size_bytes=rendition.size_bytes,
        width=rendition.width,
        height=rendition.height,
        duration_seconds=rendition.duration_seconds or media.duration_seconds,
        open=lambda: open_rendition(rendition),
        pull_url=lambda: rendition_pull_url(rendition),
        container="",
        video_codec="",
        audio_codec="",
        rendition=rendition.profile,
    )


def _fit_failed(media: Media, message: str) -> Outcome:
    return Outcome(OutcomeKind.FAILED, error_code="MEDIA_FIT_FAILED", error_message=f"media {media.id}: {message}")
