"""Small real media files built in memory: PNG/JPEG/GIF/WebP through Pillow, MP4/MOV by hand."""

from __future__ import annotations

import functools
import io
import os
import struct
import subprocess
import tempfile
import zlib

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


def ftyp(brand: bytes = b"isom") -> bytes:
    return _box(b"ftyp", brand + b"\x00\x00\x02\x00" + brand + b"mp41")


def moov(*, seconds: float = 2.5, width: int = 640, height: int = 360) -> bytes:
    mvhd = _box(b"mvhd", b"\x00" * 4 + b"\x00" * 8 + struct.pack(">II", 1000, int(seconds * 1000)) + b"\x00" * 80)
    picture = _box(b"trak", _box(b"tkhd", b"\x00" * 76 + struct.pack(">II", width << 16, height << 16)))
    return _box(b"moov", mvhd + picture)


TINY_BOX = struct.pack(">I4s", 8, b"free")  # a whole box in 8 bytes: millions fit in a video


def box_header(kind: bytes, size: int) -> bytes:
    """The header of a box of `size` bytes in all (a 64-bit one when it does not fit 32 bits)."""
    if size < 2**32:
        return struct.pack(">I4s", size, kind)
    return struct.pack(">I4sQ", 1, kind, size)


class Synthetic:
    """A large file that exists only as a function: `prefix`, then `unit` `count` times, then
    `suffix`. `read` serves ranges of it and records them; past `max_reads` reads it fails the
    test, so a walk that reads box by box fails at once instead of running for minutes."""

    def __init__(self, prefix: bytes, unit: bytes, count: int, suffix: bytes = b"", max_reads: int = 10) -> None:
        self.prefix, self.unit, self.suffix, self.max_reads = prefix, unit, suffix, max_reads
        self.body_end = len(prefix) + len(unit) * count
        self.size = self.body_end + len(suffix)
        self.reads: list[tuple[int, int]] = []

    def read(self, offset: int, length: int) -> bytes:
        self.reads.append((offset, length))
        assert len(self.reads) <= self.max_reads, f"{len(self.reads)} reads: the walk is not bounded"
        return bytes(self._byte_range(offset, min(offset + length, self.size)))

    def _byte_range(self, start: int, end: int) -> bytearray:
        out = bytearray(self.prefix[start:end])
        position = max(start, len(self.prefix))
        while position < min(end, self.body_end):
            phase = (position - len(self.prefix)) % len(self.unit)
            piece = self.unit[phase : phase + min(end, self.body_end) - position]
            out += piece
            position += len(piece)
        if end > self.body_end:
            out += self.suffix[max(start, self.body_end) - self.body_end : end - self.body_end]
        return out


def stored_upload(team, data: bytes, content_type: str, name: str, *, confirmed: bool = True) -> str:
    """The id of an upload of `team` whose bytes are in storage, confirmed unless asked not."""
    from media import services, storage

    made = services.media_create(team=team, user=None, filename=name, content_type=content_type, size_bytes=len(data))
    storage.write_stream(made.storage_key, [data])
    if confirmed:
        made = services.media_confirm(team=team, media_id=str(made.pk))
    return str(made.pk)


@functools.cache
def encoded(*, codec: str = "libx264", seconds: float = 1.0, size: str = "64x64", fmt: str = "mp4") -> bytes:
    """A real video made by ffmpeg from its test sources (a test card and a tone), tiny and
    quick: `codec` "libx264" (H.264), "mpeg4" (MPEG-4 Part 2), ...; `fmt` "mp4" or "mov"."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, f"out.{fmt}")
        args = [
            "ffmpeg", "-nostdin", "-v", "error", "-y",
            "-f", "lavfi", "-i", f"testsrc=size={size}:rate=25:duration={seconds}",
            "-f", "lavfi", "-i", f"sine=duration={seconds}",
            "-c:v", codec, "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", out,
        ]  # fmt: skip
        subprocess.run(args, check=True, capture_output=True, timeout=60)  # noqa: S603
        with open(out, "rb") as handle:
            return handle.read()


def png_header(width: int, height: int, body: bytes = b"garbage" * 50) -> bytes:
    """A PNG signature and IHDR claiming width x height, then `body` instead of image data."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I4s", len(ihdr), b"IHDR") + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk + body


@functools.cache
def png_bomb(width: int, height: int) -> bytes:
    """An RGBA PNG of width x height transparent pixels, a few hundred KB on disk for what
    decodes to width * height * 4 bytes; made row by row, so this process never holds it."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8 bits, RGBA
    squeeze = zlib.compressobj(9)
    row = b"\x00" * (1 + 4 * width)  # filter byte "none", then the pixels
    data = b"".join(squeeze.compress(row) for _ in range(height)) + squeeze.flush()

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
