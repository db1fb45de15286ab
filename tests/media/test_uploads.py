"""The local-storage upload flow over real HTTP: create, PUT to the signed URL, confirm, list."""

from __future__ import annotations

import datetime as dt
import os
import struct

import pytest
import requests
from django.core.files.storage import default_storage
from django.db.models import F

from config.errors import Conflict
from media import selectors, services, storage
from media.models import MediaState, MediaUpload
from tests.factories import PlanFactory
from tests.media import files

pytestmark = pytest.mark.django_db


@pytest.fixture
def served(live_server, settings):
    """Upload URLs point at a real HTTP server running this service."""
    settings.PUBLIC_BASE_URL = live_server.url
    return live_server


def _create(api, key, **fields):
    body = {"filename": "photo.png", "content_type": "image/png", **fields}
    return api.as_(key).post("/api/v1/media/uploads", body, format="json")


def _put(created, data: bytes, **header_overrides):
    headers = {**created["headers"], **header_overrides}
    return requests.put(created["upload_url"], data=data, headers=headers, timeout=10)


def _upload(api, key, data: bytes, content_type="image/png", filename="photo.png"):
    created = _create(api, key, filename=filename, content_type=content_type, size_bytes=len(data)).json()["data"]
    assert _put(created, data).status_code == 200
    return created


def _confirm(api, key, media_id):
    return api.as_(key).post(f"/api/v1/media/uploads/{media_id}/confirm", format="json")


# --- create ---------------------------------------------------------------------------


def test_create_returns_the_upload_url_and_the_headers_to_send(api, owner, served):
    response = _create(api, owner.key, size_bytes=1234)

    assert response.status_code == 201
    data = response.json()["data"]
    assert data["media_id"] == data["id"]
    assert data["state"] == "unconfirmed"
    assert data["upload_url"].startswith(served.url)
    assert data["headers"] == {"Content-Type": "image/png", "Content-Length": "1234"}
    expires = dt.datetime.fromisoformat(data["upload_url_expires_at"])
    created = dt.datetime.fromisoformat(data["created_at"])
    assert expires - created == dt.timedelta(minutes=15)


@pytest.mark.parametrize(
    ("fields", "bad_field"),
    [
        ({"content_type": "video/webm", "size_bytes": 10}, "content_type"),
        ({"content_type": "text/plain", "size_bytes": 10}, "content_type"),
        ({"content_type": "image/svg+xml", "size_bytes": 10}, "content_type"),
        ({"size_bytes": 0}, "size_bytes"),
        ({"size_bytes": -5}, "size_bytes"),
        ({"size_bytes": 500 * 1024 * 1024 + 1}, "size_bytes"),
        ({"size_bytes": "big"}, "size_bytes"),
        ({}, "size_bytes"),
        ({"size_bytes": 10, "filename": ""}, "filename"),
        ({"size_bytes": 10, "source_url": "not a url"}, "source_url"),
        ({"source_url": "ftp://example.com/a.png"}, "source_url"),
    ],
)
def test_invalid_requests_are_a_400_naming_the_field(api, owner, fields, bad_field):
    response = _create(api, owner.key, **fields)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request"
    assert bad_field in error["details"]
    assert not MediaUpload.objects.exists()


def test_missing_content_type_is_a_400(api, owner):
    response = api.as_(owner.key).post("/api/v1/media/uploads", {"filename": "a.png", "size_bytes": 3}, format="json")

    assert response.status_code == 400
    assert "content_type" in response.json()["error"]["details"]


def test_500_mb_exactly_is_allowed(api, owner):
    assert _create(api, owner.key, content_type="video/mp4", size_bytes=500 * 1024 * 1024).status_code == 201


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("../../etc/passwd", "passwd"),
        ("my photo?.png", "my_photo.png"),
        ("C:\\Users\\me\\a.png", "a.png"),
        ("..", "upload"),
    ],
)
def test_filenames_are_sanitised(api, owner, given, stored):
    data = _create(api, owner.key, filename=given, size_bytes=10).json()["data"]

    assert data["filename"] == stored


def test_the_storage_quota_is_enforced_at_create(api, owner):
    owner.team.plan = PlanFactory(media_storage_gb=1)
    owner.team.save()
    for _ in range(2):
        assert _create(api, owner.key, content_type="video/mp4", size_bytes=400 * 1024**2).status_code == 201

    response = _create(api, owner.key, content_type="video/mp4", size_bytes=300 * 1024**2)

    assert response.status_code == 429
    assert response.json()["error"]["type"] == "quota_exceeded"
    assert response.json()["error"]["code"] == "STORAGE_QUOTA_EXCEEDED"
    usage = api.get("/api/v1/usage").json()["data"]["usage"]
    assert usage["media_storage_bytes"] == 800 * 1024**2


# --- PUT and confirm --------------------------------------------------------------------


def test_upload_confirm_and_list_end_to_end(api, owner, served):
    png = files.image("PNG", (320, 200))
    created = _upload(api, owner.key, png)

    confirmed = _confirm(api, owner.key, created["media_id"])

    assert confirmed.status_code == 200
    listed = api.get("/api/v1/media").json()
    item = listed["data"][0]
    assert item["id"] == created["media_id"]
    assert (item["width"], item["height"], item["size_bytes"]) == (320, 200, len(png))
    downloaded = requests.get(item["download_url"], timeout=10)
    assert downloaded.status_code == 200
    assert downloaded.content == png
    assert downloaded.headers["Content-Type"] == "image/png"


def test_a_video_gets_its_duration_and_size(api, owner, served):
    mp4 = files.video(seconds=3.0, width=1080, height=1920)
    created = _upload(api, owner.key, mp4, content_type="video/mp4", filename="clip.mp4")

    data = _confirm(api, owner.key, created["media_id"]).json()["data"]

    assert (data["width"], data["height"], data["duration_seconds"]) == (1080, 1920, 3.0)


def test_put_with_another_content_type_is_refused(api, owner, served):
    png = files.image()
    created = _create(api, owner.key, size_bytes=len(png)).json()["data"]

    response = _put(created, png, **{"Content-Type": "image/jpeg"})

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "CONTENT_TYPE_MISMATCH"
    assert not storage.exists(MediaUpload.objects.get().storage_key)


def test_put_of_more_bytes_than_declared_is_refused_and_nothing_is_kept(api, owner, served):
    created = _create(api, owner.key, size_bytes=10).json()["data"]

    response = requests.put(created["upload_url"], data=b"x" * 11, headers={"Content-Type": "image/png"}, timeout=10)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "SIZE_MISMATCH"
    assert not storage.exists(MediaUpload.objects.get().storage_key)


def test_a_tampered_upload_url_is_refused(api, owner, served):
    png = files.image()
    created = _create(api, owner.key, size_bytes=len(png)).json()["data"]
    created["upload_url"] = created["upload_url"][:-3] + ("aaa" if not created["upload_url"].endswith("aaa") else "bbb")

    response = _put(created, png)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "URL_INVALID"


def test_an_upload_url_for_another_upload_is_refused(api, owner, served):
    png = files.image()
    first = _create(api, owner.key, size_bytes=len(png)).json()["data"]
    second = _create(api, owner.key, size_bytes=len(png)).json()["data"]
    first["upload_url"] = first["upload_url"].replace(first["media_id"], second["media_id"])

    assert _put(first, png).status_code == 403


def test_an_expired_upload_url_is_refused(api, owner, served, settings):
    settings.MEDIA_UPLOAD_URL_SECONDS = -1
    png = files.image()
    created = _create(api, owner.key, size_bytes=len(png)).json()["data"]

    response = _put(created, png)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "URL_EXPIRED"


def test_confirm_before_the_put_says_the_file_is_missing(api, owner):
    created = _create(api, owner.key, size_bytes=10).json()["data"]

    response = _confirm(api, owner.key, created["media_id"])

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "FILE_NOT_UPLOADED"


def test_a_file_that_is_not_what_it_claims_is_rejected_and_stays_unconfirmed(api, owner, served):
    jpeg = files.image("JPEG")
    created = _upload(api, owner.key, jpeg, content_type="image/png")

    response = _confirm(api, owner.key, created["media_id"])

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "CONTENT_TYPE_MISMATCH"
    assert response.json()["error"]["details"] == {"declared": "image/png", "detected": "image/jpeg"}
    assert MediaUpload.objects.get().state == MediaState.UNCONFIRMED
    assert api.get("/api/v1/media").json()["data"] == []


def test_a_file_of_no_accepted_type_is_rejected(api, owner, served):
    created = _upload(api, owner.key, b"<html>not an image</html>")

    response = _confirm(api, owner.key, created["media_id"])

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "UNRECOGNISED_MEDIA"


def test_a_stored_file_of_another_size_is_rejected(api, owner):
    created = _create(api, owner.key, size_bytes=10_000).json()["data"]
    storage.write_stream(MediaUpload.objects.get().storage_key, [files.image()])

    response = _confirm(api, owner.key, created["media_id"])

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "SIZE_MISMATCH"


def test_the_right_file_can_be_put_again_after_a_rejection(api, owner, served):
    png = files.image()
    created = _create(api, owner.key, size_bytes=len(png)).json()["data"]
    _put(created, b"x" * len(png))
    assert _confirm(api, owner.key, created["media_id"]).status_code == 422

    assert _put(created, png).status_code == 200

    assert _confirm(api, owner.key, created["media_id"]).status_code == 200


def test_confirming_twice_is_a_404(api, owner, served):
    created = _upload(api, owner.key, files.image())
    assert _confirm(api, owner.key, created["media_id"]).status_code == 200

    response = _confirm(api, owner.key, created["media_id"])

    assert response.status_code == 404


def test_confirming_an_unknown_or_foreign_upload_is_a_404(api, owner, outsider):
    theirs = _create(api, outsider.key, size_bytes=10).json()["data"]

    assert _confirm(api, owner.key, theirs["media_id"]).status_code == 404
    assert _confirm(api, owner.key, "01900000-0000-7000-8000-000000000000").status_code == 404
    assert api.as_(owner.key).get(f"/api/v1/media/uploads/{theirs['media_id']}").status_code == 404


# --- confirm has a bounded cost -----------------------------------------------------------


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def reads(monkeypatch):
    """Every read of stored bytes; past ten the test fails at once, rather than after a walk of
    a hostile file box by box."""
    made = []
    real = storage.read_range

    def counted(key, offset, length):
        made.append((key, offset, length))
        assert len(made) <= 10, "confirm reads the file box by box"
        return real(key, offset, length)

    monkeypatch.setattr(storage, "read_range", counted)
    return made


def _stored(team, data: bytes, content_type="video/mp4") -> MediaUpload:
    upload = services.media_create(team=team, user=None, filename="f", content_type=content_type, size_bytes=len(data))
    storage.write_stream(upload.storage_key, [data])
    return upload


def test_confirming_a_file_of_tiny_boxes_reads_only_its_head(api, owner, media_root, reads):
    hostile = files.ftyp() + files.TINY_BOX * (4 * 1024 * 1024 // 8)
    upload = _stored(owner.team, hostile)

    response = _confirm(api, owner.key, upload.pk)

    assert response.status_code == 200
    assert response.json()["data"]["duration_seconds"] is None
    assert [length for _, _, length in reads] == [1024 * 1024]


@pytest.mark.parametrize(
    "data",
    [
        files.ftyp() + files.box_header(b"mdat", 1008) + bytes(1000) + b"\x00\x00\x00",
        files.ftyp() + struct.pack(">I4s", 1, b"mdat") + b"\x00\x00\x00\x00",
        files.ftyp() + files.box_header(b"free", 3) + bytes(100),
    ],
    ids=["cut-off-header", "cut-off-64-bit-size", "size-below-header"],
)
def test_a_broken_box_header_is_a_422_and_the_upload_stays_unconfirmed(api, owner, media_root, data):
    upload = _stored(owner.team, data)

    response = _confirm(api, owner.key, upload.pk)

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "UNRECOGNISED_MEDIA"
    assert MediaUpload.objects.get(pk=upload.pk).state == MediaState.UNCONFIRMED


# --- confirmed bytes are fixed ------------------------------------------------------------


def test_a_put_after_confirm_is_a_409_and_the_confirmed_bytes_are_still_served(api, owner, served, media_root):
    png = files.image()
    created = _upload(api, owner.key, png)
    assert _confirm(api, owner.key, created["media_id"]).status_code == 200

    response = _put(created, b"x" * len(png))

    assert response.status_code == 409
    assert response.json()["error"]["type"] == "conflict"
    assert response.json()["error"]["code"] == "UPLOAD_ALREADY_CONFIRMED"
    item = api.get("/api/v1/media").json()["data"][0]
    assert requests.get(item["download_url"], timeout=10).content == png


def test_a_put_still_streaming_when_confirm_commits_is_refused(owner, media_root):
    png = files.image()
    upload = _stored(owner.team, png, content_type="image/png")
    swapped = b"x" * len(png)

    def body():
        yield swapped[:10]
        services.media_confirm(team=owner.team, media_id=str(upload.pk))  # confirm wins the race
        yield swapped[10:]

    with pytest.raises(Conflict) as refused:
        services.media_receive(upload=upload, content_type="image/png", content_length=str(len(png)), body=body())

    assert refused.value.code == "UPLOAD_ALREADY_CONFIRMED"
    with selectors.open_media(MediaUpload.objects.get(pk=upload.pk)) as stream:
        assert stream.read() == png
    folder = os.path.dirname(default_storage.path(upload.storage_key))
    assert not [name for name in os.listdir(folder) if ".part-" in name]


def test_bytes_replaced_while_confirm_checks_them_are_not_what_gets_served(owner, media_root, monkeypatch):
    png = files.image()
    upload = _stored(owner.team, png, content_type="image/png")
    real = storage.read_range

    def replaced_first(key, offset, length):
        storage.write_stream(upload.storage_key, [b"not the checked bytes"])
        return real(key, offset, length)

    monkeypatch.setattr(storage, "read_range", replaced_first)

    confirmed = services.media_confirm(team=owner.team, media_id=str(upload.pk))

    assert (confirmed.width, confirmed.height) == (64, 48)
    with selectors.open_media(confirmed) as stream:
        assert stream.read() == png


def test_confirm_moves_the_bytes_out_of_the_upload_key_and_delete_removes_them(
    owner, media_root, django_capture_on_commit_callbacks
):
    upload = _stored(owner.team, files.image(), content_type="image/png")

    with django_capture_on_commit_callbacks(execute=True):
        confirmed = services.media_confirm(team=owner.team, media_id=str(upload.pk))

    assert confirmed.content_key != confirmed.storage_key
    assert not storage.exists(confirmed.storage_key)
    assert storage.exists(confirmed.content_key)
    services.media_delete(upload=confirmed)
    assert not storage.exists(confirmed.content_key)


# --- listing ----------------------------------------------------------------------------


def test_the_list_holds_only_ready_media_of_the_team_newest_first(api, owner, outsider, served):
    older = _upload(api, owner.key, files.image())
    newer = _upload(api, owner.key, files.image("GIF"), content_type="image/gif", filename="a.gif")
    _confirm(api, owner.key, older["media_id"])
    _confirm(api, owner.key, newer["media_id"])
    _create(api, owner.key, size_bytes=10)  # never uploaded
    theirs = _upload(api, outsider.key, files.image())
    _confirm(api, outsider.key, theirs["media_id"])

    body = api.as_(owner.key).get("/api/v1/media").json()

    assert [m["id"] for m in body["data"]] == [newer["media_id"], older["media_id"]]
    assert body["pagination"]["total_count"] == 2


def test_the_list_is_paged(api, owner):
    for _ in range(3):
        upload = services.media_create(
            team=owner.team, user=None, filename="a.png", content_type="image/png", size_bytes=5
        )
        MediaUpload.objects.filter(pk=upload.pk).update(state=MediaState.READY, content_key=F("storage_key"))

    body = api.as_(owner.key).get("/api/v1/media?page_size=2&page=2").json()

    assert len(body["data"]) == 1
    assert body["pagination"]["total_count"] == 3


def test_a_download_url_needs_its_signature(api, owner, served):
    created = _upload(api, owner.key, files.image())
    _confirm(api, owner.key, created["media_id"])
    url = api.get("/api/v1/media").json()["data"][0]["download_url"]

    assert requests.get(url.split("?")[0], timeout=10).status_code == 403
    assert requests.get(url.replace("signature=", "signature=x"), timeout=10).status_code == 403


@pytest.mark.parametrize(
    ("method", "path", "scope"),
    [
        ("post", "/api/v1/media/uploads", "media:write"),
        ("get", "/api/v1/media", "media:read"),
        ("get", "/api/v1/media/uploads/{id}", "media:read"),
        ("post", "/api/v1/media/uploads/{id}/confirm", "media:write"),
    ],
)
def test_each_operation_needs_its_scope(api, owner, method, path, scope):
    upload = services.media_create(team=owner.team, user=None, filename="a.png", content_type="image/png", size_bytes=5)
    others = [s for s in ("media:read", "media:write") if s != scope]

    response = getattr(api.as_(owner.key_with(*others)), method)(path.format(id=upload.pk), {}, format="json")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "MISSING_SCOPE"


# --- retention ----------------------------------------------------------------------------


def test_unconfirmed_uploads_are_deleted_with_their_bytes_after_24_hours(api, owner, served):
    stale = _upload(api, owner.key, files.image())
    fresh = _upload(api, owner.key, files.image())
    kept = _upload(api, owner.key, files.image())
    _confirm(api, owner.key, kept["media_id"])
    MediaUpload.objects.filter(pk__in=[stale["media_id"], kept["media_id"]]).update(
        created_at=dt.datetime.now(dt.UTC) - dt.timedelta(hours=24, minutes=1)
    )
    stale_key = MediaUpload.objects.get(pk=stale["media_id"]).storage_key

    deleted = services.media_delete_unconfirmed()

    assert deleted == 1
    assert not MediaUpload.objects.filter(pk=stale["media_id"]).exists()
    assert not storage.exists(stale_key)
    assert set(MediaUpload.objects.values_list("pk", flat=True).order_by()) == {
        MediaUpload.objects.get(pk=fresh["media_id"]).pk,
        MediaUpload.objects.get(pk=kept["media_id"]).pk,
    }
