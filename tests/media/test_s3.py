"""The S3 storage path against s3rver, an S3 API on loopback that checks SigV4 signatures, the
signed Content-Type and Content-Length, and presigned-URL expiry the way S3 does: a PUT with
another type or length, a tampered URL or an expired one is refused by the storage service
itself, not by our code."""

from __future__ import annotations

import shutil
import socket
import struct
import subprocess
from pathlib import Path

import boto3
import pytest
import requests
from botocore.config import Config

from media import selectors, services, storage
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


@pytest.fixture
def gets(s3):
    """The GET requests the service sends to S3, as (key, Range); past twenty the test fails at
    once, rather than after a walk of a hostile file one ranged GET per box."""
    sent = []

    def record(request, **kwargs):
        if request.method == "GET" and f"/{BUCKET}/" in request.url:
            sent.append((request.url.split(f"/{BUCKET}/", 1)[1].split("?")[0], request.headers.get("Range")))
            assert len(sent) <= 20, "confirm reads the object box by box"

    client = storage._s3_client()
    client.meta.events.register("before-send.s3", record)
    yield sent
    client.meta.events.unregister("before-send.s3", record)


def _range_bytes(byte_range) -> int:
    first, last = byte_range.decode().removeprefix("bytes=").split("-")
    return int(last) - int(first) + 1


def test_confirm_before_the_put_on_s3_says_the_file_is_missing(api, owner, s3):
    created = _create(api, owner.key, files.image())

    response = api.post(f"/api/v1/media/uploads/{created['media_id']}/confirm", format="json")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "FILE_NOT_UPLOADED"


@pytest.mark.parametrize(
    "hostile",
    [
        files.ftyp() + files.TINY_BOX * (2 * 1024 * 1024 // 8),
        files.ftyp() + (files.box_header(b"free", 1024 * 1024 + 8) + bytes(1024 * 1024)) * 12,
    ],
    ids=["tiny-boxes", "boxes-past-each-read"],
)
def test_confirm_of_a_hostile_video_on_s3_is_a_few_ranged_gets(api, owner, s3, gets, hostile):
    created = _create(api, owner.key, hostile, content_type="video/mp4")
    assert _put(created, hostile).status_code == 200

    confirmed = api.post(f"/api/v1/media/uploads/{created['media_id']}/confirm", format="json")

    assert confirmed.status_code == 200
    assert 1 <= len(gets) <= 3
    assert all(byte_range is not None for _, byte_range in gets)
    assert sum(_range_bytes(byte_range) for _, byte_range in gets) <= 3 * 1024 * 1024


def test_a_truncated_box_header_on_s3_is_a_422_and_leaves_no_copy(api, owner, s3):
    broken = files.ftyp() + struct.pack(">I4s", 1, b"mdat") + b"\x00\x00\x00\x00"
    created = _create(api, owner.key, broken, content_type="video/mp4")
    assert _put(created, broken).status_code == 200

    response = api.post(f"/api/v1/media/uploads/{created['media_id']}/confirm", format="json")

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "UNRECOGNISED_MEDIA"
    listed = s3.list_objects_v2(Bucket=BUCKET, Prefix=f"teams/{owner.team.pk}/")["Contents"]
    assert [item["Key"] for item in listed] == [MediaUpload.objects.get(pk=created["media_id"]).storage_key]


def test_a_put_through_the_presigned_url_after_confirm_does_not_change_what_is_served(
    api, owner, s3, django_capture_on_commit_callbacks
):
    png = files.image()
    created = _create(api, owner.key, png)
    assert _put(created, png).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        assert api.post(f"/api/v1/media/uploads/{created['media_id']}/confirm", format="json").status_code == 200

    swapped = b"x" * len(png)
    assert _put(created, swapped).status_code == 200  # S3 cannot revoke the URL: the PUT lands

    upload = MediaUpload.objects.get(pk=created["media_id"])
    listed = api.get("/api/v1/media").json()["data"][0]
    assert requests.get(listed["download_url"], timeout=10).content == png
    assert requests.get(selectors.media_pull_url(upload), timeout=10).content == png
    with selectors.open_media(upload) as stream:
        assert stream.read() == png
    assert s3.get_object(Bucket=BUCKET, Key=upload.storage_key)["Body"].read() == swapped


def test_confirm_on_s3_removes_the_upload_key_and_delete_removes_both(
    api, owner, s3, django_capture_on_commit_callbacks
):
    png = files.image()
    created = _create(api, owner.key, png)
    _put(created, png)
    with django_capture_on_commit_callbacks(execute=True):
        api.post(f"/api/v1/media/uploads/{created['media_id']}/confirm", format="json")
    upload = MediaUpload.objects.get(pk=created["media_id"])
    keys = [item["Key"] for item in s3.list_objects_v2(Bucket=BUCKET, Prefix=f"teams/{owner.team.pk}/")["Contents"]]
    assert keys == [upload.content_key]

    _put(created, png)  # a late PUT through the still-valid URL
    services.media_delete(upload=upload)

    assert s3.list_objects_v2(Bucket=BUCKET, Prefix=f"teams/{owner.team.pk}/").get("KeyCount", 0) == 0


def test_a_file_in_s3_is_probed_and_fitted_from_a_temporary_copy(api, owner, s3):
    from media import fitting, probing

    png = files.image("PNG", (90, 60))
    media_id = files.stored_upload(owner.team, png, "image/png", "photo.png")
    probing.media_probe(upload_id=media_id)  # the worker's task, after the confirm

    upload = MediaUpload.objects.get(pk=media_id)
    assert (upload.probe_status, upload.video_codec, upload.width, upload.height) == ("done", "png", 90, 60)
    rendition = fitting.rendition_for(upload=upload, profile="jpeg")
    stored = s3.get_object(Bucket=BUCKET, Key=rendition.content_key)["Body"].read()
    assert stored.startswith(b"\xff\xd8\xff")
    assert (rendition.width, rendition.height, rendition.size_bytes) == (90, 60, len(stored))
    services.media_delete(upload=upload)
    assert s3.list_objects_v2(Bucket=BUCKET, Prefix=rendition.content_key).get("KeyCount", 0) == 0
