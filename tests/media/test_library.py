"""The team's media library on the server side: what it lists, the description of each file
(alt text) through the API, and deleting a file no post uses."""

from __future__ import annotations

import pytest

from config.errors import Conflict, InvalidRequest, NotFound
from media import services, storage
from media.models import MediaUpload
from tests.factories import SocialAccountFactory
from tests.media import files

pytestmark = pytest.mark.django_db


def _ready(team, filename="photo.png", alt_text="") -> MediaUpload:
    data = files.image()
    upload = services.media_create(
        team=team, user=None, filename=filename, content_type="image/png", size_bytes=len(data), alt_text=alt_text
    )
    storage.write_stream(upload.storage_key, [data])
    return services.media_confirm(team=team, media_id=str(upload.pk))


# --- alt text through the API ------------------------------------------------------------------


def test_alt_text_given_at_create_is_shown_on_the_upload_and_in_the_list(api, owner):
    upload = _ready(owner.team, alt_text="A red square on white")

    shown = api.as_(owner.key).get(f"/api/v1/media/uploads/{upload.pk}").json()["data"]
    listed = api.as_(owner.key).get("/api/v1/media").json()["data"]

    assert shown["alt_text"] == "A red square on white"
    assert [item["alt_text"] for item in listed] == ["A red square on white"]


def test_alt_text_can_be_given_at_confirm(api, owner):
    data = files.image()
    body = {"filename": "a.png", "content_type": "image/png", "size_bytes": len(data)}
    created = api.as_(owner.key).post("/api/v1/media/uploads", body, format="json").json()["data"]
    storage.write_stream(MediaUpload.objects.get(pk=created["id"]).storage_key, [data])

    confirmed = api.as_(owner.key).post(
        f"/api/v1/media/uploads/{created['id']}/confirm", {"alt_text": "Our team at the launch"}, format="json"
    )

    assert confirmed.status_code == 200
    assert confirmed.json()["data"]["alt_text"] == "Our team at the launch"


def test_a_confirm_without_a_body_still_works_and_keeps_the_alt_text(api, owner):
    data = files.image()
    body = {"filename": "a.png", "content_type": "image/png", "size_bytes": len(data), "alt_text": "Kept"}
    created = api.as_(owner.key).post("/api/v1/media/uploads", body, format="json").json()["data"]
    storage.write_stream(MediaUpload.objects.get(pk=created["id"]).storage_key, [data])

    confirmed = api.as_(owner.key).post(f"/api/v1/media/uploads/{created['id']}/confirm")

    assert confirmed.status_code == 200
    assert confirmed.json()["data"]["alt_text"] == "Kept"


def test_patch_sets_the_alt_text(api, owner):
    upload = _ready(owner.team)

    response = api.as_(owner.key).patch(
        f"/api/v1/media/uploads/{upload.pk}", {"alt_text": "  A chart of sales  "}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["data"]["alt_text"] == "A chart of sales"
    upload.refresh_from_db()
    assert upload.alt_text == "A chart of sales"


def test_alt_text_over_a_thousand_characters_is_refused_with_a_sentence(api, owner):
    upload = _ready(owner.team)

    response = api.as_(owner.key).patch(f"/api/v1/media/uploads/{upload.pk}", {"alt_text": "x" * 1001}, format="json")

    assert response.status_code == 400
    assert "at most 1000 characters" in response.content.decode()
    with pytest.raises(InvalidRequest, match="at most 1000"):
        services.media_set_alt_text(team=owner.team, media_id=str(upload.pk), alt_text="x" * 1001)


def test_patch_needs_the_write_scope(api, owner):
    upload = _ready(owner.team)

    response = api.as_(owner.key_with("media:read")).patch(
        f"/api/v1/media/uploads/{upload.pk}", {"alt_text": "no"}, format="json"
    )

    assert response.status_code == 403


def test_another_teams_upload_cannot_be_described(api, owner, outsider):
    upload = _ready(owner.team)

    response = api.as_(outsider.key).patch(f"/api/v1/media/uploads/{upload.pk}", {"alt_text": "x"}, format="json")

    assert response.status_code == 404
    upload.refresh_from_db()
    assert upload.alt_text == ""


# --- deleting ----------------------------------------------------------------------------------


def test_an_unused_file_is_deleted_with_its_bytes(owner, django_capture_on_commit_callbacks):
    upload = _ready(owner.team)

    with django_capture_on_commit_callbacks(execute=True):
        services.media_delete_unused(team=owner.team, media_id=str(upload.pk))

    assert not MediaUpload.objects.filter(pk=upload.pk).exists()
    assert not storage.exists(upload.content_key)


def test_a_file_a_draft_uses_is_not_deleted_and_the_refusal_names_the_post(api, owner):
    upload = _ready(owner.team)
    draft = _draft(api, owner, media_ids=[str(upload.pk)])

    with pytest.raises(Conflict, match="used by 1 post") as refused:
        services.media_delete_unused(team=owner.team, media_id=str(upload.pk))

    assert refused.value.details["publish_ids"] == [draft["id"]]
    assert MediaUpload.objects.filter(pk=upload.pk).exists()
    assert storage.exists(upload.content_key)


def test_another_teams_file_cannot_be_deleted(owner, outsider):
    upload = _ready(owner.team)

    with pytest.raises(NotFound):
        services.media_delete_unused(team=outsider.team, media_id=str(upload.pk))

    assert MediaUpload.objects.filter(pk=upload.pk).exists()


def _draft(api, persona, *, media_ids):
    account = SocialAccountFactory(team=persona.team, platform="bluesky")
    body = {
        "content": "With a picture",
        "media_ids": media_ids,
        "targets": [{"account_id": str(account.pk)}],
        "publish_mode": "draft",
    }
    response = api.as_(persona.key).post("/api/v1/publishes", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()["data"]
