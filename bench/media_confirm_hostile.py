"""How long confirm takes on a 500 MB hostile file, on local storage and on S3 (s3rver).

Each case stores a file of MEDIA_MAX_BYTES under a fresh upload and times `media_confirm`,
counting the reads it makes of the stored bytes:

- tiny boxes: an `ftyp`, then 8-byte `free` boxes to the end (62 million of them);
- boxes past each read: an `ftyp`, then `free` boxes of 1 MB + 8 bytes, so that every box
  header lies just past what the previous read fetched;
- cut-off header: an `mdat` to 3 bytes from the end, then a box header cut off there (a 422);
- phone layout (legitimate): `ftyp`, a 500 MB `mdat`, then `moov` (metadata still found).

All but the first are sparse files. The S3 run needs Node.js and s3rver (`make install`); on S3
confirm also copies the object server-side to its confirmed key, which is included in the time
and shown apart. The limit is one second per confirm.

    .venv/bin/python bench/media_confirm_hostile.py
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
S3RVER = ROOT / "tests/media/s3rver"
LIMIT_SECONDS = 1.0
MB = 1024 * 1024
BUCKET = "bench"
sys.path.insert(0, str(ROOT))


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


FTYP = _box(b"ftyp", b"isom\x00\x00\x02\x00isommp41")
MOOV = _box(
    b"moov",
    _box(b"mvhd", b"\x00" * 12 + struct.pack(">II", 1000, 61_500) + b"\x00" * 80)
    + _box(b"trak", _box(b"tkhd", b"\x00" * 76 + struct.pack(">II", 1080 << 16, 1920 << 16))),
)


def _tiny_boxes(path: Path, size: int) -> None:
    chunk = struct.pack(">I4s", 8, b"free") * (MB // 8)
    with path.open("wb") as out:
        out.write(FTYP)
        remaining = size - len(FTYP)
        while remaining:
            remaining -= out.write(chunk[: min(remaining, len(chunk))])


def _sparse(path: Path, size: int, pieces: Iterator[tuple[int, bytes]]) -> None:
    with path.open("wb") as out:
        out.truncate(size)
        for offset, data in pieces:
            out.seek(offset)
            out.write(data)


def _boxes_past_each_read(path: Path, size: int) -> None:
    def pieces() -> Iterator[tuple[int, bytes]]:
        yield 0, FTYP
        offset, box = len(FTYP), MB + 8
        while offset + box <= size:
            yield offset, struct.pack(">I4s", box, b"free")
            offset += box
        yield offset, struct.pack(">I4s", 0, b"free")  # the rest: one box to the end

    _sparse(path, size, pieces())


def _cut_off_header(path: Path, size: int) -> None:
    mdat = size - len(FTYP) - 3
    _sparse(path, size, iter([(0, FTYP + struct.pack(">I4s", mdat, b"mdat")), (size - 3, b"\x00\x00\x00")]))


def _phone_layout(path: Path, size: int) -> None:
    mdat = size - len(FTYP) - len(MOOV)
    _sparse(path, size, iter([(0, FTYP + struct.pack(">I4s", mdat, b"mdat")), (size - len(MOOV), MOOV)]))


CASES: list[tuple[str, Callable[[Path, int], None]]] = [  # (name, build(path, size))
    ("tiny boxes", _tiny_boxes),
    ("boxes past each read", _boxes_past_each_read),
    ("cut-off header", _cut_off_header),
    ("phone layout (legitimate)", _phone_layout),
]


@contextmanager
def _counting() -> Iterator[dict[str, float]]:
    """Counts reads of stored bytes and times snapshots (the S3 copy) during confirm."""
    from media import storage

    seen: dict[str, float] = {"reads": 0, "bytes": 0, "snapshot": 0.0}
    read_range, snapshot = storage.read_range, storage.snapshot

    def counted_read(key: str, offset: int, length: int) -> bytes:
        seen["reads"] += 1
        seen["bytes"] += length
        return read_range(key, offset, length)

    def timed_snapshot(source: str, target: str) -> bool:
        started = time.monotonic()
        try:
            return snapshot(source, target)
        finally:
            seen["snapshot"] += time.monotonic() - started

    storage.read_range, storage.snapshot = counted_read, timed_snapshot  # type: ignore[assignment]
    try:
        yield seen
    finally:
        storage.read_range, storage.snapshot = read_range, snapshot  # type: ignore[assignment]


Build = Callable[[Path, int], None]


def _confirm(team: Any, place: Callable[[str, Build, int], None], build: Build) -> str:
    from django.conf import settings

    from config.errors import ApplicationError
    from media import services
    from media.models import MediaUpload

    size = int(settings.MEDIA_MAX_BYTES)
    upload = services.media_create(
        team=team, user=None, filename="hostile.mp4", content_type="video/mp4", size_bytes=size
    )
    place(upload.storage_key, build, size)
    with _counting() as seen:
        started = time.monotonic()
        try:
            confirmed = services.media_confirm(team=team, media_id=str(upload.pk))
            found = confirmed.duration_seconds, confirmed.width, confirmed.height
            outcome = "200, no metadata" if found == (None, None, None) else "200, {} s, {}x{}".format(*found)
        except ApplicationError as exc:
            outcome = f"{exc.status_code} {exc.code}"
        elapsed = time.monotonic() - started
    services.media_delete(upload=MediaUpload.objects.get(pk=upload.pk))
    copy = f", of which copy {seen['snapshot']:.3f} s" if seen["snapshot"] > 0.01 else ""
    verdict = "ok" if elapsed < LIMIT_SECONDS else "TOO SLOW"
    return f"{elapsed:6.3f} s{copy}; {int(seen['reads'])} read(s) of {seen['bytes'] / MB:.2f} MB; {outcome}; {verdict}"


def _place_local(key: str, build: Build, size: int) -> None:
    from django.core.files.storage import default_storage

    target = Path(default_storage.path(key))
    target.parent.mkdir(parents=True, exist_ok=True)
    build(target, size)


def _place_on_s3(scratch: Path) -> Callable[[str, Build, int], None]:
    def place(key: str, build: Build, size: int) -> None:
        from media import storage

        body = scratch / "hostile.bin"
        build(body, size)
        storage._s3_client().upload_file(str(body), BUCKET, key)
        body.unlink()

    return place


@contextmanager
def _s3rver(scratch: Path) -> Iterator[str | None]:
    node = shutil.which("node")
    if node is None or not (S3RVER / "node_modules").exists():
        yield None
        return
    (scratch / "s3").mkdir()
    process = subprocess.Popen(  # noqa: S603
        [node, str(S3RVER / "serve.js"), str(scratch / "s3"), "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        line = process.stdout.readline() if process.stdout else ""
        if not line.startswith("ready"):
            raise RuntimeError(f"s3rver did not start: {line}")
        yield f"http://127.0.0.1:{line.split()[1]}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def _s3_storages(endpoint: str) -> dict[str, Any]:
    options = {
        "bucket_name": BUCKET,
        "endpoint_url": endpoint,
        "region_name": "us-east-1",
        "access_key": "S3RVER",
        "secret_key": "S3RVER",
        "addressing_style": "path",
        "signature_version": "s3v4",
        "file_overwrite": True,
        "default_acl": None,
    }
    return {"default": {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options}}


def _run(label: str, team: Any, place: Callable[[str, Build, int], None]) -> None:
    print(f"{label}:")
    for name, build in CASES:
        print(f"  {name:26} {_confirm(team, place, build)}", flush=True)


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch}/bench.sqlite3"
        os.environ.pop("REDIS_URL", None)
        os.environ.pop("AWS_STORAGE_BUCKET_NAME", None)
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        import django

        django.setup()
        from django.contrib.auth.models import User
        from django.core.management import call_command
        from django.test import override_settings

        from teams.services import team_create

        call_command("migrate", verbosity=0)
        team = team_create(name="bench", owner=User.objects.create(username="bench"))
        with override_settings(MEDIA_ROOT=str(scratch / "media")):
            _run("local storage", team, _place_local)
        with _s3rver(scratch) as endpoint:
            if endpoint is None:
                print("S3: skipped (s3rver is not installed: run `make install` with Node.js)")
                return 0
            with override_settings(STORAGES=_s3_storages(endpoint)):
                from media import storage

                storage._s3_client().create_bucket(Bucket=BUCKET)
                _run(f"S3 (s3rver at {endpoint})", team, _place_on_s3(scratch))
    return 0


if __name__ == "__main__":
    sys.exit(main())
