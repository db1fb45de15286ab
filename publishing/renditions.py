"""Fitted renditions in a post: which uploads the platform cannot take as they are, the
renditions made for them (`media.fitting`, in the media lane), and the post with those
standing in.

A delivery (`publishing.sending`) and a thread item (`publishing.threads`) fit their post the
same way, before the call that could create it: `fitted()` finds the renditions made (one
query); when some are missing it answers `Missing`, and the caller hands their making to the
media lane (`hand_over`) and waits to be sent again, never making them in a dispatch thread.
A fit that failed since the caller asked (`since`) fails it: nothing is sent. The original
uploads are never changed.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from typing import Any

from accounts.platforms import formats
from accounts.platforms.base import Media, Outcome, OutcomeKind, Post
from media import fitting
from media.models import MediaRendition
from media.selectors import open_rendition, rendition_pull_url, renditions_made


@dataclasses.dataclass(frozen=True)
class Missing:
    """The renditions a post needs that are not made yet, as (upload id, profile) pairs."""

    pairs: tuple[tuple[str, str], ...]


def fitted(platform: str, post: Post, *, since: dt.datetime) -> dict[str, MediaRendition] | Outcome | Missing:
    """By upload id, the renditions `platform` needs in place of uploads it does not take as
    they are; `Missing` when some are not made yet. A FAILED outcome (MEDIA_FIT_FAILED) when
    one cannot be made (over the budget, or its fit failed at `since` or later) or still does
    not fit: nothing is sent then."""
    if platform not in formats.FORMATS:
        return {}
    needed: dict[str, tuple[Media, str]] = {}
    for media in post.media:
        profile = formats.profile_for(platform, media) if media.fit else None
        if profile is None or media.id in needed:
            continue
        if refused := formats.budget_refusal(media):  # learnt since the create (the probe ran): never started
            return _fit_failed(media, profile, refused)
        needed[media.id] = (media, profile)
    pairs = [(media_id, profile) for media_id, (_, profile) in needed.items()]
    made = renditions_made(pairs)
    missing = [pair for pair in pairs if pair not in made]
    if missing:
        if failures := fitting.fit_failures(pairs=missing, since=since):
            (media_id, profile), message = next(iter(failures.items()))
            return _fit_failed(needed[media_id][0], profile, message)
        return Missing(tuple(missing))
    for (media_id, profile), rendition in made.items():
        if left := formats.findings(platform, sent(needed[media_id][0], rendition)):
            return _fit_failed(needed[media_id][0], profile, f"It still does not fit: {left[0].message}")
    return {media_id: rendition for (media_id, _), rendition in made.items()}


def hand_over(missing: Missing, *, then: Mapping[str, Any], since: dt.datetime) -> bool:
    """Ask the media lane for the missing renditions; `then` ({"task", "args"}) is sent again
    once they are made or one failed. False when the broker refused."""
    return fitting.fit_hand_over(pairs=missing.pairs, then=then, since=since)


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


def _fit_failed(media: Media, profile: str, message: str) -> Outcome:
    return Outcome(
        OutcomeKind.FAILED,
        error_code="MEDIA_FIT_FAILED",
        error_message=f"media {media.id}: the {profile} rendition could not be made. {message}",
    )
