"""What a file really is, read from its bytes rather than taken from the client's word.

`sniff()` reads through `read_range(offset, length)`, so it works the same on a local file and
on an S3 object (ranged GETs), and never loads a 500 MB video. It runs inside the confirm
request, so its cost is bounded whatever the file holds:

- at most MAX_READS reads: the first READ_BYTES of the file, then only to step past a box that
  ends beyond what was read (an `mdat` before the `moov`, as cameras write it) or to take a
  `moov` that did not fit, at most MAX_MOOV_BYTES;
- at most MAX_BOXES boxes walked, top-level and nested together.

When the budget runs out the type stands on what was seen (the `ftyp` brand or the first atom
says MP4 or QuickTime) and the metadata stays unknown, as for a truncated video. A box header
that is itself broken (cut off by the end of the file, or smaller than a header) is
`Unreadable`, and so is an image Pillow refuses to open as a decompression bomb.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

ReadRange = Callable[[int, int], bytes]

READ_BYTES = 1024 * 1024  # what every read fetches at least: any image header, EXIF included
MAX_READS = 3  # the head, the box after an mdat, a moov that did not fit in that window
MAX_MOOV_BYTES = 8 * 1024 * 1024  # a moov box larger than this is not parsed for metadata
MAX_BOXES = 1024  # a real file has a dozen before its moov; millions of tiny ones are an attack
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


class Unreadable(Exception):
    """The bytes start like an accepted type but are broken, or unsafe to read further."""


class _OutOfBudget(Exception):
    pass


class _File:
    """The file seen through at most MAX_READS reads, kept in memory, and a walk of at most
    MAX_BOXES boxes: the two budgets that bound what a hostile file can cost."""

    def __init__(self, read_range: ReadRange, size: int) -> None:
        self._read_range = read_range
        self.size = size
        self._windows: list[tuple[int, bytes]] = []
        self._reads = 0
        self._boxes = 0

    def get(self, offset: int, length: int) -> bytes:
        """Up to `length` bytes at `offset`; fewer only where the file ends."""
        length = min(length, self.size - offset)
        if length <= 0:
            return b""
        for start, data in self._windows:
            if start <= offset and offset + length <= start + len(data):
                return data[offset - start : offset - start + length]
        if self._reads >= MAX_READS:
            raise _OutOfBudget
        self._reads += 1
        data = self._read_range(offset, min(max(length, READ_BYTES), self.size - offset))
        self._windows.append((offset, data))
        return data[:length]

    def count_box(self) -> None:
        self._boxes += 1
        if self._boxes > MAX_BOXES:
            raise _OutOfBudget


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
    """The type and metadata of a file of `size` bytes. Raises Unreadable (see the module doc)."""
    file = _File(read_range, size)
    head = file.get(0, READ_BYTES)
    content_type = detect_type(head)
    if content_type is None:
        return Sniffed(None)
    if content_type.startswith("image/"):
        return _image(content_type, head)
    return _video(content_type, file)


def _image(content_type: str, head: bytes) -> Sniffed:
    try:
        with Image.open(io.BytesIO(head)) as image:
            width, height = image.size
    except Image.DecompressionBombError as exc:
        raise Unreadable("it declares more pixels than can safely be decoded") from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        return Sniffed(content_type)  # the magic number matched; dimensions are unknown
    return Sniffed(content_type, width=width, height=height)


def _header(data: bytes, offset: int, room: int) -> tuple[bytes, int, int]:
    """(type, header size, box size) of the ISO BMFF box header at data[offset:], in a
    container with `room` bytes left from `offset`. A size of 0 means "to the end"."""
    available = min(room, len(data) - offset)
    if available < 8:
        raise Unreadable(f"a box header is cut off after {available} bytes")
    size, kind = struct.unpack(">I4s", data[offset : offset + 8])
    header = 8
    if size == 1:
        if available < 16:
            raise Unreadable(f"a 64-bit box header is cut off after {available} bytes")
        size, header = struct.unpack(">Q", data[offset + 8 : offset + 16])[0], 16
    elif size == 0:
        size = room
    if size < header:
        name = kind.decode("latin-1")
        raise Unreadable(f"a '{name}' box declares {size} bytes, less than its own header")
    return kind, header, size


def _top_level(file: _File) -> Iterator[tuple[bytes, int, int]]:
    """(type, payload start, box end) of the file's top-level boxes, one header read each."""
    offset = 0
    while offset < file.size:
        file.count_box()
        kind, header, size = _header(file.get(offset, 16), 0, file.size - offset)
        yield kind, offset + header, offset + size
        offset += size


def _children(data: bytes, file: _File, start: int, end: int) -> Iterator[tuple[bytes, int, int]]:
    """(type, payload start, payload end) of the boxes in data[start:end]; a broken child
    ends the list rather than the sniff, since it only costs metadata."""
    while start + 8 <= end:
        file.count_box()
        try:
            kind, header, size = _header(data, start, end - start)
        except Unreadable:
            return
        yield kind, start + header, min(start + size, end)
        start += size


def _find_moov(file: _File) -> bytes | None:
    for kind, start, end in _top_level(file):
        if kind == b"moov":
            return file.get(start, end - start) if end - start <= MAX_MOOV_BYTES else None
    return None


def _video(content_type: str, file: _File) -> Sniffed:
    try:
        return _video_metadata(content_type, file)
    except _OutOfBudget:
        return Sniffed(content_type)  # typed by its first box; a real file never gets here


def _video_metadata(content_type: str, file: _File) -> Sniffed:
    moov = _find_moov(file)
    if moov is None:
        return Sniffed(content_type)
    duration, width, height = None, None, None
    for kind, start, end in _children(moov, file, 0, len(moov)):
        if kind == b"mvhd":
            duration = _mvhd_duration(moov[start:end])
        elif kind == b"trak" and width is None:
            width, height = _track_dimensions(moov, file, start, end)
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


def _track_dimensions(moov: bytes, file: _File, start: int, end: int) -> tuple[int | None, int | None]:
    for kind, box_start, box_end in _children(moov, file, start, end):
        if kind == b"tkhd" and box_end - box_start >= 8:
            # The track's presentation size: the last 8 bytes, two 16.16 fixed-point numbers.
            width, height = struct.unpack(">II", moov[box_end - 8 : box_end])
            if width and height:  # audio tracks carry 0 x 0
                return width >> 16, height >> 16
    return None, None
