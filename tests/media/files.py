"""Small real media files built in memory: PNG/JPEG/GIF/WebP through Pillow, MP4/MOV by hand."""

from __future__ import annotations

import io
import struct

from PIL import Image


def image(fmt: str = "PNG", size: tuple[int, int] = (64, 48)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buffer, format=fmt)
    return buffer.getvalue()


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def video(*, brand: bytes = b"isom", seconds: float = 2.5, width: int = 640, height: int = 360) -> bytes:
    """An ISO BMFF file with its moov box after the media data, as many encoders write it."""
    ftyp = _box(b"ftyp", brand + b"\x00\x00\x02\x00" + brand + b"mp41")
    mvhd = _box(b"mvhd", b"\x00" * 4 + b"\x00" * 8 + struct.pack(">II", 1000, int(seconds * 1000)) + b"\x00" * 80)
    audio = _box(b"trak", _box(b"tkhd", b"\x00" * 76 + struct.pack(">II", 0, 0)))
    picture = _box(b"trak", _box(b"tkhd", b"\x00" * 76 + struct.pack(">II", width << 16, height << 16)))
    mdat = _box(b"mdat", b"\x00" * 4096)
    return ftyp + mdat + _box(b"moov", mvhd + audio + picture)
