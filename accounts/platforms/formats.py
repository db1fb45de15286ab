"""What each platform documents about media formats beyond type, size and duration (codecs,
dimensions, aspect ratios), what a file breaks of them, and which fitted rendition mends it.

`findings()` lists, in the order a create names them, what keeps one media item from a
platform; each finding carries the rendition profile that fixes it (None when nothing can:
an aspect ratio or a duration is never cropped or cut). `profile_for()` merges the profiles
of an item's findings into the one rendition the worker makes. Profiles are names:
"jpeg" (convert), "jpeg-fit-WxH" (downscale within a box, re-encode), "h264-aac-mp4" and
"h264-aac-mp4-fit-WxH" (transcode, scaled within a box). Codec names are ffprobe's.

A fit costs what it decodes (`fit_megapixels`): width x height x frames. One whose cost is
over MEDIA_FIT_BUDGET_MEGAPIXELS is never started: `findings()` then names MEDIA_FIT_OVER_BUDGET,
which no rendition mends, so a create is a 400 naming the item.
"""

from __future__ import annotations

import math
import re
import shutil
from dataclasses import dataclass

from django.conf import settings

from accounts.platforms.limits import GIF, JPEG, MP4, MediaLimits, limits_for
from accounts.platforms.types import Media

# A JPEG re-encoded within this box fits every platform's image size cap in practice.
SHRINK_BOX = (2048, 2048)
# The frame rate a video's fit is costed at while the probe has not read the real one (a
# camera's usual); the fit itself counts with the probed rate.
ASSUMED_FRAME_RATE = 30.0
_BOX = re.compile(r"-fit-(\d+)x(\d+)$")


@dataclass(frozen=True)
class MediaFormats:
    image_max_width: int | None = None
    image_max_height: int | None = None
    image_max_pixels: int | None = None
    video_codecs: tuple[str, ...] = ()  # empty: the platform documents no restriction
    audio_codecs: tuple[str, ...] = ()
    video_max_width: int | None = None
    video_max_height: int | None = None
    video_aspect: tuple[float, float] | None = None  # width / height, inclusive

    def capabilities(self) -> dict[str, object]:
        """These rules as an account's capabilities show them (None: no documented rule)."""
        aspect = self.video_aspect
        return {
            "images": {
                "max_width": self.image_max_width,
                "max_height": self.image_max_height,
                "max_pixels": self.image_max_pixels,
            },
            "videos": {
                "codecs": list(self.video_codecs) or None,
                "audio_codecs": list(self.audio_codecs) or None,
                "max_width": self.video_max_width,
                "max_height": self.video_max_height,
                "aspect_ratio": None if aspect is None else {"min": round(aspect[0], 4), "max": round(aspect[1], 4)},
            },
        }


FORMATS: dict[str, MediaFormats] = {
    # X: platform docs §1 "Limits": video H.264 High + AAC-LC, 32x32 to 1280x1024, aspect 1:3 to 3:1.
    "x": MediaFormats(
        video_codecs=("h264",),
        audio_codecs=("aac",),
        video_max_width=1280,
        video_max_height=1024,
        video_aspect=(1 / 3, 3.0),
    ),
    # Instagram: platform docs §1.3: Reels H.264/HEVC, AAC, width at most 1920, aspect 0.01:1 to
    # 10:1. Feed images 4:5 to 1.91:1 are the client's own check (instagram._aspect_problems).
    "instagram": MediaFormats(
        video_codecs=("h264", "hevc"), audio_codecs=("aac",), video_max_width=1920, video_aspect=(0.01, 10.0)
    ),
    # TikTok: platform docs §3.3: H.264/H.265/VP8/VP9, 360-4096 px a side; photos at most 1080p
    # (read as 1920x1080 pixels in either orientation).
    "tiktok": MediaFormats(
        image_max_pixels=1920 * 1080,
        video_codecs=("h264", "hevc", "vp8", "vp9"),
        video_max_width=4096,
        video_max_height=4096,
    ),
    # YouTube and Facebook: transcode what they receive; no codec rule in their docs.
    "youtube": MediaFormats(),
    "facebook": MediaFormats(),
    # LinkedIn: platform docs §4 "Limits": images under 36,152,320 pixels; video aspect 1:2.4 to
    # 2.4:1 [third-party summaries].
    "linkedin": MediaFormats(image_max_pixels=36_152_320, video_aspect=(1 / 2.4, 2.4)),
    # Pinterest: platform docs §5 [third-party]: video aspect between 1:2 and 1.91:1.
    "pinterest": MediaFormats(video_aspect=(0.5, 1.91)),
    # Threads: platform docs §3 "Limits": HEVC/H.264, AAC, at most 1920 px wide, 0.01:1 to 10:1.
    "threads": MediaFormats(
        video_codecs=("h264", "hevc"), audio_codecs=("aac",), video_max_width=1920, video_aspect=(0.01, 10.0)
    ),
    # Bluesky: the video service transcodes; its lexicons name no codec.
    "bluesky": MediaFormats(),
}


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    profile: str | None  # the rendition that fixes it; None: no rendition can


def can_transcode(media: Media) -> bool:
    duration = media.duration_seconds
    short = duration is not None and duration <= settings.MEDIA_FIT_MAX_VIDEO_SECONDS
    return short and shutil.which(settings.FFMPEG_BINARY) is not None


def findings(platform: str, media: Media) -> list[Finding]:
    """What keeps `media` from `platform`, in the order a create names them; last, when a
    rendition would mend them all but costs more than the budget, that (no mend)."""
    found = _format_findings(platform, media)
    if found and all(f.profile for f in found) and (over := budget_refusal(media)):
        found.append(Finding("MEDIA_FIT_OVER_BUDGET", f"{found[0].message} {over}", None))
    return found


def _format_findings(platform: str, media: Media) -> list[Finding]:
    limits = limits_for(platform)
    if media.is_video:
        return _video_findings(platform, limits.videos, FORMATS[platform], media)
    return _image_findings(platform, limits.images, FORMATS[platform], media)


def fit_megapixels(
    width: int | None,
    height: int | None,
    *,
    video: bool,
    duration_seconds: float | None = None,
    frame_rate: float | None = None,
) -> float | None:
    """What a fit decodes, in megapixels: an image's first frame (all a JPEG keeps), every
    frame of a video; None when the size, or a video's length, is unknown."""
    if not width or not height:
        return None
    frames = 1.0
    if video:
        if not duration_seconds:
            return None
        frames = duration_seconds * (frame_rate or ASSUMED_FRAME_RATE)
    return width * height * frames / 1_000_000


def over_budget(megapixels: float | None) -> str | None:
    """Why a fit of this cost is refused, or None when it is within the budget (or unknown)."""
    budget = settings.MEDIA_FIT_BUDGET_MEGAPIXELS
    if megapixels is None or megapixels <= budget:
        return None
    return f"Converting it would decode {megapixels:,.0f} megapixels, over this service's limit of {budget:,}."


def budget_refusal(media: Media) -> str | None:
    cost = fit_megapixels(
        media.width,
        media.height,
        video=media.is_video,
        duration_seconds=media.duration_seconds,
        frame_rate=media.frame_rate,
    )
    return over_budget(cost)


def _image_findings(name: str, rule: MediaLimits, fmt: MediaFormats, media: Media) -> list[Finding]:
    jpeg = JPEG in rule.content_types
    found = []
    if media.content_type not in rule.content_types:
        found.append(Finding("UNSUPPORTED_MEDIA_TYPE", f"{name} does not take {media.content_type}.", _jpeg(jpeg)))
    if rule.max_size_bytes is not None and media.size_bytes > rule.max_size_bytes:
        message = f"{name} takes files of at most {rule.max_size_bytes} bytes."
        # A GIF the platform takes is left as it is: a JPEG would lose its animation.
        shrink = jpeg and not (media.content_type == GIF and GIF in rule.content_types)
        found.append(Finding("MEDIA_TOO_LARGE", message, _jpeg(shrink, SHRINK_BOX)))
    if box := _image_box(fmt, media):
        message = f"{name} takes images of at most {box[0]}x{box[1]} px; this one is {media.width}x{media.height}."
        found.append(Finding("IMAGE_TOO_LARGE", message, _jpeg(jpeg, box)))
    return found


def _jpeg(possible: bool, box: tuple[int, int] | None = None) -> str | None:
    if not possible:
        return None
    return f"jpeg-fit-{box[0]}x{box[1]}" if box else "jpeg"


def _image_box(fmt: MediaFormats, media: Media) -> tuple[int, int] | None:
    """The box the image must shrink into, or None when it fits the platform as it is."""
    width, height = media.width, media.height
    if not width or not height:
        return None
    box_w, box_h = fmt.image_max_width or width, fmt.image_max_height or height
    if fmt.image_max_pixels and width * height > fmt.image_max_pixels:
        scale = math.sqrt(fmt.image_max_pixels / (width * height))
        box_w, box_h = min(box_w, int(width * scale)), min(box_h, int(height * scale))
    return None if (width <= box_w and height <= box_h) else (box_w, box_h)


def _video_findings(name: str, rule: MediaLimits, fmt: MediaFormats, media: Media) -> list[Finding]:
    mp4 = "h264-aac-mp4" if MP4 in rule.content_types and can_transcode(media) else None
    found = []
    if media.content_type not in rule.content_types:
        found.append(Finding("UNSUPPORTED_MEDIA_TYPE", f"{name} does not take {media.content_type}.", mp4))
    if rule.max_size_bytes is not None and media.size_bytes > rule.max_size_bytes:
        found.append(Finding("MEDIA_TOO_LARGE", f"{name} takes files of at most {rule.max_size_bytes} bytes.", None))
    duration = media.duration_seconds
    if duration is not None and rule.max_duration_seconds is not None and duration > rule.max_duration_seconds:
        message = f"{name} takes videos of at most {rule.max_duration_seconds} seconds."
        found.append(Finding("VIDEO_TOO_LONG", message, None))
    if duration is not None and rule.min_duration_seconds is not None and duration < rule.min_duration_seconds:
        message = f"{name} takes videos of at least {rule.min_duration_seconds} seconds."
        found.append(Finding("VIDEO_TOO_SHORT", message, None))
    if media.video_codec and fmt.video_codecs and media.video_codec not in fmt.video_codecs:
        message = f"{name} takes video coded as {', '.join(fmt.video_codecs)}, not {media.video_codec}."
        found.append(Finding("UNSUPPORTED_VIDEO_CODEC", message, mp4))
    if media.audio_codec and fmt.audio_codecs and media.audio_codec not in fmt.audio_codecs:
        message = f"{name} takes sound coded as {', '.join(fmt.audio_codecs)}, not {media.audio_codec}."
        found.append(Finding("UNSUPPORTED_AUDIO_CODEC", message, mp4))
    found += _video_shape(name, fmt, media, mp4)
    return found


def _video_shape(name: str, fmt: MediaFormats, media: Media, mp4: str | None) -> list[Finding]:
    width, height = media.width, media.height
    if not width or not height:
        return []
    found = []
    box_w, box_h = fmt.video_max_width or width, fmt.video_max_height or height
    if width > box_w or height > box_h:
        message = f"{name} takes videos of at most {box_w}x{box_h} px; this one is {width}x{height}."
        found.append(Finding("VIDEO_DIMENSIONS_TOO_LARGE", message, mp4 and f"{mp4}-fit-{box_w}x{box_h}"))
    if fmt.video_aspect and not fmt.video_aspect[0] - 0.005 <= width / height <= fmt.video_aspect[1] + 0.005:
        low, high = fmt.video_aspect
        message = (
            f"{name} takes videos with a width/height between {low:.2f} and {high:.2f}; this one is {width}x{height}."
        )
        found.append(Finding("UNSUPPORTED_ASPECT_RATIO", message, None))
    return found


def profile_for(platform: str, media: Media) -> str | None:
    """The one rendition that mends every finding of `media` on `platform`; None when it goes
    as it is, or when some finding has no mend (the create refused it; nothing to make)."""
    found = _format_findings(platform, media)
    if not found or not all(f.profile for f in found):
        return None
    profiles = [f.profile for f in found if f.profile]
    boxes = [tuple(int(n) for n in m.groups()) for p in profiles if (m := _BOX.search(p))]
    base = _BOX.sub("", profiles[0])
    if not boxes:
        return base
    return f"{base}-fit-{min(b[0] for b in boxes)}x{min(b[1] for b in boxes)}"


def box_of(profile: str) -> tuple[int, int] | None:
    match = _BOX.search(profile)
    return (int(match.group(1)), int(match.group(2))) if match else None
