"""The dashboard's upload endpoints (compose page): create and confirm with the session and
the CSRF token, through the media services the API calls, with the PUT in between going to
the presigned URL itself."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.test import Client

from media.models import MediaState, MediaUpload
from tests.factories import PlanFactory
from tests.media import files

pytestmark = pytest.mark.django_db

CREATE = "/dashboard/media/uploads/"


def _as(client, persona):
    client.force_login(persona.user)
    return client


def _create(client, persona, **fields):
    body = {"team": str(persona.team.pk), "filename": "photo.png", "content_type": "image/png", **fields}
    return client.post(CREATE, body)


def _put(client, created, data: bytes):
    url = urlsplit(created["upload_url"])
    return client.generic("PUT", f"{url.path}?{url.query}", data, content_type=created["headers"]["Content-Type"])


def test_an_upload_is_created_put_and_confirmed(client, owner):
    data = files.image("PNG")
    _as(client, owner)

    response = _create(client, owner, size_bytes=len(data))

    assert response.status_code == 201
    created = response.json()
    upload = MediaUpload.objects.get(pk=created["media_id"])
    assert (upload.team, upload.created_by, upload.state) == (owner.team, owner.user, MediaState.UNCONFIRMED)
    assert created["headers"] == {"Content-Type": "image/png", "Content-Length": str(len(data))}
    assert created["confirm_url"] == f"/dashboard/media/uploads/{upload.pk}/confirm/"
    assert _put(client, created, data).status_code == 200

    confirmed = client.post(created["confirm_url"], {"team": str(owner.team.pk)})

    assert confirmed.status_code == 200
    assert confirmed.json() == {
        "media_id": str(upload.pk),
        "filename": "photo.png",
        "content_type": "image/png",
        "size_bytes": len(data),
        "width": 64,
        "height": 48,
        "duration_seconds": None,
    }
    upload.refresh_from_db()
    assert upload.state == MediaState.READY


def test_a_member_uploads_too(client, member):
    assert _create(_as(client, member), member, size_bytes=10).status_code == 201


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"content_type": "image/heic", "size_bytes": 10}, "HEIC files cannot be posted: use a PNG, JPEG"),
        ({"content_type": "", "size_bytes": 10}, "Files of this kind cannot be posted"),
        ({"size_bytes": 500 * 1024 * 1024 + 1}, "The file is too large: each file can be at most 500 MB."),
        ({}, "Required unless source_url is given."),
    ],
)
def test_a_file_the_api_would_refuse_is_refused_with_its_words(client, owner, fields, words):
    response = _create(_as(client, owner), owner, **fields)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert words in error["message"]
    assert MediaUpload.objects.count() == 0


def test_the_storage_quota_is_refused_as_the_api_does(client, owner):
    owner.team.plan = PlanFactory(media_storage_gb=0)
    owner.team.save()

    response = _create(_as(client, owner), owner, size_bytes=10)

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "STORAGE_QUOTA_EXCEEDED"


def test_confirming_before_the_bytes_arrive_says_so(client, owner):
    created = _create(_as(client, owner), owner, size_bytes=10).json()

    response = client.post(created["confirm_url"], {"team": str(owner.team.pk)})

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "FILE_NOT_UPLOADED"


def test_bytes_of_another_type_are_refused_at_confirm(client, owner):
    data = files.image("JPEG")
    created = _create(_as(client, owner), owner, size_bytes=len(data)).json()
    assert _put(client, created, data).status_code == 200

    response = client.post(created["confirm_url"], {"team": str(owner.team.pk)})

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "CONTENT_TYPE_MISMATCH"


def test_another_teams_upload_cannot_be_confirmed(client, owner, outsider):
    created = _create(_as(client, outsider), outsider, size_bytes=10).json()

    response = _as(client, owner).post(created["confirm_url"], {"team": str(owner.team.pk)})

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "MEDIA_NOT_FOUND"


def test_another_teams_name_is_not_found(client, owner, outsider):
    response = _create(_as(client, owner), outsider, size_bytes=10)

    assert response.status_code == 404
    assert MediaUpload.objects.count() == 0


def test_the_endpoints_need_a_login_a_post_and_the_csrf_token(client, owner):
    assert client.post(CREATE, {}).status_code == 302
    assert _as(client, owner).get(CREATE).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(owner.user)

    assert _create(strict, owner, size_bytes=10).status_code == 403
    assert MediaUpload.objects.count() == 0
