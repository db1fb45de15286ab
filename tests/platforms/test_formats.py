"""What each platform's documented formats rule out, and which rendition mends it: one profile
per item that mends every finding, or none when a finding cannot be mended (aspect, length)."""

from __future__ import annotations

import pytest

from accounts.platforms import formats
from accounts.platforms.base import Media


def _media(content_type: str, **facts) -> Media:
    values = {"size_bytes": 1000, "width": 640, "height": 480, "duration_seconds": None, **facts}
    return Media(id="m", content_type=content_type, open=lambda: None, pull_url=lambda: "", **values)  # type: ignore[arg-type, return-value]


def test_a_png_for_instagram_becomes_a_jpeg():
    assert formats.profile_for("instagram", _media("image/png")) == "jpeg"
    assert formats.profile_for("instagram", _media("image/jpeg")) is None


def test_an_image_over_a_pixel_cap_is_scaled_within_it():
    profile = formats.profile_for("linkedin", _media("image/png", width=8000, height=6000))

    box = formats.box_of(profile or "")
    assert profile is not None
    assert profile.startswith("jpeg-fit-")
    assert box is not None
    assert box[0] * box[1] <= 36_152_320
    assert box[0] / box[1] == pytest.approx(8000 / 6000, rel=0.01)


def test_a_video_in_a_refused_codec_and_too_wide_is_one_scaled_transcode():
    video = _media("video/quicktime", video_codec="prores", width=3840, height=2160, duration_seconds=20.0)

    assert formats.profile_for("x", video) == "h264-aac-mp4-fit-1280x1024"
    assert formats.profile_for("instagram", video) == "h264-aac-mp4-fit-1920x2160"


def test_an_aspect_ratio_or_a_length_is_never_mended(settings):
    tall = _media("video/mp4", video_codec="mpeg4", width=100, height=1000, duration_seconds=20.0)
    assert [f.code for f in formats.findings("x", tall)] == ["UNSUPPORTED_VIDEO_CODEC", "UNSUPPORTED_ASPECT_RATIO"]
    assert formats.profile_for("x", tall) is None  # the create names the aspect ratio

    settings.MEDIA_FIT_MAX_VIDEO_SECONDS = 10
    long = _media("video/mp4", video_codec="mpeg4", duration_seconds=20.0)
    assert formats.findings("instagram", long)[0].profile is None  # too long to transcode in a delivery


def test_without_ffmpeg_no_video_is_fitted(settings):
    settings.FFMPEG_BINARY = "/nonexistent/ffmpeg"
    video = _media("video/mp4", video_codec="mpeg4", duration_seconds=5.0)

    assert formats.findings("instagram", video)[0].code == "UNSUPPORTED_VIDEO_CODEC"
    assert formats.profile_for("instagram", video) is None
