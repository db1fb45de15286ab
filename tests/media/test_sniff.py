from __future__ import annotations

import pytest

from media.sniff import detect_type, sniff
from tests.media import files


def _sniff(data: bytes):
    return sniff(lambda offset, length: data[offset : offset + length], len(data))


@pytest.mark.parametrize(
    ("fmt", "content_type"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")],
)
def test_images_are_recognised_with_their_dimensions(fmt, content_type):
    found = _sniff(files.image(fmt, (120, 80)))

    assert (found.content_type, found.width, found.height) == (content_type, 120, 80)


def test_mp4_is_recognised_with_duration_and_picture_size():
    found = _sniff(files.video(seconds=2.5, width=1280, height=720))

    assert found.content_type == "video/mp4"
    assert (found.width, found.height, found.duration_seconds) == (1280, 720, 2.5)


def test_quicktime_brand_is_quicktime():
    assert _sniff(files.video(brand=b"qt  ")).content_type == "video/quicktime"


@pytest.mark.parametrize(
    "data",
    [b"", b"hello world", b"%PDF-1.7\n", b"<svg xmlns='http://www.w3.org/2000/svg'/>", b"\x1aE\xdf\xa3webm"],
    ids=["empty", "text", "pdf", "svg", "webm"],
)
def test_anything_else_is_not_recognised(data):
    assert detect_type(data) is None


def test_a_truncated_video_is_still_typed_without_metadata():
    data = files.video()[:1000]  # the moov box is missing

    found = _sniff(data)

    assert found.content_type == "video/mp4"
    assert found.duration_seconds is None
