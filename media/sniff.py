"""What a file really is, read from its bytes rather than taken from the client's word.

`sniff()` reads only what it needs through `read_range(offset, length)`, so it works the same on
a local file and on an S3 object (ranged GETs), and never loads a 500 MB video.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

ReadRange = Callable[[int, int], bytes]

HEAD_BYTES = 512 * 1024  # enough for any image header, EXIF included
MAX_MOOV_BYTES = 32 * 1024 * 1024  # a moov box larger than this is not parsed for metadata
# Major brands of ISO base media files that are QuickTime rather than MP4.
_QUICKTIME_BRANDS = {b"qt  "}
# Top-level atoms an old QuickTime file may begin with instead of `ftyp`.
_QUICKTIME_FIRST_ATOMS = {b"moov", b"mdat", b"wide", b"free", b"skip", b"pnot"}


@dataclass(frozen=True)
class Sniffed:
    content_type: str | None  # None: not one of the accepted types
    width: int | None = None
    height: int | None = None
    duration_seconds: float | None = None


def detect_type(head: bytes) -> str | None:
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[4:8] == b"ftyp":
        return "video/quicktime" if head[8:12] in _QUICKTIME_BRANDS else "video/mp4"
    if head[4:8] in _QUICKTIME_FIRST_ATOMS:
        return "video/quicktime"
    return None


def sniff(read_range: ReadRange, size: int) -> Sniffed:
    head = read_range(0, min(size, HEAD_BYTES))
    content_type = detect_type(head)
    if content_type is None:
        return Sniffed(None)
    if content_type.startswith("image/"):
        return _image(content_type, head)
    return _video(content_type, read_range, size)


def _image(content_type: str, head: bytes) -> Sniffed:
    try:
        with Image.open(io.BytesIO(head)) as image:
            width, height = image.size
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        return Sniffed(content_type)  # the magic number matched; dimensions are unknown
    return Sniffed(content_type, width=width, height=height)


def _boxes(data: bytes, start: int = 0, end: int | None = None) -> list[tuple[bytes, int, int]]:
    """(type, payload start, payload end) of the ISO BMFF boxes in data[start:end]."""
    end = len(data) if end is None else end
    found = []
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start : start + 8])
        header = 8
        if size == 1 and start + 16 <= end:
            size, header = struct.unpack(">Q", data[start + 8 : start + 16])[0], 16
        elif size == 0:
            size = end - start
        if size < header:
            break
        found.append((kind, start + header, min(start + size, end)))
        start += size
    return found


def _find_moov(read_range: ReadRange, size: int) -> bytes | None:
    offset = 0
    while offset + 8 <= size:
        header = read_range(offset, 16)
        box_size, kind = struct.unpack(">I4s", header[:8])
        header_size = 8
        if box_size == 1:
            box_size, header_size = struct.unpack(">Q", header[8:16])[0], 16
        elif box_size == 0:
            box_size = size - offset
        if box_size < header_size:
            return None
        if kind == b"moov":
            length = box_size - header_size
            return read_range(offset + header_size, length) if length <= MAX_MOOV_BYTES else None
        offset += box_size
    return None


def _video(content_type: str, read_range: ReadRange, size: int) -> Sniffed:
    moov = _find_moov(read_range, size)
    if moov is None:
        return Sniffed(content_type)
    duration, width, height = None, None, None
    for kind, start, end in _boxes(moov):
        if kind == b"mvhd":
            duration = _mvhd_duration(moov[start:end])
        elif kind == b"trak" and width is None:
            width, height = _track_dimensions(moov, start, end)
    return Sniffed(content_type, width=width, height=height, duration_seconds=duration)


def _mvhd_duration(payload: bytes) -> float | None:
    version = payload[0] if payload else 0
    if version == 1 and len(payload) >= 32:
        timescale, duration = struct.unpack(">IQ", payload[20:32])
    elif len(payload) >= 20:
        timescale, duration = struct.unpack(">II", payload[12:20])
    else:
        return None
    return round(duration / timescale, 3) if timescale else None


def _track_dimensions(moov: bytes, start: int, end: int) -> tuple[int | None, int | None]:
    for kind, box_start, box_end in _boxes(moov, start, end):
        if kind == b"tkhd" and box_end - box_start >= 8:
            # The track's presentation size: the last 8 bytes, two 16.16 fixed-point numbers.
            width, height = struct.unpack(">II", moov[box_end - 8 : box_end])
            if width and height:  # audio tracks carry 0 x 0
                return width >> 16, height >> 16
    return None, None
