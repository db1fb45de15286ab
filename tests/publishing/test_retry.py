"""POST /api/v1/publishes/{id}/retry: only targets that failed with evidence are sent again,
never published ones nor those whose outcome is unknown (spec §3, §4, §6; DESIGN §4.1, §4.4)."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone

from media import services as media_services
from media import storage
from publishing.readback import reconcile
from tests.media import files
from webhooks.models import Event

pytestmark = pytest.mark.django_db


# --- helpers ---------------------------------------------------------------------------------


def _create(api, key, *accounts, **body):
    payload = {"content": "Launch day", "targets": [{"account_id": str(a.pk)} for a in accounts], **body}
    response = api.as_(key).post("/api/v1/publishes", payload, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def _get(api, key, publish_id):
    return api.as_(key).get(f"/api/v1/publishes/{publish_id}").json()["data"]


def _retry(api, key, publish_id, body=None):
    return api.as_(key).post(f"/api/v1/publishes/{publish_id}/retry", {} if body is None else body, format="json")


def _target(data, account):
    return next(t for t in data["targets"] if t["account_id"] == str(account.pk))


def _events(event_type, publish_id):
    return [e for e in Event.objects.filter(type=event_type) if e.data.get("publish_id") == str(publish_id)]


def _count(sandbox, platform):
    return len(sandbox.posts(platform))


@pytest.fixture
def partial(api, owner, accounts, sandbox):
    """X published, Bluesky refused by the platform."""
    sandbox.outcomes("bluesky", "error")
    data = _get(api, owner.key, _create(api, owner.key, accounts.x, accounts.bluesky)["id"])
    assert data["status"] == "partial", data
    assert (_target(data, accounts.x)["status"], _target(data, accounts.bluesky)["status"]) == (
        "published",
        "failed",
    )
    assert _target(data, accounts.bluesky)["error"]["code"]
    return data


# --- what is re-sent -------------------------------------------------------------------------


def test_a_partial_retry_resends_only_the_failed_target(api, owner, accounts, sandbox, partial):
    assert (_count(sandbox, "x"), _count(sandbox, "bluesky")) == (1, 0)

    response = _retry(api, owner.key, partial["id"])

    assert response.status_code == 200, response.json()
    data = _get(api, owner.key, partial["id"])
    assert data["status"] == "published"
    assert {t["status"] for t in data["targets"]} == {"published"}
    assert (_count(sandbox, "x"), _count(sandbox, "bluesky")) == (1, 1)
    assert _target(data, accounts.x)["platform_post_id"] == _target(partial, accounts.x)["platform_post_id"]


def test_a_retry_without_body_targets_resends_unchanged(api, owner, accounts, sandbox, partial):
    _retry(api, owner.key, partial["id"], {"targets": []})

    assert [p["text"] for p in sandbox.posts("bluesky")] == ["Launch day"]


def test_a_retry_entry_naming_the_target_id_edits_it_before_the_resend(api, owner, accounts, sandbox, partial):
    failed = _target(partial, accounts.bluesky)

    response = _retry(api, owner.key, partial["id"], {"targets": [{"target_id": failed["id"], "content": "Take two"}]})

    assert response.status_code == 200, response.json()
    assert [p["text"] for p in sandbox.posts("bluesky")] == ["Take two"]
    assert [p["text"] for p in sandbox.posts("x")] == ["Launch day"]
    assert _get(api, owner.key, partial["id"])["status"] == "published"


def test_a_retry_entry_may_name_the_failed_target_by_account_id(api, owner, accounts, sandbox, partial):
    response = _retry(
        api, owner.key, partial["id"], {"targets": [{"account_id": str(accounts.bluesky.pk), "content": "Again"}]}
    )

    assert response.status_code == 200, response.json()
    assert [p["text"] for p in sandbox.posts("bluesky")] == ["Again"]
    assert _get(api, owner.key, partial["id"])["status"] == "published"


def test_a_failed_publish_is_retried_as_a_whole(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "error")
    sandbox.outcomes("bluesky", "error")
    failed = _create(api, owner.key, accounts.x, accounts.bluesky)
    assert _get(api, owner.key, failed["id"])["status"] == "failed"

    _retry(api, owner.key, failed["id"])

    assert _get(api, owner.key, failed["id"])["status"] == "published"
    assert (_count(sandbox, "x"), _count(sandbox, "bluesky")) == (1, 1)


def test_a_target_that_fails_again_can_be_retried_again(api, owner, accounts, sandbox, partial):
    sandbox.outcomes("bluesky", "error")
    _retry(api, owner.key, partial["id"])
    assert _get(api, owner.key, partial["id"])["status"] == "partial"

    _retry(api, owner.key, partial["id"])

    assert _get(api, owner.key, partial["id"])["status"] == "published"
    assert (_count(sandbox, "x"), _count(sandbox, "bluesky")) == (1, 1)


# --- refusals ----------------------------------------------------------------------------------


def test_an_entry_for_a_published_target_is_a_400(api, owner, accounts, sandbox, partial):
    published = _target(partial, accounts.x)

    response = _retry(api, owner.key, partial["id"], {"targets": [{"target_id": published["id"], "content": "Again"}]})

    assert response.status_code == 400
    assert _get(api, owner.key, partial["id"])["status"] == "partial"
    assert (_count(sandbox, "x"), _count(sandbox, "bluesky")) == (1, 0)


def test_an_entry_for_a_target_of_no_such_publish_is_a_400(api, owner, accounts, sandbox, partial):
    response = _retry(api, owner.key, partial["id"], {"targets": [{"target_id": str(uuid.uuid4())}]})

    assert response.status_code == 400
    assert _count(sandbox, "bluesky") == 0


def _published(api, owner, accounts, sandbox):
    return _create(api, owner.key, accounts.x)["id"]


def _publishing(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "rate_limited")  # waits for its backoff, not failed
    return _create(api, owner.key, accounts.x)["id"]


def _draft(api, owner, accounts, sandbox):
    return _create(api, owner.key, accounts.x, publish_mode="draft")["id"]


@pytest.mark.parametrize(
    ("make", "status"), [(_published, "published"), (_publishing, "publishing"), (_draft, "draft")]
)
def test_only_a_failed_or_partial_publish_can_be_retried(api, owner, accounts, sandbox, make, status):
    publish_id = make(api, owner, accounts, sandbox)
    before = _count(sandbox, "x")

    response = _retry(api, owner.key, publish_id)

    assert response.status_code == 400
    assert _get(api, owner.key, publish_id)["status"] == status
    assert _count(sandbox, "x") == before


def test_retrying_with_media_the_platform_does_not_take_is_a_422(
    api, owner, accounts, sandbox, partial, settings, tmp_path
):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    data = files.video(brand=b"qt  ")  # Bluesky takes MP4 video only
    upload = media_services.media_create(
        team=owner.team, user=None, filename="clip.mov", content_type="video/quicktime", size_bytes=len(data)
    )
    storage.write_stream(upload.storage_key, [data])
    quicktime = str(media_services.media_confirm(team=owner.team, media_id=str(upload.pk)).pk)
    failed = _target(partial, accounts.bluesky)

    response = _retry(
        api,
        owner.key,
        partial["id"],
        {"targets": [{"target_id": failed["id"], "media_ids": [quicktime], "platform_settings": {"fit_media": False}}]},
    )

    assert response.status_code == 422
    data = _get(api, owner.key, partial["id"])
    assert data["status"] == "partial"
    assert _target(data, accounts.bluesky)["media_ids"] is None
    assert _count(sandbox, "bluesky") == 0


def test_retrying_an_absent_publish_is_a_404(api, owner):
    assert _retry(api, owner.key, uuid.uuid4()).status_code == 404


def test_retrying_another_teams_publish_is_a_404(api, owner, outsider, sandbox):
    from demo.seed import sandbox_account

    sandbox.outcomes("x", "error")
    theirs = _create(api, outsider.key, sandbox_account(outsider.team, "x"))

    assert _retry(api, owner.key, theirs["id"]).status_code == 404
    assert _count(sandbox, "x") == 0


# --- unknown outcomes --------------------------------------------------------------------------


def test_a_target_with_an_unknown_outcome_is_never_resent_and_is_settled_by_reconciliation(
    api, owner, accounts, sandbox
):
    # X takes the post but its answer never arrives in time; Bluesky refuses outright.
    sandbox.outcomes("x", "timeout")
    sandbox.outcomes("bluesky", "error")
    publish = _create(api, owner.key, accounts.x, accounts.bluesky)
    data = _get(api, owner.key, publish["id"])
    unknown = _target(data, accounts.x)
    assert (unknown["outcome"], unknown["status"]) == ("unknown", "processing")
    assert _target(data, accounts.bluesky)["status"] == "failed"

    response = _retry(api, owner.key, publish["id"])

    assert response.status_code == 200, response.json()
    data = _get(api, owner.key, publish["id"])
    unknown = _target(data, accounts.x)
    assert (unknown["outcome"], unknown["status"]) == ("unknown", "processing")
    assert _target(data, accounts.bluesky)["status"] == "published"
    assert data["status"] == "processing"
    assert (_count(sandbox, "x"), _count(sandbox, "bluesky")) == (1, 1)

    reconcile(now=timezone.now() + dt.timedelta(days=1))

    data = _get(api, owner.key, publish["id"])
    assert data["status"] == "published"
    settled = _target(data, accounts.x)
    assert settled["status"] == "published"
    assert settled["platform_post_id"] == sandbox.posts("x")[0]["id"]
    assert _count(sandbox, "x") == 1


def test_an_entry_for_a_target_with_an_unknown_outcome_is_a_400(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "timeout")
    sandbox.outcomes("bluesky", "error")
    publish = _create(api, owner.key, accounts.x, accounts.bluesky)

    response = _retry(api, owner.key, publish["id"], {"targets": [{"account_id": str(accounts.x.pk)}]})

    assert response.status_code == 400
    assert _target(_get(api, owner.key, publish["id"]), accounts.x)["outcome"] == "unknown"
    assert _count(sandbox, "x") == 1


# --- events ------------------------------------------------------------------------------------


def test_a_publish_that_fails_everywhere_emits_post_failed_once(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "error")
    sandbox.outcomes("bluesky", "error")
    publish = _create(api, owner.key, accounts.x, accounts.bluesky)

    [event] = _events("post.failed", publish["id"])
    assert event.data["status"] == "failed"
    assert _events("post.published", publish["id"]) == []


def test_a_partial_then_published_publish_emits_post_published_once_per_change(api, owner, accounts, sandbox, partial):
    [first] = _events("post.published", partial["id"])
    assert first.data["status"] == "partial"

    _retry(api, owner.key, partial["id"])

    statuses = sorted(e.data["status"] for e in _events("post.published", partial["id"]))
    assert statuses == ["partial", "published"]
    assert _events("post.failed", partial["id"]) == []


def test_a_failed_publish_retried_to_success_emits_post_published_once(api, owner, accounts, sandbox):
    sandbox.outcomes("x", "error")
    publish = _create(api, owner.key, accounts.x)
    assert len(_events("post.failed", publish["id"])) == 1

    _retry(api, owner.key, publish["id"])
    _retry(api, owner.key, publish["id"])  # nothing left to retry: no second event

    [event] = _events("post.published", publish["id"])
    assert event.data["status"] == "published"
    assert len(_events("post.failed", publish["id"])) == 1


@pytest.mark.parametrize("platform", ["x", "bluesky", "linkedin", "threads", "facebook"])
def test_a_text_post_whose_answer_never_came_is_found_on_the_platform_not_failed(
    api, owner, accounts, sandbox, platform
):
    # Whatever id the client kept before the answer was lost, reconciliation must find the
    # post (by that id or among recent posts) instead of declaring the target failed.
    account = getattr(accounts, platform)
    sandbox.outcomes(platform, "timeout")
    publish = _create(api, owner.key, account)
    assert _target(_get(api, owner.key, publish["id"]), account)["outcome"] in ("unknown", "processing")

    for days in (1, 2, 3):
        reconcile(now=timezone.now() + dt.timedelta(days=days))

    data = _get(api, owner.key, publish["id"])
    assert data["status"] == "published", data["targets"]
    assert _target(data, account)["platform_post_id"] == sandbox.posts(platform)[0]["id"]
    assert _count(sandbox, platform) == 1
