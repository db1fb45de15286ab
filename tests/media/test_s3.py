"""The S3 storage path against s3rver, an S3 API on loopback that checks SigV4 signatures, the
signed Content-Type and Content-Length, and presigned-URL expiry the way S3 does: a PUT with
another type or length, a tampered URL or an expired one is refused by the storage service
itself, not by our code."""

from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

import boto3
import pytest
import requests
from botocore.config import Config

from media import services, storage
from media.models import MediaState, MediaUpload
from tests.media import files

pytestmark = pytest.mark.django_db

DOUBLE = Path(__file__).parent / "s3rver"
BUCKET = "media-test"
CREDENTIALS = {"aws_access_key_id": "S3RVER", "aws_secret_access_key": "S3RVER"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_until_ready(process: subprocess.Popen) -> None:
    line = process.stdout.readline()  # serve.js prints "ready <port>" once it listens
    if not line.startswith("ready"):
        raise RuntimeError(f"s3rver did not start: {line or process.stderr.read()}")


@pytest.fixture(scope="module")
def s3_endpoint(tmp_path_factory):
    node = shutil.which("node")
    if node is None or not (DOUBLE / "node_modules").exists():
        pytest.skip("s3rver is not installed: run `make install` with Node.js available")
    port = _free_port()
    command = [node, str(DOUBLE / "serve.js"), str(tmp_path_factory.mktemp("s3")), str(port)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # noqa: S603
    try:
        _wait_until_ready(process)
        endpoint = f"http://127.0.0.1:{port}"
        client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", **CREDENTIALS)
        client.create_bucket(Bucket=BUCKET)
        yield endpoint
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def s3(settings, s3_endpoint):
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": BUCKET,
                "endpoint_url": s3_endpoint,
                "region_name": "us-east-1",
                "access_key": CREDENTIALS["aws_access_key_id"],
                "secret_key": CREDENTIALS["aws_secret_access_key"],
                "addressing_style": "path",
                "signature_version": "s3v4",
                "file_overwrite": True,
                "default_acl": None,
            },
        },
    }
    assert storage.is_s3()
    return boto3.client(
        "s3",
        endpoint_url=s3_endpoint,
        region_name="us-east-1",
        config=Config(signature_version="s3v4", s3={"addressing_style": "path"}),
        **CREDENTIALS,
    )


def _create(api, key, data: bytes, content_type="image/png"):
    body = {"filename": "photo", "content_type": content_type, "size_bytes": len(data)}
    response = api.as_(key).post("/api/v1/media/uploads", body, format="json")
    assert response.status_code == 201
    return response.json()["data"]


def _put(created, data, **header_overrides):
    return requests.put(
        created["upload_url"], data=data, headers={**created["headers"], **header_overrides}, timeout=10
    )


def _stored(s3, media_id) -> bool:
    key = MediaUpload.objects.get(pk=media_id).storage_key
    return s3.list_objects_v2(Bucket=BUCKET, Prefix=key).get("KeyCount", 0) > 0


def test_upload_to_s3_confirm_and_download(api, owner, s3):
    mp4 = files.video(seconds=4.0, width=720, height=1280)
    created = _create(api, owner.key, mp4, content_type="video/mp4")
    assert "X-Amz-Signature=" in created["upload_url"]

    assert _put(created, mp4).status_code == 200
    confirmed = api.post(f"/api/v1/media/uploads/{created['media_id']}/confirm", format="json")

    assert confirmed.status_code == 200
    data = confirmed.json()["data"]
    assert (data["width"], data["height"], data["duration_seconds"]) == (720, 1280, 4.0)
    assert requests.get(data["download_url"], timeout=10).content == mp4


def test_the_object_key_is_scoped_to_the_team(api, owner, s3):
    created = _create(api, owner.key, files.image())

    key = MediaUpload.objects.get(pk=created["media_id"]).storage_key

    assert key == f"teams/{owner.team.pk}/media/{created['media_id']}"


def test_s3_refuses_a_put_with_another_content_type(api, owner, s3):
    png = files.image()
    created = _create(api, owner.key, png)

    response = _put(created, png, **{"Content-Type": "image/jpeg"})

    assert response.status_code == 403
    assert "SignatureDoesNotMatch" in response.text
    assert not _stored(s3, created["media_id"])


def test_s3_refuses_a_put_larger_than_declared(api, owner, s3):
    png = files.image()
    created = _create(api, owner.key, png)

    response = requests.put(
        created["upload_url"], data=png + b"extra", headers={"Content-Type": "image/png"}, timeout=10
    )

    assert response.status_code == 403
    assert not _stored(s3, created["media_id"])


def test_s3_refuses_a_tampered_url(api, owner, s3):
    png = files.image()
    created = _create(api, owner.key, png)
    signature = created["upload_url"].rsplit("X-Amz-Signature=", 1)[1]
    created["upload_url"] = created["upload_url"].replace(signature, signature[::-1])

    response = _put(created, png)

    assert response.status_code == 403
    assert not _stored(s3, created["media_id"])


def test_s3_refuses_an_expired_url(api, owner, s3, settings):
    settings.MEDIA_UPLOAD_URL_SECONDS = 0
    png = files.image()
    # Valid for 0 s after X-Amz-Date (whole seconds, rounded down): any later PUT is too late.
    created = _create(api, owner.key, png)

    response = _put(created, png)

    assert response.status_code == 403
    assert "Request has expired" in response.text
    assert not _stored(s3, created["media_id"])


def test_confirm_reads_only_the_head_of_a_large_object(api, owner, s3):
    """A 12 MB upload is sniffed through ranged reads; confirm never downloads it whole."""
    big = files.video() + b"\x00" * (12 * 1024 * 1024)
    created = _create(api, owner.key, big, content_type="video/mp4")
    assert _put(created, big).status_code == 200

    confirmed = api.post(f"/api/v1/media/uploads/{created['media_id']}/confirm", format="json")

    assert confirmed.status_code == 200
    assert MediaUpload.objects.get(pk=created["media_id"]).state == MediaState.READY


def test_a_fetched_source_url_is_streamed_into_s3(api, owner, s3, settings, live_server):
    """The service's own download URL serves as the source: a multipart upload of 9 MB."""
    settings.SSRF_ALLOW_PRIVATE = True
    settings.PUBLIC_BASE_URL = live_server.url
    payload = files.video() + b"\x01" * (9 * 1024 * 1024)
    first = _create(api, owner.key, payload, content_type="video/mp4")
    _put(first, payload)
    api.post(f"/api/v1/media/uploads/{first['media_id']}/confirm", format="json")
    source = api.get("/api/v1/media").json()["data"][0]["download_url"]

    fetched = api.post(
        "/api/v1/media/uploads",
        {"filename": "copy.mp4", "content_type": "video/mp4", "source_url": source},
        format="json",
    ).json()["data"]
    services.media_fetch_source(upload_id=fetched["media_id"])

    upload = MediaUpload.objects.get(pk=fetched["media_id"])
    assert (upload.fetch_status, upload.fetch_error) == ("done", "")
    assert upload.size_bytes == len(payload)
    assert api.post(f"/api/v1/media/uploads/{fetched['media_id']}/confirm", format="json").status_code == 200


def test_cleanup_deletes_the_s3_object(api, owner, s3):
    png = files.image()
    created = _create(api, owner.key, png)
    _put(created, png)
    MediaUpload.objects.filter(pk=created["media_id"]).update(created_at="2000-01-01T00:00:00Z")

    services.media_delete_unconfirmed()

    assert not MediaUpload.objects.filter(pk=created["media_id"]).exists()
    assert s3.list_objects_v2(Bucket=BUCKET, Prefix=f"teams/{owner.team.pk}/").get("KeyCount", 0) == 0
