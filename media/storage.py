"""Where media bytes live: S3 (any S3 API) when a bucket is configured, otherwise local files
under MEDIA_ROOT served and received by this service through signed, expiring URLs.

Both backends answer the same questions (presign an upload, read a range, stream a file in,
snapshot a key, give a short-lived download URL), so nothing else in the code base knows which
one runs. Neither ever changes bytes in place: S3 replaces an object whole, and a local file is
written aside and renamed over the old one. A snapshot (S3 CopyObject, a local hard link) is
therefore a fixed copy that later writes to its source cannot reach.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import tempfile
import time
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import urlencode

from botocore.exceptions import ClientError
from django.conf import settings
from django.core import signing
from django.core.files.base import File
from django.core.files.storage import Storage, default_storage
from django.urls import reverse
from django.utils.crypto import constant_time_compare


def _storage() -> Storage:
    return default_storage


def is_s3() -> bool:
    return hasattr(_storage(), "bucket_name")


def _s3_client() -> Any:
    return _storage().connection.meta.client  # type: ignore[attr-defined]


# --- signed URLs to this service (local storage) ---------------------------------------


def _signature(purpose: str, media_id: str, expires: int) -> str:
    return signing.Signer(salt=f"media.{purpose}").signature(f"{media_id}:{expires}")


def signed_query(purpose: str, media_id: str, lifetime_seconds: int) -> str:
    expires = int(time.time()) + lifetime_seconds
    return urlencode({"expires": expires, "signature": _signature(purpose, media_id, expires)})


def signature_valid(purpose: str, media_id: str, expires: str, signature: str) -> bool | None:
    """True when valid, False when tampered with, None when it was genuine but has expired."""
    if not (expires.isascii() and expires.isdigit()):
        return False
    if not constant_time_compare(_signature(purpose, media_id, int(expires)), signature):
        return False
    return True if int(expires) >= time.time() else None


def _absolute(path: str) -> str:
    return str(settings.PUBLIC_BASE_URL).rstrip("/") + path


# --- the interface ----------------------------------------------------------------------


def presigned_upload(*, key: str, media_id: str, content_type: str, size: int) -> tuple[str, dict[str, str]]:
    """The URL to PUT the file to and the headers the PUT must carry. Type and size are bound:
    S3 signs both headers; the local endpoint compares them with the upload record."""
    headers = {"Content-Type": content_type, "Content-Length": str(size)}
    lifetime = settings.MEDIA_UPLOAD_URL_SECONDS
    if is_s3():
        params = {"Bucket": _storage().bucket_name, "Key": key, "ContentType": content_type, "ContentLength": size}  # type: ignore[attr-defined]
        url = _s3_client().generate_presigned_url("put_object", Params=params, ExpiresIn=lifetime, HttpMethod="PUT")
        return url, headers
    path = reverse("media-upload-content", kwargs={"pk": media_id})
    return f"{_absolute(path)}?{signed_query('put', media_id, lifetime)}", headers


def download_url(*, key: str, media_id: str, lifetime_seconds: int | None = None) -> str:
    """A short-lived URL anyone holding it can GET the file from (platforms pull media this way)."""
    lifetime = settings.MEDIA_DOWNLOAD_URL_SECONDS if lifetime_seconds is None else lifetime_seconds
    if is_s3():
        params = {"Bucket": _storage().bucket_name, "Key": key}  # type: ignore[attr-defined]
        return str(_s3_client().generate_presigned_url("get_object", Params=params, ExpiresIn=lifetime))
    path = reverse("media-download", kwargs={"pk": media_id})
    return f"{_absolute(path)}?{signed_query('get', media_id, lifetime)}"


def exists(key: str) -> bool:
    return _storage().exists(key)


def size(key: str) -> int:
    return _storage().size(key)


def read_range(key: str, offset: int, length: int) -> bytes:
    if length <= 0:
        return b""
    if is_s3():
        byte_range = f"bytes={offset}-{offset + length - 1}"
        response = _s3_client().get_object(Bucket=_storage().bucket_name, Key=key, Range=byte_range)  # type: ignore[attr-defined]
        return bytes(response["Body"].read())
    with _storage().open(key, "rb") as handle:
        handle.seek(offset)
        return bytes(handle.read(length))


def open_stream(key: str) -> File:  # type: ignore[type-arg]
    return _storage().open(key, "rb")


class _ChunkReader(io.RawIOBase):
    """A readable stream over an iterator of chunks (for boto3's multipart upload), counting bytes."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = iter(chunks)
        self._pending = b""
        self.written = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            self._pending = next(self._chunks, b"")
            if not self._pending:
                return 0
        count = min(len(buffer), len(self._pending))
        buffer[:count], self._pending = self._pending[:count], self._pending[count:]
        self.written += count
        return count


class _ChunkFile(File):  # type: ignore[type-arg]
    """A File over an iterator of chunks, so FileSystemStorage.save streams without buffering."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        super().__init__(None, name="upload")
        self._chunks = chunks
        self.written = 0

    def chunks(self, chunk_size: int | None = None) -> Iterator[bytes]:  # noqa: ARG002 - Django's File API
        for chunk in self._chunks:
            self.written += len(chunk)
            yield chunk

    def multiple_chunks(self, chunk_size: int | None = None) -> bool:  # noqa: ARG002 - Django's File API
        return True


def write_stream(key: str, chunks: Iterable[bytes]) -> int:
    """Store the chunks under `key` (replacing what was there, whole) and return the byte count."""
    if is_s3():
        reader = _ChunkReader(chunks)
        _s3_client().upload_fileobj(io.BufferedReader(reader), _storage().bucket_name, key)  # type: ignore[attr-defined]
        return reader.written
    staged, written = stage(key, chunks)
    promote(staged, key)
    return written


def stage(key: str, chunks: Iterable[bytes]) -> tuple[str, int]:
    """Local storage: write the chunks beside `key` under a fresh name (nothing is left if they
    fail) and return that name and the byte count; `promote` then puts the file in place."""
    source = _ChunkFile(chunks)
    staged = f"{key}.part-{secrets.token_hex(8)}"
    try:
        staged = _storage().save(staged, source)
    except Exception:
        _storage().delete(staged)
        raise
    return staged, source.written


def promote(staged: str, key: str) -> None:
    """Local storage: replace `key` by the staged file in one rename, so no reader (and no
    snapshot) ever sees a file half-written."""
    os.replace(_storage().path(staged), _storage().path(key))


def snapshot(source: str, target: str) -> bool:
    """Fix the bytes now at `source` under `target`, out of reach of later writes to `source`;
    False when nothing is stored at `source`. S3 copies server-side in one atomic CopyObject; a
    local file is hard-linked, which is as good since files are only ever replaced by rename."""
    if is_s3():
        bucket = _storage().bucket_name  # type: ignore[attr-defined]
        try:
            _s3_client().copy_object(Bucket=bucket, Key=target, CopySource={"Bucket": bucket, "Key": source})
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return False
            raise
        return True
    _storage().delete(target)  # left by a confirm that died before its commit
    try:
        os.link(_storage().path(source), _storage().path(target))
    except FileNotFoundError:
        return False
    return True


def delete(key: str) -> None:
    _storage().delete(key)


@contextlib.contextmanager
def local_path(key: str) -> Iterator[str]:
    """A path on this machine holding the bytes under `key`, for tools that read files
    (ffprobe, ffmpeg): the stored file itself locally, a temporary copy of an S3 object."""
    if not is_s3():
        yield _storage().path(key)
        return
    with tempfile.NamedTemporaryFile(prefix="media-", suffix=".bin") as copy:
        _s3_client().download_fileobj(_storage().bucket_name, key, copy)  # type: ignore[attr-defined]
        copy.flush()
        yield copy.name


def write_file(key: str, path: str) -> int:
    """Store the file at `path` under `key` (replacing what was there, whole); its size."""
    with open(path, "rb") as handle:
        return write_stream(key, iter(lambda: handle.read(1024 * 1024), b""))
