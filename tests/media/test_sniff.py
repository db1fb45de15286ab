from __future__ import annotations

import struct
import zlib

import pytest

from media.sniff import Unreadable, detect_type, sniff
from tests.media import files

MB = 1024 * 1024


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


# --- bounded cost: a hostile file costs a few reads whatever it holds -----------------------


def test_millions_of_tiny_boxes_are_typed_from_one_read():
    hostile = files.Synthetic(files.ftyp(), files.TINY_BOX, (500 * MB) // 8)

    found = sniff(hostile.read, hostile.size)

    assert (found.content_type, found.duration_seconds) == ("video/mp4", None)
    assert len(hostile.reads) == 1
    assert hostile.reads[0][1] <= MB


def test_boxes_each_past_the_last_read_cost_at_most_three_reads():
    box = files.box_header(b"free", 2 * MB) + bytes(2 * MB - 8)
    hostile = files.Synthetic(files.ftyp(), box, 250)

    found = sniff(hostile.read, hostile.size)

    assert found.content_type == "video/mp4"
    assert len(hostile.reads) <= 3
    assert sum(length for _, length in hostile.reads) <= 3 * MB


def test_a_moov_after_a_500_mb_mdat_is_still_read_in_three_reads():
    """As phones write it: ftyp, the media data, then moov at the very end."""
    mdat = files.box_header(b"mdat", 8 + 500 * MB)
    video = files.Synthetic(
        files.ftyp() + mdat, bytes(MB), 500, suffix=files.moov(seconds=61.5, width=1080, height=1920)
    )

    found = sniff(video.read, video.size)

    assert (found.content_type, found.width, found.height, found.duration_seconds) == ("video/mp4", 1080, 1920, 61.5)
    assert len(video.reads) <= 3


@pytest.mark.parametrize(
    "data",
    [
        files.ftyp() + files.box_header(b"mdat", 1008) + bytes(1000) + b"\x00\x00\x00",
        files.ftyp() + struct.pack(">I4s", 1, b"mdat") + b"\x00\x00\x00\x00",
        files.ftyp() + struct.pack(">I4s", 4, b"free") + bytes(100),
    ],
    ids=["cut-off-header", "cut-off-64-bit-size", "size-below-header"],
)
def test_a_broken_box_header_is_unreadable(data):
    with pytest.raises(Unreadable):
        _sniff(data)


def test_an_image_declaring_billions_of_pixels_is_unreadable():
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    bomb = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")

    with pytest.raises(Unreadable):
        _sniff(bomb)
