"""PATCH and DELETE /api/v1/publishes/{id}: editing an unconfirmed draft or a scheduled
publish in place, and discarding a draft (spec §3 and §4)."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone

from demo.seed import sandbox_account
from media import services as media_services
from media import storage
from publishing.models import ScheduledRelease
from tests.media import files

pytestmark = pytest.mark.django_db


# --- helpers ---------------------------------------------------------------------------------


def _in(hours: float) -> str:
    return (timezone.now() + dt.timedelta(hours=hours)).isoformat()


def _when(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value)


def _create(api, key, *accounts, **body):
    payload = {"content": "Hello", "targets": [{"account_id": str(a.pk)} for a in accounts], **body}
    response = api.as_(key).post("/api/v1/publishes", payload, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def _draft(api, key, *accounts, **body):
    return _create(api, key, *accounts, publish_mode="draft", **body)


def _get(api, key, publish_id):
    return api.as_(key).get(f"/api/v1/publishes/{publish_id}")


def _patch(api, key, publish_id, body):
    return api.as_(key).patch(f"/api/v1/publishes/{publish_id}", body, format="json")


def _delete(api, key, publish_id):
    return api.as_(key).delete(f"/api/v1/publishes/{publish_id}")


def _target(data, account):
    return next(t for t in data["targets"] if t["account_id"] == str(account.pk))


def _error(response):
    return response.json()["error"]


@pytest.fixture
def media(settings, tmp_path):
    """Confirmed uploads of the persona team, through the real create/store/confirm path."""
    settings.MEDIA_ROOT = str(tmp_path / "media")

    def ready(team, data: bytes | None = None, content_type: str = "image/png") -> str:
        data = files.image() if data is None else data
        upload = media_services.media_create(
            team=team, user=None, filename="file", content_type=content_type, size_bytes=len(data)
        )
        storage.write_stream(upload.storage_key, [data])
        return str(media_services.media_confirm(team=team, media_id=str(upload.pk)).pk)

    return ready


# --- editing a draft ---------------------------------------------------------------------------


def test_editing_a_draft_keeps_its_id_and_state(api, owner, accounts):
    draft = _draft(api, owner.key, accounts.x)

    response = _patch(api, owner.key, draft["id"], {"content": "Edited"})

    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    assert (data["id"], data["status"], data["content"]) == (draft["id"], "draft", "Edited")
    assert _get(api, owner.key, draft["id"]).json()["data"]["content"] == "Edited"


def test_fields_left_out_of_a_patch_keep_their_values(api, owner, accounts, media):
    image = media(owner.team)
    draft = _draft(api, owner.key, accounts.x, accounts.bluesky, media_ids=[image])

    data = _patch(api, owner.key, draft["id"], {"content": "Only the text changes"}).json()["data"]

    assert data["media_ids"] == [image]
    assert {t["account_id"] for t in data["targets"]} == {str(accounts.x.pk), str(accounts.bluesky.pk)}
    assert {t["id"] for t in data["targets"]} == {t["id"] for t in draft["targets"]}


def test_targets_given_are_the_complete_new_set(api, owner, accounts):
    draft = _create(
        api,
        owner.key,
        publish_mode="draft",
        targets=[
            {"account_id": str(accounts.x.pk), "content": "Just for X"},
            {"account_id": str(accounts.bluesky.pk)},
        ],
    )
    kept_id = _target(draft, accounts.x)["id"]

    response = _patch(
        api,
        owner.key,
        draft["id"],
        {"targets": [{"account_id": str(accounts.x.pk)}, {"account_id": str(accounts.linkedin.pk)}]},
    )

    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    assert {t["account_id"] for t in data["targets"]} == {str(accounts.x.pk), str(accounts.linkedin.pk)}
    kept = _target(data, accounts.x)
    assert (kept["id"], kept["content"]) == (kept_id, "Just for X")
    assert _target(data, accounts.linkedin)["status"] == "draft"
    stored = _get(api, owner.key, draft["id"]).json()["data"]
    assert str(accounts.bluesky.pk) not in {t["account_id"] for t in stored["targets"]}


def test_a_kept_target_changes_only_the_fields_its_entry_gives(api, owner, accounts):
    draft = _create(
        api,
        owner.key,
        publish_mode="draft",
        targets=[
            {
                "account_id": str(accounts.linkedin.pk),
                "content": "For LinkedIn",
                "platform_settings": {"visibility": "CONNECTIONS"},
            }
        ],
    )

    data = _patch(
        api, owner.key, draft["id"], {"targets": [{"account_id": str(accounts.linkedin.pk), "content": "New text"}]}
    ).json()["data"]

    target = _target(data, accounts.linkedin)
    assert target["content"] == "New text"
    assert target["platform_settings"] == {"visibility": "CONNECTIONS"}


def test_top_level_media_replaces_the_media_of_kept_targets_unless_an_entry_gives_its_own(
    api, owner, accounts, media, sandbox
):
    old_x, old_bluesky = media(owner.team), media(owner.team)
    new_a, new_b, own = media(owner.team), media(owner.team), media(owner.team)
    draft = _create(
        api,
        owner.key,
        publish_mode="draft",
        targets=[
            {"account_id": str(accounts.x.pk), "media_ids": [old_x]},
            {"account_id": str(accounts.bluesky.pk), "media_ids": [old_bluesky]},
        ],
    )

    response = _patch(
        api,
        owner.key,
        draft["id"],
        {
            "media_ids": [new_a, new_b],
            "targets": [
                {"account_id": str(accounts.x.pk)},
                {"account_id": str(accounts.bluesky.pk), "media_ids": [own]},
            ],
        },
    )

    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    assert data["media_ids"] == [new_a, new_b]
    assert _target(data, accounts.x)["media_ids"] in (None, [new_a, new_b])
    assert _target(data, accounts.bluesky)["media_ids"] == [own]
    # What reaches the platforms proves which media each target really carries.
    assert api.as_(owner.key).post(f"/api/v1/publishes/{draft['id']}/confirm", {}, format="json").status_code == 200
    assert [p["media_count"] for p in sandbox.posts("x")] == [2]
    assert [p["media_count"] for p in sandbox.posts("bluesky")] == [1]


def test_top_level_media_alone_replaces_the_media_of_every_target(api, owner, accounts, media):
    old, new = media(owner.team), media(owner.team)
    draft = _create(
        api, owner.key, publish_mode="draft", targets=[{"account_id": str(accounts.x.pk), "media_ids": [old]}]
    )

    data = _patch(api, owner.key, draft["id"], {"media_ids": [new]}).json()["data"]

    assert data["media_ids"] == [new]
    assert _target(data, accounts.x)["media_ids"] in (None, [new])


# --- editing a scheduled publish ------------------------------------------------------------


def test_editing_a_scheduled_publish_keeps_its_time_and_replaces_its_queue_job(api, owner, accounts):
    when = _in(2)
    scheduled = _create(api, owner.key, accounts.x, publish_mode="scheduled", scheduled_at=when)
    before = ScheduledRelease.objects.get(publish_id=scheduled["id"])

    response = _patch(api, owner.key, scheduled["id"], {"content": "Edited while waiting"})

    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    assert (data["id"], data["status"], data["content"]) == (scheduled["id"], "scheduled", "Edited while waiting")
    assert _when(data["scheduled_at"]) == _when(when)
    after = ScheduledRelease.objects.get(publish_id=scheduled["id"])
    assert after.pk != before.pk
    assert after.due_at == before.due_at


def test_a_target_added_to_a_scheduled_publish_is_scheduled_too(api, owner, accounts):
    scheduled = _create(api, owner.key, accounts.x, publish_mode="scheduled", scheduled_at=_in(2))

    data = _patch(
        api,
        owner.key,
        scheduled["id"],
        {"targets": [{"account_id": str(accounts.x.pk)}, {"account_id": str(accounts.bluesky.pk)}]},
    ).json()["data"]

    assert data["status"] == "scheduled"
    assert {t["status"] for t in data["targets"]} == {"scheduled"}


def test_scheduled_at_cannot_move_a_scheduled_publish(api, owner, accounts):
    when = _in(2)
    scheduled = _create(api, owner.key, accounts.x, publish_mode="scheduled", scheduled_at=when)

    response = _patch(api, owner.key, scheduled["id"], {"scheduled_at": _in(5)})

    assert response.status_code == 400
    assert _when(_get(api, owner.key, scheduled["id"]).json()["data"]["scheduled_at"]) == _when(when)


# --- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [{}, {"unknown_field": 1}])
def test_a_patch_without_an_editable_field_is_a_400(api, owner, accounts, body):
    draft = _draft(api, owner.key, accounts.x)

    response = _patch(api, owner.key, draft["id"], body)

    assert response.status_code == 400
    assert _error(response)["type"] == "invalid_request"


def test_an_unknown_account_is_a_400_account_not_found(api, owner, accounts):
    draft = _draft(api, owner.key, accounts.x)

    response = _patch(api, owner.key, draft["id"], {"targets": [{"account_id": str(uuid.uuid4())}]})

    assert response.status_code == 400
    assert _error(response)["code"] == "ACCOUNT_NOT_FOUND"
    assert [t["account_id"] for t in _get(api, owner.key, draft["id"]).json()["data"]["targets"]] == [
        str(accounts.x.pk)
    ]


def test_another_teams_account_is_a_400_account_not_found(api, owner, outsider, accounts):
    draft = _draft(api, owner.key, accounts.x)
    theirs = sandbox_account(outsider.team, "x")

    response = _patch(api, owner.key, draft["id"], {"targets": [{"account_id": str(theirs.pk)}]})

    assert response.status_code == 400
    assert _error(response)["code"] == "ACCOUNT_NOT_FOUND"


def test_media_that_is_not_a_confirmed_upload_of_the_team_is_a_400(api, owner, outsider, accounts, media):
    draft = _draft(api, owner.key, accounts.x)
    unconfirmed = media_services.media_create(
        team=owner.team, user=None, filename="a.png", content_type="image/png", size_bytes=10
    )
    for media_id in (str(uuid.uuid4()), str(unconfirmed.pk), media(outsider.team)):
        response = _patch(api, owner.key, draft["id"], {"media_ids": [media_id]})

        assert response.status_code == 400, media_id
    assert _get(api, owner.key, draft["id"]).json()["data"]["media_ids"] == []


def test_a_video_type_the_platform_does_not_take_is_a_422(api, owner, accounts, media):
    draft = _draft(api, owner.key, accounts.bluesky)
    quicktime = media(owner.team, files.video(brand=b"qt  "), "video/quicktime")  # Bluesky takes MP4 only
    unfitted = {
        "account_id": str(accounts.bluesky.pk),
        "media_ids": [quicktime],
        "platform_settings": {"fit_media": False},
    }

    response = _patch(api, owner.key, draft["id"], {"targets": [unfitted]})

    assert response.status_code == 422
    assert _target(_get(api, owner.key, draft["id"]).json()["data"], accounts.bluesky)["media_ids"] is None


def test_a_gif_with_other_images_on_x_is_a_422(api, owner, accounts, media):
    draft = _draft(api, owner.key, accounts.x)
    gif, png = media(owner.team, files.image("GIF"), "image/gif"), media(owner.team)

    response = _patch(
        api, owner.key, draft["id"], {"targets": [{"account_id": str(accounts.x.pk), "media_ids": [gif, png]}]}
    )

    assert response.status_code == 422
    assert _target(_get(api, owner.key, draft["id"]).json()["data"], accounts.x)["media_ids"] is None


def _publishing(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "rate_limited")  # the job waits for its backoff: still sending
    return _create(api, owner.key, accounts.x)["id"]


def _processing(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "timeout")  # the answer never came: the outcome is unknown
    return _create(api, owner.key, accounts.x)["id"]


def _published(api, owner, accounts, sandbox):
    return _create(api, owner.key, accounts.x)["id"]


def _failed(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "error")
    return _create(api, owner.key, accounts.x)["id"]


def _partial(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "error")
    return _create(api, owner.key, accounts.x, accounts.bluesky)["id"]


@pytest.mark.parametrize(
    ("make", "status"),
    [
        (_publishing, "publishing"),
        (_processing, "processing"),
        (_published, "published"),
        (_failed, "failed"),
        (_partial, "partial"),
    ],
)
def test_a_publish_past_waiting_cannot_be_edited(api, owner, accounts, sandbox, make, status):
    publish_id = make(api, owner, accounts, sandbox)
    assert _get(api, owner.key, publish_id).json()["data"]["status"] == status

    response = _patch(api, owner.key, publish_id, {"content": "Too late"})

    assert response.status_code == 422
    assert _error(response)["code"] == "NOT_EDITABLE"
    assert _get(api, owner.key, publish_id).json()["data"]["content"] == "Hello"


def test_patching_an_absent_publish_is_a_404(api, owner):
    response = _patch(api, owner.key, uuid.uuid4(), {"content": "x"})

    assert response.status_code == 404


def test_patching_another_teams_publish_is_a_404(api, owner, outsider):
    theirs = _draft(api, outsider.key, sandbox_account(outsider.team, "x"))

    response = _patch(api, owner.key, theirs["id"], {"content": "Not mine"})

    assert response.status_code == 404
    assert _get(api, outsider.key, theirs["id"]).json()["data"]["content"] == "Hello"


# --- discarding ------------------------------------------------------------------------------


def test_an_unconfirmed_draft_is_discarded_for_good(api, owner, accounts):
    draft = _draft(api, owner.key, accounts.x)

    response = _delete(api, owner.key, draft["id"])

    assert response.status_code == 200
    assert response.json() == {"data": {"id": draft["id"], "discarded": True}}
    assert _get(api, owner.key, draft["id"]).status_code == 404


def _scheduled(api, owner, accounts, sandbox):
    return _create(api, owner.key, accounts.x, publish_mode="scheduled", scheduled_at=_in(2))["id"]


@pytest.mark.parametrize(
    ("make", "status"),
    [(_scheduled, "scheduled"), (_publishing, "publishing"), (_published, "published")],
)
def test_only_an_editable_draft_can_be_discarded(api, owner, accounts, sandbox, make, status):
    publish_id = make(api, owner, accounts, sandbox)

    response = _delete(api, owner.key, publish_id)

    assert response.status_code == 422
    assert _get(api, owner.key, publish_id).json()["data"]["status"] == status


def test_discarding_an_absent_publish_is_a_404(api, owner):
    assert _delete(api, owner.key, uuid.uuid4()).status_code == 404


def test_discarding_another_teams_draft_is_a_404(api, owner, outsider):
    theirs = _draft(api, outsider.key, sandbox_account(outsider.team, "x"))

    assert _delete(api, owner.key, theirs["id"]).status_code == 404
    assert _get(api, outsider.key, theirs["id"]).status_code == 200


def test_a_target_entry_without_account_id_is_a_400(api, owner, accounts):
    draft = (
        api.as_(owner.key)
        .post(
            "/api/v1/publishes",
            {"content": "Draft", "publish_mode": "draft", "targets": [{"account_id": str(accounts.x.pk)}]},
            format="json",
        )
        .json()["data"]
    )

    response = api.as_(owner.key).patch(
        f"/api/v1/publishes/{draft['id']}", {"targets": [{"content": "x"}]}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["details"]["targets"]
