"""What the stand-ins do with media alike: pull a file from a URL, tell its type by its first
bytes, and count down the status checks a slow upload stays in processing for.

A stand-in fetches a pulled file for real, as the platform would (a short timeout, never more
than its size limit plus one byte, so a file that is too large shows by its length), and words
a failure its own way. Types are told by signature, never by a file's name or declared type.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any

MB = 1024 * 1024
NOT_HTTP = "not an http(s) URL"
IMAGE_SIGNATURES = (
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def fetch(url: object, limit: int, timeout: float = 5.0) -> bytes | str:
    """The first `limit` + 1 bytes at `url`, or why they could not be had: NOT_HTTP, or the
    error's text. A platform gives up on a pull after a few seconds."""
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return NOT_HTTP
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:  # noqa: S310 (http(s) only, checked above)
            data: bytes = answer.read(limit + 1)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return str(exc)
    return data


def image_type(data: bytes) -> str:
    """image/jpeg, png, gif or webp by the file's signature, or ""."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((kind for signature, kind in IMAGE_SIGNATURES if data.startswith(signature)), "")


def is_iso_video(data: bytes) -> bool:
    """An ISO base media file (MP4, QuickTime): an `ftyp` box first."""
    return data[4:8] == b"ftyp"


# Sample entry types of picture tracks in an ISO BMFF `stsd` box (ISO/IEC 14496-12 and -15,
# Apple's QuickTime formats): how a stand-in tells the codec without decoding.
VIDEO_ENTRIES = frozenset(
    (b"avc1", b"avc3", b"hvc1", b"hev1", b"mp4v", b"av01", b"vp08", b"vp09", b"s263", b"h263", b"jpeg", b"mjpa",
     b"mjpb", b"apch", b"apcn", b"apcs", b"apco", b"ap4h", b"dvh1", b"dvhe")
)  # fmt: skip
H264_OR_HEVC = ("avc1", "avc3", "hvc1", "hev1")


def video_codec(data: bytes) -> str:
    """The sample entry type of the file's picture track ("avc1", "mp4v"...), "" when none is
    found: an `stsd` box holds its version, flags and count, then each entry's size and type."""
    start = data.find(b"stsd")
    while start != -1:
        entry = data[start + 16 : start + 20]
        if entry in VIDEO_ENTRIES:
            return entry.decode("ascii")
        start = data.find(b"stsd", start + 4)
    return ""


def sniff(data: bytes) -> str:
    """The file's type: an image's, else video/quicktime or video/mp4, else ""."""
    if image_type(data) or not is_iso_video(data):
        return image_type(data)
    return "video/quicktime" if data[8:10] == b"qt" else "video/mp4"


def check_done(job: dict[str, Any], checks: str = "checks_left") -> bool:
    """One status check of a job still in processing for `job[checks]` checks: it counts one
    down and says False, or says True once none are left."""
    if job[checks] > 0:
        job[checks] -= 1
        return False
    return True
