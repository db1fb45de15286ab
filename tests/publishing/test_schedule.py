"""Confirming drafts, moving scheduled publishes (reschedule, unschedule) and the scheduler
tick that releases them (spec §3 and §4)."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.utils import timezone

from media import services as media_services
from media import storage
from publishing.models import ScheduledRelease
from publishing.release import release_due
from teams import services as team_services
from teams.models import SCOPES, Role
from tests.factories import UserFactory
from tests.media import files

pytestmark = pytest.mark.django_db


# --- helpers ---------------------------------------------------------------------------------


def _at(hours: float) -> dt.datetime:
    return (timezone.now() + dt.timedelta(hours=hours)).replace(microsecond=0)


def _when(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value)


def _create(api, key, *accounts, **body):
    payload = {"content": "Hello", "targets": [{"account_id": str(a.pk)} for a in accounts], **body}
    response = api.as_(key).post("/api/v1/publishes", payload, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def _draft(api, key, *accounts, **body):
    return _create(api, key, *accounts, publish_mode="draft", **body)


def _scheduled(api, key, *accounts, at: dt.datetime, **body):
    return _create(api, key, *accounts, publish_mode="scheduled", scheduled_at=at.isoformat(), **body)


def _get(api, key, publish_id):
    return api.as_(key).get(f"/api/v1/publishes/{publish_id}").json()["data"]


def _post(api, key, publish_id, verb, body=None):
    return api.as_(key).post(f"/api/v1/publishes/{publish_id}/{verb}", body, format="json")


def _releases(publish_id):
    return list(ScheduledRelease.objects.filter(publish_id=publish_id))


# --- confirm -----------------------------------------------------------------------------------


def test_confirming_a_draft_with_an_empty_body_publishes_it_now(api, owner, accounts, sandbox):
    draft = _draft(api, owner.key, accounts.x)
    assert sandbox.posts("x") == []

    response = _post(api, owner.key, draft["id"], "confirm", {})

    assert response.status_code == 200, response.json()
    assert response.json()["data"]["status"] == "publishing"
    assert _get(api, owner.key, draft["id"])["status"] == "published"
    assert [p["text"] for p in sandbox.posts("x")] == ["Hello"]


def test_confirming_with_a_time_schedules_the_draft(api, owner, accounts, sandbox):
    draft = _draft(api, owner.key, accounts.x)
    when = _at(3)

    response = _post(api, owner.key, draft["id"], "confirm", {"scheduled_at": when.isoformat()})

    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    assert (data["id"], data["status"]) == (draft["id"], "scheduled")
    assert _when(data["scheduled_at"]) == when
    assert [r.due_at for r in _releases(draft["id"])] == [when]
    assert sandbox.posts() == []


def test_confirming_a_draft_that_already_has_a_time_schedules_it(api, owner, accounts, sandbox):
    when = _at(3)
    draft = _draft(api, owner.key, accounts.x, scheduled_at=when.isoformat())
    assert draft["status"] == "draft"
    assert _releases(draft["id"]) == []

    response = _post(api, owner.key, draft["id"], "confirm", {})

    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    assert data["status"] == "scheduled"
    assert _when(data["scheduled_at"]) == when
    assert [r.due_at for r in _releases(draft["id"])] == [when]
    assert sandbox.posts() == []


@pytest.mark.parametrize(
    "scheduled_at",
    [(timezone.now() - dt.timedelta(minutes=5)).isoformat(), "next tuesday", "2026-13-45T99:00:00Z"],
    ids=["past", "words", "impossible-date"],
)
def test_confirming_with_a_bad_or_past_time_is_a_400(api, owner, accounts, sandbox, scheduled_at):
    draft = _draft(api, owner.key, accounts.x)

    response = _post(api, owner.key, draft["id"], "confirm", {"scheduled_at": scheduled_at})

    assert response.status_code == 400
    assert _get(api, owner.key, draft["id"])["status"] == "draft"
    assert sandbox.posts() == []


def test_confirming_twice_is_a_422_and_sends_once(api, owner, accounts, sandbox):
    draft = _draft(api, owner.key, accounts.x)
    assert _post(api, owner.key, draft["id"], "confirm", {}).status_code == 200

    response = _post(api, owner.key, draft["id"], "confirm", {})

    assert response.status_code == 422
    assert len(sandbox.posts("x")) == 1


def test_a_scheduled_publish_cannot_be_confirmed(api, owner, accounts, sandbox):
    scheduled = _scheduled(api, owner.key, accounts.x, at=_at(2))

    response = _post(api, owner.key, scheduled["id"], "confirm", {})

    assert response.status_code == 422
    assert _get(api, owner.key, scheduled["id"])["status"] == "scheduled"
    assert sandbox.posts() == []


def test_a_published_publish_cannot_be_confirmed(api, owner, accounts, sandbox):
    published = _create(api, owner.key, accounts.x)

    response = _post(api, owner.key, published["id"], "confirm", {})

    assert response.status_code == 422
    assert len(sandbox.posts("x")) == 1


def test_a_members_confirm_in_an_approval_team_waits_for_approval(api, owner, member, accounts, sandbox):
    owner.team.approval_required = True
    owner.team.save()
    draft = _draft(api, member.key, accounts.x)
    assert draft["approval_status"] is None

    response = _post(api, member.key, draft["id"], "confirm", {})

    assert response.status_code == 200, response.json()
    data = _get(api, member.key, draft["id"])
    assert data["approval_status"] == "pending_approval"
    assert data["status"] == "draft"
    assert sandbox.posts() == []


def test_confirming_an_absent_draft_is_a_404(api, owner):
    assert _post(api, owner.key, uuid.uuid4(), "confirm", {}).status_code == 404


# --- reschedule --------------------------------------------------------------------------------


def test_rescheduling_moves_the_publish_and_replaces_its_queue_job(api, owner, accounts):
    scheduled = _scheduled(api, owner.key, accounts.x, at=_at(2))
    old = ScheduledRelease.objects.get(publish_id=scheduled["id"])
    later = _at(5)

    response = _post(api, owner.key, scheduled["id"], "reschedule", {"scheduled_at": later.isoformat()})

    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    assert (data["id"], data["status"]) == (scheduled["id"], "scheduled")
    assert _when(data["scheduled_at"]) == later
    assert not ScheduledRelease.objects.filter(pk=old.pk).exists()
    assert [r.due_at for r in _releases(scheduled["id"])] == [later]


def test_a_rescheduled_publish_is_released_at_its_new_time_only(api, owner, accounts, sandbox):
    first = _at(2)
    scheduled = _scheduled(api, owner.key, accounts.x, at=first)
    later = _at(5)
    _post(api, owner.key, scheduled["id"], "reschedule", {"scheduled_at": later.isoformat()})

    assert release_due(now=first + dt.timedelta(seconds=1)) == 0
    assert sandbox.posts() == []
    assert release_due(now=later + dt.timedelta(seconds=1)) == 1
    assert _get(api, owner.key, scheduled["id"])["status"] == "published"
    assert len(sandbox.posts("x")) == 1


@pytest.mark.parametrize(
    "body",
    [
        {"scheduled_at": (timezone.now() - dt.timedelta(minutes=1)).isoformat()},
        {"scheduled_at": "tomorrow"},
        {"scheduled_at": None},
        {},
    ],
    ids=["past", "words", "null", "missing"],
)
def test_rescheduling_to_a_bad_or_past_time_is_a_400(api, owner, accounts, body):
    when = _at(2)
    scheduled = _scheduled(api, owner.key, accounts.x, at=when)

    response = _post(api, owner.key, scheduled["id"], "reschedule", body)

    assert response.status_code == 400
    assert _when(_get(api, owner.key, scheduled["id"])["scheduled_at"]) == when
    assert [r.due_at for r in _releases(scheduled["id"])] == [when]


def test_only_a_scheduled_publish_can_be_rescheduled(api, owner, accounts, sandbox):
    draft = _draft(api, owner.key, accounts.x)
    published = _create(api, owner.key, accounts.bluesky)

    for publish_id in (draft["id"], published["id"]):
        response = _post(api, owner.key, publish_id, "reschedule", {"scheduled_at": _at(4).isoformat()})

        assert response.status_code == 422
    assert _releases(draft["id"]) == []
    assert _releases(published["id"]) == []
    assert _get(api, owner.key, published["id"])["status"] == "published"


def test_rescheduling_an_absent_publish_is_a_404(api, owner):
    response = _post(api, owner.key, uuid.uuid4(), "reschedule", {"scheduled_at": _at(1).isoformat()})

    assert response.status_code == 404


# --- unschedule --------------------------------------------------------------------------------


@pytest.fixture
def image(owner, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    data = files.image()
    upload = media_services.media_create(
        team=owner.team, user=None, filename="a.png", content_type="image/png", size_bytes=len(data)
    )
    storage.write_stream(upload.storage_key, [data])
    return str(media_services.media_confirm(team=owner.team, media_id=str(upload.pk)).pk)


def test_unscheduling_turns_the_publish_back_into_the_same_draft(api, owner, accounts, image, sandbox):
    scheduled = _create(
        api,
        owner.key,
        publish_mode="scheduled",
        scheduled_at=_at(2).isoformat(),
        media_ids=[image],
        targets=[{"account_id": str(accounts.x.pk), "content": "For X"}, {"account_id": str(accounts.bluesky.pk)}],
    )

    response = _post(api, owner.key, scheduled["id"], "unschedule")

    assert response.status_code == 200, response.json()
    data = response.json()["data"]
    assert (data["id"], data["status"], data["content"], data["media_ids"]) == (
        scheduled["id"],
        "draft",
        "Hello",
        [image],
    )
    assert [(t["id"], t["account_id"], t["content"]) for t in data["targets"]] == [
        (t["id"], t["account_id"], t["content"]) for t in scheduled["targets"]
    ]
    assert _releases(scheduled["id"]) == []
    assert release_due(now=_at(48)) == 0
    assert sandbox.posts() == []


def test_an_unscheduled_publish_is_an_editable_draft_again(api, owner, accounts, sandbox):
    scheduled = _scheduled(api, owner.key, accounts.x, at=_at(2))
    _post(api, owner.key, scheduled["id"], "unschedule")

    edited = api.as_(owner.key).patch(f"/api/v1/publishes/{scheduled['id']}", {"content": "Now"}, format="json")
    confirmed = _post(api, owner.key, scheduled["id"], "confirm", {})

    assert edited.status_code == 200, edited.json()
    assert confirmed.status_code == 200, confirmed.json()
    assert [p["text"] for p in sandbox.posts("x")] == ["Now"]


def test_only_a_scheduled_publish_can_be_unscheduled(api, owner, accounts, sandbox):
    draft = _draft(api, owner.key, accounts.x)
    published = _create(api, owner.key, accounts.bluesky)

    for publish_id in (draft["id"], published["id"]):
        assert _post(api, owner.key, publish_id, "unschedule").status_code == 422
    assert _get(api, owner.key, published["id"])["status"] == "published"


def test_unscheduling_an_absent_publish_is_a_404(api, owner):
    assert _post(api, owner.key, uuid.uuid4(), "unschedule").status_code == 404


# --- the scheduler tick ----------------------------------------------------------------------


def _member_of(team, username):
    user = UserFactory(username=username)
    team_services.membership_add(team=team, user=user, role=Role.MEMBER)
    _, key = team_services.api_key_create(user=user, name="all scopes", scopes=SCOPES, team=team)
    return key


def test_the_tick_releases_due_publishes_only(api, owner, accounts, sandbox):
    owner.team.approval_required = True
    owner.team.save()
    when = _at(1)
    due = _scheduled(api, owner.key, accounts.x, at=when, content="Due now")
    future = _scheduled(api, owner.key, accounts.x, at=when + dt.timedelta(days=1), content="Tomorrow")
    waiting = _scheduled(api, _member_of(owner.team, "writer"), accounts.x, at=when, content="Needs approval")
    assert waiting["approval_status"] == "pending_approval"

    released = release_due(now=when + dt.timedelta(seconds=1))

    assert released == 1
    assert _get(api, owner.key, due["id"])["status"] == "published"
    assert [p["text"] for p in sandbox.posts("x")] == ["Due now"]
    assert _get(api, owner.key, future["id"])["status"] == "scheduled"
    assert _get(api, owner.key, waiting["id"])["status"] == "scheduled"
    assert _releases(due["id"]) == []
    assert len(_releases(future["id"])) == len(_releases(waiting["id"])) == 1


def test_a_second_tick_releases_nothing_again(api, owner, accounts, sandbox):
    when = _at(1)
    scheduled = _scheduled(api, owner.key, accounts.x, accounts.bluesky, at=when)
    assert release_due(now=when + dt.timedelta(seconds=1)) == 1

    again = release_due(now=when + dt.timedelta(minutes=5))

    assert again == 0
    assert len(sandbox.posts("x")) == len(sandbox.posts("bluesky")) == 1
    assert _get(api, owner.key, scheduled["id"])["status"] == "published"
    assert ScheduledRelease.objects.count() == 0


def test_the_tick_does_not_release_a_publish_before_its_time(api, owner, accounts, sandbox):
    when = _at(1)
    scheduled = _scheduled(api, owner.key, accounts.x, at=when)

    assert release_due(now=when - dt.timedelta(seconds=1)) == 0
    assert _get(api, owner.key, scheduled["id"])["status"] == "scheduled"
    assert len(_releases(scheduled["id"])) == 1
    assert sandbox.posts() == []


def test_confirming_a_publish_that_waits_out_a_rate_limit_is_a_422(api, owner, accounts, sandbox):
    # Its job already ran and waits for its next try: it was handed over, nothing to re-send.
    sandbox.outcomes("x", "rate_limited")
    sending = _create(api, owner.key, accounts.x)
    assert _get(api, owner.key, sending["id"])["status"] == "publishing"

    response = _post(api, owner.key, sending["id"], "confirm", {})

    assert response.status_code == 422, response.json()
    assert response.json()["error"]["code"] == "NOT_A_DRAFT"


def test_unscheduling_withdraws_an_approval_so_nothing_goes_out_while_pending(api, owner, member, accounts, sandbox):
    owner.team.approval_required = True
    owner.team.save()
    submitted = _scheduled(api, member.key, accounts.x, at=_at(2))
    assert _post(api, owner.key, submitted["id"], "approve").status_code == 200

    unscheduled = _post(api, owner.key, submitted["id"], "unschedule").json()["data"]
    assert (unscheduled["status"], unscheduled["approval_status"], unscheduled["approved_by"]) == ("draft", None, None)
    edited = api.as_(member.key).patch(f"/api/v1/publishes/{submitted['id']}", {"content": "Edited"}, format="json")
    assert edited.json()["data"]["approval_status"] is None  # an unconfirmed draft is not gated

    # The member submits it again: it waits for approval and is not sent.
    waiting = _post(api, member.key, submitted["id"], "confirm", {}).json()["data"]
    assert (waiting["status"], waiting["approval_status"]) == ("draft", "pending_approval")
    assert sandbox.posts() == []


# --- times out of range ------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["9999-12-31T23:00-05:00", "0001-01-01T00:00+05:00"])
def test_a_time_out_of_range_is_a_400_on_create_confirm_and_reschedule(api, owner, accounts, sandbox, value):
    when = _at(2)
    draft, scheduled = _draft(api, owner.key, accounts.x), _scheduled(api, owner.key, accounts.x, at=when)
    body = {"content": "Hello", "targets": [{"account_id": str(accounts.x.pk)}], "publish_mode": "scheduled"}

    answers = [
        api.as_(owner.key).post("/api/v1/publishes", {**body, "scheduled_at": value}, format="json"),
        _post(api, owner.key, draft["id"], "confirm", {"scheduled_at": value}),
        _post(api, owner.key, scheduled["id"], "reschedule", {"scheduled_at": value}),
    ]

    for response in answers:
        assert response.status_code == 400
        error = response.json()["error"]
        assert (error["type"], error["code"]) == ("invalid_request", "VALIDATION_ERROR")
        assert error["details"] == {"scheduled_at": ["Datetime value out of range."]}
    assert _get(api, owner.key, draft["id"])["status"] == "draft"
    assert [r.due_at for r in _releases(scheduled["id"])] == [when]
