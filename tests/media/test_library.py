"""The team's media library on the server side: what it lists, the description of each file
(alt text) through the API, and deleting a file no post uses."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection, transaction
from rest_framework.test import APIClient

from config.errors import Conflict, InvalidRequest, NotFound
from media import library, services, storage
from media.models import MediaUpload
from publishing.models import Publish
from tests.factories import SocialAccountFactory
from tests.media import files
from tests.publishing.safety_support import wait_until

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


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_post_naming_a_file_while_it_is_deleted_waits_and_is_told_the_file_is_gone(owner):
    """The delete found no post using the file; a create naming it before the delete commits
    waits for it, then answers that the file is gone: no post is ever left naming a deleted file."""
    upload = _ready(owner.team)
    account = SocialAccountFactory(team=owner.team, platform="bluesky")
    body = {"content": "With the picture", "media_ids": [str(upload.pk)], "targets": [{"account_id": str(account.pk)}]}

    def create() -> Any:
        try:
            client = APIClient(HTTP_AUTHORIZATION=f"Bearer {owner.key}")
            return client.post("/api/v1/publishes", {**body, "publish_mode": "draft"}, format="json")
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        with transaction.atomic():
            services.media_delete_unused(team=owner.team, media_id=str(upload.pk))
            creating = pool.submit(create)
            wait_until(lambda: creating.done() or _a_session_waits_for_a_lock(), what="the create to wait", timeout=120)
        answer = creating.result(timeout=30)

    assert answer.status_code == 400, answer.content
    assert answer.json()["error"]["code"] == "MEDIA_NOT_FOUND"
    assert not Publish.objects.filter(team=owner.team).exists()
    assert not MediaUpload.objects.filter(pk=upload.pk).exists()


def _a_session_waits_for_a_lock() -> bool:
    with connection.cursor() as cursor:  # inside a transaction the view is cached until cleared
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
        return cursor.fetchone() is not None


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


# --- the library page --------------------------------------------------------------------------

LIBRARY = "/dashboard/media/"


def _library(client, persona, **params):
    client.force_login(persona.user)
    response = client.get(LIBRARY, params)
    assert response.status_code == 200
    return response.content.decode()


def test_the_library_lists_only_the_teams_confirmed_files(client, member, outsider):
    _ready(member.team, filename="launch.png")
    _ready(outsider.team, filename="theirs.png")
    services.media_create(team=member.team, user=None, filename="pending.png", content_type="image/png", size_bytes=9)

    page = _library(client, member)

    assert "launch.png" in page
    assert "theirs.png" not in page
    assert "pending.png" not in page
    assert "1 file" in page


def test_the_library_searches_file_names(client, owner):
    _ready(owner.team, filename="launch-day.png")
    _ready(owner.team, filename="team-photo.png")

    page = _library(client, owner, q="LAUNCH")

    assert "launch-day.png" in page
    assert "team-photo.png" not in page
    assert "1 file match" in page


def test_the_library_pages_through_many_files(client, owner):
    for n in range(library.PAGE_SIZE + 1):
        _ready(owner.team, filename=f"file-{n:02}.png")

    first, second = _library(client, owner), _library(client, owner, page=2)

    assert "file-24.png" in first
    assert "file-00.png" not in first
    assert "file-00.png" in second
    assert "Page 2 of 2" in second


def test_a_member_describes_a_file_from_the_library(client, member):
    upload = _ready(member.team)
    client.force_login(member.user)

    response = client.post(
        f"{LIBRARY}{upload.pk}/alt-text/", {"team": str(member.team.pk), "alt_text": "Our booth"}, follow=True
    )

    assert response.status_code == 200
    assert "Saved the alt text of photo.png." in response.content.decode()
    upload.refresh_from_db()
    assert upload.alt_text == "Our booth"


def test_a_description_too_long_is_refused_beside_its_field(client, owner):
    upload = _ready(owner.team, alt_text="Before")
    client.force_login(owner.user)

    response = client.post(f"{LIBRARY}{upload.pk}/alt-text/", {"team": str(owner.team.pk), "alt_text": "y" * 1001})

    assert response.status_code == 400
    page = response.content.decode()
    assert "takes at most 1000" in page
    assert f'aria-describedby="alt-{upload.pk}-problem"' in page
    upload.refresh_from_db()
    assert upload.alt_text == "Before"


def test_an_unused_file_is_deleted_from_the_library(client, owner):
    upload = _ready(owner.team, filename="old.png")
    client.force_login(owner.user)

    response = client.post(f"{LIBRARY}{upload.pk}/delete/", {"team": str(owner.team.pk)}, follow=True)

    assert "Deleted the file from the library." in response.content.decode()
    assert not MediaUpload.objects.filter(pk=upload.pk).exists()


def test_a_file_in_use_shows_its_posts_instead_of_a_delete_button_and_is_kept(client, api, owner):
    upload = _ready(owner.team, filename="used.png")
    draft = _draft(api, owner, media_ids=[str(upload.pk)])

    page = _library(client, owner)
    response = client.post(f"{LIBRARY}{upload.pk}/delete/", {"team": str(owner.team.pk)}, follow=True)

    assert "Used by 1 post:" in page
    assert f"/dashboard/publishes/{draft['id']}/" in page
    assert f"{LIBRARY}{upload.pk}/delete/" not in page
    assert "used.png is used by 1 post(s)" in response.content.decode()
    assert MediaUpload.objects.filter(pk=upload.pk).exists()


def test_another_teams_file_is_not_found_from_the_library(client, owner, outsider):
    upload = _ready(owner.team)
    client.force_login(outsider.user)

    described = client.post(f"{LIBRARY}{upload.pk}/alt-text/", {"team": str(outsider.team.pk), "alt_text": "x"})
    deleted = client.post(f"{LIBRARY}{upload.pk}/delete/", {"team": str(outsider.team.pk)})
    other_team = client.get(LIBRARY, {"team": str(owner.team.pk)})

    assert (described.status_code, deleted.status_code, other_team.status_code) == (404, 404, 404)
    upload.refresh_from_db()
    assert upload.alt_text == ""


def test_use_in_a_new_post_opens_compose_with_the_file_attached(client, owner, outsider):
    ours, theirs = _ready(owner.team, filename="ours.png"), _ready(outsider.team, filename="theirs.png")
    client.force_login(owner.user)

    page = client.get("/dashboard/compose/", {"team": str(owner.team.pk), "media": [str(ours.pk), str(theirs.pk)]})

    html = page.content.decode()
    assert f'name="media_ids" value="{ours.pk}"' in html
    assert str(theirs.pk) not in html


def test_the_library_page_reads_the_same_number_of_queries_however_many_files(client, api, owner):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            _library(client, owner)
        return len(captured)

    _draft(api, owner, media_ids=[str(_ready(owner.team).pk)])
    queries()  # the first visit of a session reads and writes more
    few = queries()
    for _ in range(6):
        _draft(api, owner, media_ids=[str(_ready(owner.team).pk)])

    assert queries() == few
