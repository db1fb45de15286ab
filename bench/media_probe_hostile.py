"""What probing costs on hostile files, and that each is refused: the worker's ffprobe run
(`media.processing.probe` and the caps of `refusal`) timed on

- a PNG header claiming 100000x100000 pixels (nothing behind it);
- a decompression bomb: a real 16000x16000 PNG of one colour, 768 MB decoded from under 1 MB;
- an MP4 cut in half (its `moov` box, at the end, is gone);
- a 500 MB sparse file that starts like an MP4 and holds nothing but zeros after;
- a real 1 s video whose duration is over a cap lowered to 0.5 s.

Every case must end as a refusal (a ProcessingError with its code) within the probe's wall
clock (MEDIA_PROBE_TIMEOUT_SECONDS) plus a second. Needs ffmpeg and ffprobe.

    .venv/bin/python bench/media_probe_hostile.py
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MB = 1024 * 1024


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def _png(width: int, height: int, body: bytes) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + body


def huge_header(path: str) -> None:
    Path(path).write_bytes(_png(100_000, 100_000, b""))


def bomb(path: str) -> None:
    side = 16_000
    row = b"\x00" + b"\x00" * (side * 3)  # filter byte, then black pixels
    packer = zlib.compressobj(9)
    data = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    Path(path).write_bytes(_png(side, side, _chunk(b"IDAT", data) + _chunk(b"IEND", b"")))


def _video(path: str, seconds: float) -> None:
    args = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc=size=64x64:duration={seconds}"]
    subprocess.run([*args, "-c:v", "libx264", path], check=True, timeout=60)  # noqa: S603


def truncated(path: str) -> None:
    _video(path + ".mp4", 1.0)
    data = Path(path + ".mp4").read_bytes()
    Path(path).write_bytes(data[: len(data) // 2])


def sparse(path: str) -> None:
    with open(path, "wb") as handle:
        handle.write(struct.pack(">I4s", 24, b"ftyp") + b"isom\x00\x00\x02\x00isomiso2")
        handle.truncate(500 * MB)


def too_long(path: str) -> None:
    _video(path + ".mp4", 1.0)
    os.replace(path + ".mp4", path)


CASES: list[tuple[str, Callable[[str], None], float | None]] = [
    ("PNG header claiming 100000x100000", huge_header, None),
    ("PNG bomb 16000x16000 (768 MB decoded)", bomb, None),
    ("MP4 cut in half", truncated, None),
    ("500 MB sparse file after an ftyp", sparse, None),
    ("1 s video over a 0.5 s duration cap", too_long, 0.5),
]


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings

    from media import processing

    bound = settings.MEDIA_PROBE_TIMEOUT_SECONDS + 1.0
    failures = 0
    with tempfile.TemporaryDirectory() as folder:
        for name, make, cap in CASES:
            path = os.path.join(folder, "case")
            make(path)
            settings.MEDIA_MAX_DURATION_SECONDS = cap or 4 * 3600.0
            started = time.monotonic()
            try:
                found = processing.probe(path)
                refused = processing.refusal(found)
            except processing.ProcessingError as exc:
                refused = exc
            took = time.monotonic() - started
            verdict = f"{refused.code}: {refused.message[:70]}" if refused else "ACCEPTED"
            ok = refused is not None and took <= bound
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {took:6.2f} s  {name:40} {verdict}")
    print(f"bound: {bound:.0f} s a probe; {failures} case(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
