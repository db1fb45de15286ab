"""POST /api/v1/publishes end to end (spec §3 "(new)" rows, §4 POST rules 1-8): the request goes
through the API, dispatched jobs run in-process (eager Celery) and reach the sandbox over
real HTTP."""

from __future__ import annotations

import datetime as dt
import time
import uuid

import pytest
from django.utils import timezone

from config.throttling import WINDOW_SECONDS
from demo.seed import sandbox_account
from publishing.models import Publish
from publishing.release import release_due
from teams import keys
from tests.factories import PlanFactory
from webhooks.models import Event

pytestmark = pytest.mark.django_db

URL = "/api/v1/publishes"


# --- helpers ------------------------------------------------------------------------------


def _create(api, key, body, *, idempotency_key=None):
    headers = {} if idempotency_key is None else {"HTTP_IDEMPOTENCY_KEY": idempotency_key}
    return api.as_(key).post(URL, body, format="json", **headers)


def _get(api, key, publish_id):
    return api.as_(key).get(f"{URL}/{publish_id}")


def _target(account, **fields):
    return {"account_id": str(account.pk), **fields}


def _error(response):
    return response.json()["error"]


def _future(**delta):
    return (timezone.now() + dt.timedelta(**(delta or {"hours": 1}))).isoformat()


def _events(team, event_type):
    return Event.objects.filter(team=team, type=event_type)


# --- immediate ----------------------------------------------------------------------------


def test_immediate_publish_answers_publishing_then_shows_published(api, owner, accounts, sandbox):
    body = {"content": "Launch day", "targets": [_target(accounts.x), _target(accounts.bluesky)]}

    response = _create(api, owner.key, body)

    assert response.status_code == 201, response.json()
    created = response.json()["data"]
    assert created["status"] == "publishing"
    assert created["publish_mode"] == "immediate"
    assert [t["status"] for t in created["targets"]] == ["publishing", "publishing"]
    got = _get(api, owner.key, created["id"]).json()["data"]
    assert got["id"] == created["id"]
    assert got["status"] == "published"
    assert {t["platform"] for t in got["targets"]} == {"x", "bluesky"}
    for target in got["targets"]:
        assert target["status"] == "published"
        assert target["platform_post_id"]
        assert target["platform_post_url"].startswith("https://")
    posts = sandbox.posts()
    assert sorted((p["platform"], p["text"]) for p in posts) == [("bluesky", "Launch day"), ("x", "Launch day")]


def test_target_content_overrides_the_default_text(api, owner, accounts, sandbox):
    body = {
        "content": "The long announcement for everyone",
        "targets": [_target(accounts.x, content="Short one for X"), _target(accounts.bluesky)],
    }

    response = _create(api, owner.key, body)

    assert response.status_code == 201, response.json()
    assert [p["text"] for p in sandbox.posts("x")] == ["Short one for X"]
    assert [p["text"] for p in sandbox.posts("bluesky")] == ["The long announcement for everyone"]


def test_target_media_overrides_the_default_media(api, owner, accounts, sandbox, upload):
    media_id = upload(owner.team)
    body = {
        "content": "Photo for X only",
        "targets": [_target(accounts.x, media_ids=[media_id]), _target(accounts.bluesky)],
    }

    response = _create(api, owner.key, body)

    assert response.status_code == 201, response.json()
    assert _get(api, owner.key, response.json()["data"]["id"]).json()["data"]["status"] == "published"
    assert [p["media_count"] for p in sandbox.posts("x")] == [1]
    assert [p["media_count"] for p in sandbox.posts("bluesky")] == [0]


def test_root_media_reaches_every_target_without_an_override(api, owner, accounts, sandbox, upload):
    media_id = upload(owner.team)
    body = {
        "content": "Photo everywhere",
        "media_ids": [media_id],
        "targets": [_target(accounts.x), _target(accounts.bluesky)],
    }

    response = _create(api, owner.key, body)

    assert response.status_code == 201, response.json()
    assert response.json()["data"]["media_ids"] == [media_id]
    assert sorted((p["platform"], p["media_count"]) for p in sandbox.posts()) == [("bluesky", 1), ("x", 1)]


def test_unknown_platform_settings_keys_are_ignored(api, owner, accounts, sandbox):
    target = _target(accounts.x, platform_settings={"colour": "blue", "x": {"reply_to": "1"}})

    response = _create(api, owner.key, {"content": "Plain", "targets": [target]})

    assert response.status_code == 201, response.json()
    assert [p["text"] for p in sandbox.posts("x")] == ["Plain"]
    assert "reply" not in sandbox.state.posts_of("x")[0].extra["request"]


def test_platform_settings_reach_the_platform(api, owner, accounts, sandbox):
    first = _create(api, owner.key, {"content": "Thread start", "targets": [_target(accounts.x)]})
    parent_id = _get(api, owner.key, first.json()["data"]["id"]).json()["data"]["targets"][0]["platform_post_id"]
    body = {
        "content": "Follow-up",
        "targets": [
            _target(accounts.x, platform_settings={"reply_to": parent_id}),
            _target(accounts.bluesky, platform_settings={"first_comment": "More in the replies"}),
        ],
    }

    response = _create(api, owner.key, body)

    assert response.status_code == 201, response.json()
    reply = sandbox.state.posts_of("x")[-1]
    assert reply.text == "Follow-up"
    assert reply.extra["request"]["reply"] == {"in_reply_to_tweet_id": parent_id}
    assert [p["text"] for p in sandbox.posts("bluesky")] == ["Follow-up", "More in the replies"]


# --- media ids -------------------------------------------------------------------------------


def test_unconfirmed_upload_is_refused(api, owner, accounts, sandbox, upload):
    media_id = upload(owner.team, confirmed=False)

    response = _create(api, owner.key, {"content": "Hi", "media_ids": [media_id], "targets": [_target(accounts.x)]})

    assert response.status_code == 400
    assert _error(response)["code"] == "MEDIA_NOT_FOUND"
    assert media_id in _error(response)["details"]["media_ids"]
    assert not Publish.objects.exists()
    assert sandbox.posts() == []


def test_another_teams_upload_is_refused(api, owner, outsider, accounts, upload):
    media_id = upload(outsider.team)

    response = _create(api, owner.key, {"content": "Hi", "media_ids": [media_id], "targets": [_target(accounts.x)]})

    assert response.status_code == 400
    assert _error(response)["code"] == "MEDIA_NOT_FOUND"


def test_unknown_media_id_is_refused_also_in_a_target_override(api, owner, accounts):
    unknown = str(uuid.uuid4())
    body = {"content": "Hi", "targets": [_target(accounts.x, media_ids=[unknown])]}

    response = _create(api, owner.key, body)

    assert response.status_code == 400
    assert _error(response)["code"] == "MEDIA_NOT_FOUND"
    assert _error(response)["details"]["media_ids"] == [unknown]


def test_media_urls_instead_of_ids_are_refused(api, owner, accounts):
    body = {"content": "Hi", "media_ids": ["https://example.com/photo.png"], "targets": [_target(accounts.x)]}

    response = _create(api, owner.key, body)

    assert response.status_code == 400
    assert _error(response)["type"] == "invalid_request"
    assert "media_ids" in _error(response)["details"]
    assert not Publish.objects.exists()


# --- platform validation ---------------------------------------------------------------------


def _problem_codes(response):
    return [p["code"] for p in _error(response)["details"]["targets"][0]["problems"]]


def test_text_too_long_for_x_names_the_target(api, owner, accounts, sandbox):
    body = {"content": "a" * 281, "targets": [_target(accounts.bluesky, content="fine"), _target(accounts.x)]}

    response = _create(api, owner.key, body)

    assert response.status_code == 400
    error = _error(response)
    assert error["type"] == "invalid_request"
    assert error["code"] == "TEXT_TOO_LONG"
    assert [(t["index"], t["account_id"], t["platform"]) for t in error["details"]["targets"]] == [
        (1, str(accounts.x.pk), "x")
    ]
    assert _problem_codes(response) == ["TEXT_TOO_LONG"]
    assert not Publish.objects.exists()
    assert sandbox.posts() == []


def test_x_takes_exactly_280_characters(api, owner, accounts, sandbox):
    response = _create(api, owner.key, {"content": "a" * 280, "targets": [_target(accounts.x)]})

    assert response.status_code == 201, response.json()
    assert [len(p["text"]) for p in sandbox.posts("x")] == [280]


def test_tiktok_photo_title_over_90_characters_is_refused(api, owner, accounts, upload):
    media_id = upload(owner.team, kind="jpeg")
    target = _target(accounts.tiktok, media_ids=[media_id], platform_settings={"title": "t" * 91})

    response = _create(api, owner.key, {"content": "A photo", "targets": [target]})

    assert response.status_code == 400
    assert _error(response)["details"]["targets"][0]["account_id"] == str(accounts.tiktok.pk)
    assert _error(response)["code"] == "TITLE_TOO_LONG"
    assert _problem_codes(response) == ["TITLE_TOO_LONG"]


def test_youtube_video_without_a_title_is_refused(api, owner, accounts, upload):
    media_id = upload(owner.team, kind="video")

    response = _create(
        api, owner.key, {"content": "A video", "media_ids": [media_id], "targets": [_target(accounts.youtube)]}
    )

    assert response.status_code == 400
    assert _error(response)["code"] == "TITLE_REQUIRED"
    assert _error(response)["details"]["targets"][0]["index"] == 0
    assert _problem_codes(response) == ["TITLE_REQUIRED"]


def test_instagram_without_media_is_refused(api, owner, accounts):
    response = _create(api, owner.key, {"content": "Words only", "targets": [_target(accounts.instagram)]})

    assert response.status_code == 400
    assert _error(response)["code"] == "MEDIA_REQUIRED"
    assert _error(response)["details"]["targets"][0]["account_id"] == str(accounts.instagram.pk)


@pytest.mark.parametrize(
    ("platform", "kind", "platform_settings"),
    [
        ("tiktok", "jpeg", {"title": "t" * 90}),
        ("youtube", "video", {"title": "My clip"}),
        ("instagram", "jpeg", {}),
    ],
    ids=["tiktok-90-character-title", "youtube-titled-video", "instagram-with-image"],
)
def test_posts_within_the_platform_rules_are_accepted(api, owner, accounts, upload, platform, kind, platform_settings):
    account = getattr(accounts, platform)
    target = _target(account, media_ids=[upload(owner.team, kind=kind)], platform_settings=platform_settings)

    response = _create(api, owner.key, {"content": "Fits", "publish_mode": "draft", "targets": [target]})

    assert response.status_code == 201, response.json()
    assert response.json()["data"]["targets"][0]["platform_settings"] == platform_settings


# --- targets and accounts ------------------------------------------------------------------


@pytest.mark.parametrize("targets", [None, []], ids=["missing", "empty"])
def test_a_publish_needs_targets(api, owner, targets):
    body = {"content": "Nowhere to go"} | ({} if targets is None else {"targets": targets})

    response = _create(api, owner.key, body)

    assert response.status_code == 400
    assert _error(response)["type"] == "invalid_request"
    assert "targets" in _error(response)["details"]
    assert not Publish.objects.exists()


@pytest.mark.parametrize(
    "targets",
    [[{"account_id": "not-a-uuid"}], [{}], [{"content": "no account"}], "x", [None]],
    ids=["bad-uuid", "empty-target", "no-account-id", "not-a-list", "null-target"],
)
def test_malformed_targets_are_refused(api, owner, targets):
    response = _create(api, owner.key, {"content": "Hi", "targets": targets})

    assert response.status_code == 400
    assert _error(response)["type"] == "invalid_request"
    assert "targets" in _error(response)["details"]


def test_unknown_publish_mode_is_refused(api, owner, accounts, sandbox):
    response = _create(api, owner.key, {"content": "Hi", "publish_mode": "later", "targets": [_target(accounts.x)]})

    assert response.status_code == 400
    assert "publish_mode" in _error(response)["details"]
    assert sandbox.posts() == []


def test_unknown_account_is_refused(api, owner, accounts):
    unknown = str(uuid.uuid4())

    response = _create(api, owner.key, {"content": "Hi", "targets": [_target(accounts.x), {"account_id": unknown}]})

    assert response.status_code == 400
    assert _error(response)["code"] == "ACCOUNT_NOT_FOUND"
    assert _error(response)["details"]["account_id"] == unknown


def test_another_teams_account_is_refused(api, owner, outsider, sandbox):
    theirs = sandbox_account(outsider.team, "x")

    response = _create(api, owner.key, {"content": "Hi", "targets": [_target(theirs)]})

    assert response.status_code == 400
    assert _error(response)["code"] == "ACCOUNT_NOT_FOUND"
    assert sandbox.posts() == []


def test_expired_account_is_refused(api, owner, team, sandbox):
    expired = sandbox_account(team, "x", suffix="_expired", status="expired")

    response = _create(api, owner.key, {"content": "Hi", "targets": [_target(expired)]})

    assert response.status_code == 400
    assert _error(response)["code"] == "ACCOUNT_EXPIRED"
    assert not Publish.objects.exists()
    assert sandbox.posts() == []


def test_the_same_account_twice_is_refused(api, owner, accounts, sandbox):
    body = {"content": "Hi", "targets": [_target(accounts.x), _target(accounts.x, content="again")]}

    response = _create(api, owner.key, body)

    assert response.status_code == 400
    assert _error(response)["type"] == "invalid_request"
    assert not Publish.objects.exists()
    assert sandbox.posts() == []


# --- scheduled -----------------------------------------------------------------------------


def test_scheduled_publish_waits_for_its_time(api, owner, accounts, sandbox):
    when = _future(days=1)

    response = _create(
        api,
        owner.key,
        {"content": "Later", "publish_mode": "scheduled", "scheduled_at": when, "targets": [_target(accounts.x)]},
    )

    assert response.status_code == 201, response.json()
    data = response.json()["data"]
    assert data["status"] == "scheduled"
    assert data["publish_mode"] == "scheduled"
    assert dt.datetime.fromisoformat(data["scheduled_at"]) == dt.datetime.fromisoformat(when)
    assert [t["status"] for t in data["targets"]] == ["scheduled"]
    assert _get(api, owner.key, data["id"]).json()["data"]["status"] == "scheduled"
    assert sandbox.posts() == []


@pytest.mark.parametrize(
    ("scheduled_at", "code"),
    [
        (None, "SCHEDULED_AT_REQUIRED"),
        ("past", "SCHEDULED_AT_NOT_FUTURE"),
        ("next tuesday", "VALIDATION_ERROR"),
        ("2030-13-45T99:00:00Z", "VALIDATION_ERROR"),
    ],
    ids=["missing", "past", "words", "impossible-date"],
)
def test_scheduled_publish_needs_a_valid_future_time(api, owner, accounts, sandbox, scheduled_at, code):
    body = {"content": "Later", "publish_mode": "scheduled", "targets": [_target(accounts.x)]}
    if scheduled_at == "past":
        body["scheduled_at"] = (timezone.now() - dt.timedelta(minutes=1)).isoformat()
    elif scheduled_at is not None:
        body["scheduled_at"] = scheduled_at

    response = _create(api, owner.key, body)

    assert response.status_code == 400
    assert _error(response)["type"] == "invalid_request"
    assert _error(response)["code"] == code
    assert not Publish.objects.exists()
    assert sandbox.posts() == []


def test_scheduled_at_without_a_mode_schedules(api, owner, accounts, sandbox):
    response = _create(
        api, owner.key, {"content": "Later", "scheduled_at": _future(), "targets": [_target(accounts.x)]}
    )

    assert response.status_code == 201, response.json()
    assert response.json()["data"]["publish_mode"] == "scheduled"
    assert response.json()["data"]["status"] == "scheduled"
    assert sandbox.posts() == []


def test_scheduled_at_keeps_its_instant_and_answers_in_utc(api, owner, accounts):
    when = (timezone.now() + dt.timedelta(days=1)).replace(microsecond=0)
    local = when.astimezone(dt.timezone(dt.timedelta(hours=2)))

    response = _create(
        api, owner.key, {"content": "Later", "scheduled_at": local.isoformat(), "targets": [_target(accounts.x)]}
    )

    assert response.status_code == 201, response.json()
    answered = dt.datetime.fromisoformat(response.json()["data"]["scheduled_at"].replace("Z", "+00:00"))
    assert answered == when
    assert answered.utcoffset() == dt.timedelta(0)


def test_a_pending_scheduled_publish_is_not_released_when_due(api, owner, member, accounts, sandbox, approval_required):
    soon = timezone.now() + dt.timedelta(seconds=1)
    pending = _create(
        api, member.key, {"content": "Waits", "scheduled_at": soon.isoformat(), "targets": [_target(accounts.x)]}
    )
    later = (soon + dt.timedelta(milliseconds=200)).isoformat()
    free = _create(api, owner.key, {"content": "Goes", "scheduled_at": later, "targets": [_target(accounts.x)]})
    assert pending.status_code == free.status_code == 201

    deadline = time.monotonic() + 10  # the scheduler tick, run until the owner's publish is due and sent
    while not sandbox.posts() and time.monotonic() < deadline:
        release_due()
    release_due()

    assert [p["text"] for p in sandbox.posts()] == ["Goes"]
    assert _get(api, owner.key, free.json()["data"]["id"]).json()["data"]["status"] == "published"
    waiting = _get(api, owner.key, pending.json()["data"]["id"]).json()["data"]
    assert (waiting["status"], waiting["approval_status"]) == ("scheduled", "pending_approval")


def test_no_mode_and_no_time_publishes_now(api, owner, accounts, sandbox):
    response = _create(api, owner.key, {"content": "Now", "targets": [_target(accounts.x)]})

    assert response.status_code == 201, response.json()
    assert response.json()["data"]["publish_mode"] == "immediate"
    assert response.json()["data"]["status"] == "publishing"
    assert [p["text"] for p in sandbox.posts()] == ["Now"]


def test_immediate_with_a_scheduled_time_is_refused(api, owner, accounts, sandbox):
    body = {"content": "Now?", "publish_mode": "immediate", "scheduled_at": _future(), "targets": [_target(accounts.x)]}

    response = _create(api, owner.key, body)

    assert response.status_code == 400
    assert _error(response)["type"] == "invalid_request"
    assert not Publish.objects.exists()
    assert sandbox.posts() == []


# --- drafts ----------------------------------------------------------------------------------


def _posts_this_month(api, key):
    return api.as_(key).get("/api/v1/usage").json()["data"]["usage"]["posts_this_month"]


def test_draft_is_stored_not_sent_and_uses_no_quota(api, owner, accounts, sandbox):
    response = _create(
        api, owner.key, {"content": "Not yet", "publish_mode": "draft", "targets": [_target(accounts.x)]}
    )

    assert response.status_code == 201, response.json()
    data = response.json()["data"]
    assert data["status"] == "draft"
    assert data["approval_status"] is None
    assert [t["status"] for t in data["targets"]] == ["draft"]
    assert _get(api, owner.key, data["id"]).json()["data"]["status"] == "draft"
    assert sandbox.posts() == []
    assert _posts_this_month(api, owner.key) == 0


# --- approval ----------------------------------------------------------------------------------


@pytest.fixture
def approval_required(team):
    team.approval_required = True
    team.save()
    return team


def test_member_publish_waits_for_approval(api, member, accounts, sandbox, approval_required):
    response = _create(api, member.key, {"content": "Please approve", "targets": [_target(accounts.x)]})

    assert response.status_code == 201, response.json()
    data = response.json()["data"]
    assert data["status"] == "draft"
    assert data["approval_status"] == "pending_approval"
    assert _get(api, member.key, data["id"]).json()["data"]["status"] == "draft"
    assert sandbox.posts() == []
    events = _events(approval_required, "post.pending_approval")
    assert [e.data["publish_id"] for e in events] == [data["id"]]


def test_member_scheduled_publish_waits_for_approval(api, member, accounts, sandbox, approval_required):
    body = {
        "content": "Later, approved",
        "publish_mode": "scheduled",
        "scheduled_at": _future(),
        "targets": [_target(accounts.x)],
    }

    response = _create(api, member.key, body)

    assert response.status_code == 201, response.json()
    data = response.json()["data"]
    assert data["status"] == "scheduled"
    assert data["approval_status"] == "pending_approval"
    assert _events(approval_required, "post.pending_approval").count() == 1
    assert sandbox.posts() == []


@pytest.mark.parametrize("persona", ["owner", "admin"])
def test_owner_and_admin_publishes_are_never_gated(request, api, accounts, sandbox, approval_required, persona):
    key = request.getfixturevalue(persona).key

    response = _create(api, key, {"content": f"From the {persona}", "targets": [_target(accounts.x)]})

    assert response.status_code == 201, response.json()
    data = response.json()["data"]
    assert data["status"] == "publishing"
    assert data["approval_status"] is None
    assert [p["text"] for p in sandbox.posts()] == [f"From the {persona}"]
    assert not _events(approval_required, "post.pending_approval").exists()


def test_member_draft_is_not_gated(api, member, accounts, sandbox, approval_required):
    response = _create(api, member.key, {"content": "Draft", "publish_mode": "draft", "targets": [_target(accounts.x)]})

    assert response.status_code == 201, response.json()
    assert response.json()["data"]["status"] == "draft"
    assert response.json()["data"]["approval_status"] is None
    assert not _events(approval_required, "post.pending_approval").exists()
    assert sandbox.posts() == []


def test_member_publishes_at_once_when_the_team_needs_no_approval(api, member, accounts, sandbox):
    response = _create(api, member.key, {"content": "No review here", "targets": [_target(accounts.x)]})

    assert response.status_code == 201, response.json()
    assert response.json()["data"]["status"] == "publishing"
    assert response.json()["data"]["approval_status"] is None
    assert [p["text"] for p in sandbox.posts()] == ["No review here"]


# --- quota -------------------------------------------------------------------------------------


@pytest.fixture
def two_posts_a_month(team):
    team.plan = PlanFactory(posts_per_month=2)
    team.save()
    return team


def test_quota_refuses_the_publish_past_the_plan_limit(api, owner, accounts, sandbox, two_posts_a_month):
    for text in ("one", "two"):
        assert _create(api, owner.key, {"content": text, "targets": [_target(accounts.x)]}).status_code == 201

    response = _create(api, owner.key, {"content": "three", "targets": [_target(accounts.x)]})

    assert response.status_code == 429
    assert _error(response)["type"] == "quota_exceeded"
    assert Publish.objects.filter(team=two_posts_a_month).count() == 2
    assert sorted(p["text"] for p in sandbox.posts()) == ["one", "two"]
    assert _posts_this_month(api, owner.key) == 2


def test_a_quota_refusal_does_not_use_up_the_idempotency_key(api, owner, accounts, sandbox, two_posts_a_month):
    for text in ("one", "two"):
        _create(api, owner.key, {"content": text, "targets": [_target(accounts.x)]})
    body = {"content": "three", "targets": [_target(accounts.x)]}

    refused = _create(api, owner.key, body, idempotency_key="after-upgrade")
    two_posts_a_month.plan = PlanFactory(posts_per_month=3)
    two_posts_a_month.save()
    accepted = _create(api, owner.key, body, idempotency_key="after-upgrade")

    assert refused.status_code == 429
    assert accepted.status_code == 201, accepted.json()
    assert sorted(p["text"] for p in sandbox.posts()) == ["one", "three", "two"]


def test_drafts_do_not_count_against_the_quota(api, owner, accounts, sandbox, two_posts_a_month):
    for text in ("draft one", "draft two", "draft three"):
        body = {"content": text, "publish_mode": "draft", "targets": [_target(accounts.x)]}
        assert _create(api, owner.key, body).status_code == 201

    results = [
        _create(api, owner.key, {"content": t, "targets": [_target(accounts.x)]}).status_code for t in ("a", "b")
    ]

    assert results == [201, 201]
    assert sorted(p["text"] for p in sandbox.posts()) == ["a", "b"]


def test_scheduled_publishes_count_against_the_quota(api, owner, accounts, two_posts_a_month):
    body = {"content": "Later", "scheduled_at": _future(), "targets": [_target(accounts.x)]}
    statuses = [_create(api, owner.key, body).status_code for _ in range(3)]

    assert statuses == [201, 201, 429]


# --- authentication and scopes -------------------------------------------------------------


def test_key_without_posts_write_cannot_create(api, owner, accounts, sandbox):
    key = owner.key_with("posts:read")

    response = _create(api, key, {"content": "Hi", "targets": [_target(accounts.x)]})

    assert response.status_code == 403
    assert _error(response)["type"] == "authorization_error"
    assert not Publish.objects.exists()
    assert sandbox.posts() == []


def test_create_without_a_key_is_unauthenticated(api, accounts):
    response = _create(api, None, {"content": "Hi", "targets": [_target(accounts.x)]})

    assert response.status_code == 401
    assert _error(response)["type"] == "authentication_error"
    assert not Publish.objects.exists()


def test_read_only_key_reads_publishes(api, owner, accounts):
    created = _create(api, owner.key, {"content": "Hi", "publish_mode": "draft", "targets": [_target(accounts.x)]})
    reader = owner.key_with("posts:read")

    one = _get(api, reader, created.json()["data"]["id"])
    listed = api.as_(reader).get(URL)

    assert one.status_code == 200
    assert one.json()["data"]["id"] == created.json()["data"]["id"]
    assert listed.status_code == 200
    assert [p["id"] for p in listed.json()["data"]] == [created.json()["data"]["id"]]


# --- rate limit --------------------------------------------------------------------------------


def test_the_31st_create_within_a_minute_is_rate_limited(api, owner, accounts):
    body = {"content": "Draft", "publish_mode": "draft", "targets": [_target(accounts.x)]}
    for _ in range(2):  # a fresh key and counter if a minute boundary fell inside the burst
        key = owner.key_with("posts:write", "posts:read")
        window = int(time.time() // WINDOW_SECONDS)
        statuses = [_create(api, key, body) for _ in range(31)]
        if int(time.time() // WINDOW_SECONDS) == window:
            break

    assert [r.status_code for r in statuses[:30]] == [201] * 30
    refused = statuses[30]
    assert refused.status_code == 429
    assert _error(refused)["type"] == "rate_limited"
    assert int(refused["Retry-After"]) >= 1
    assert Publish.objects.filter(created_by_key__prefix=keys.parse_prefix(key)).count() == 30


def test_reads_do_not_use_the_create_budget(api, owner, accounts):
    body = {"content": "Draft", "publish_mode": "draft", "targets": [_target(accounts.x)]}
    key = owner.key_with("posts:write", "posts:read")
    for _ in range(31):
        api.as_(key).get(URL)

    assert _create(api, key, body).status_code == 201


# --- Idempotency-Key -----------------------------------------------------------------------


def test_repeated_request_with_the_same_key_replays_the_first_answer(api, owner, accounts, sandbox):
    body = {"content": "Exactly once", "targets": [_target(accounts.x)]}

    first = _create(api, owner.key, body, idempotency_key="order-123")
    second = _create(api, owner.key, body, idempotency_key="order-123")

    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()
    assert Publish.objects.count() == 1
    assert [p["text"] for p in sandbox.posts()] == ["Exactly once"]


def test_the_same_body_with_its_fields_reordered_is_the_same_request(api, owner, accounts, sandbox):
    first = {"content": "Once", "publish_mode": "immediate", "targets": [_target(accounts.x)]}
    again = {"targets": [_target(accounts.x)], "publish_mode": "immediate", "content": "Once"}

    one = _create(api, owner.key, first, idempotency_key="reordered")
    two = _create(api, owner.key, again, idempotency_key="reordered")

    assert one.status_code == two.status_code == 201
    assert two.json()["data"]["id"] == one.json()["data"]["id"]
    assert len(sandbox.posts()) == 1


def test_same_key_with_a_different_body_is_a_conflict(api, owner, accounts, sandbox):
    _create(api, owner.key, {"content": "First", "targets": [_target(accounts.x)]}, idempotency_key="k-1")

    response = _create(api, owner.key, {"content": "Second", "targets": [_target(accounts.x)]}, idempotency_key="k-1")

    assert response.status_code == 409
    assert _error(response)["type"] == "conflict"
    assert Publish.objects.count() == 1
    assert [p["text"] for p in sandbox.posts()] == ["First"]


def test_a_refused_request_does_not_use_up_its_key(api, owner, accounts, sandbox):
    bad = {"content": "Hi", "targets": [{"account_id": str(uuid.uuid4())}]}
    good = {"content": "Hi", "targets": [_target(accounts.x)]}

    refused = _create(api, owner.key, bad, idempotency_key="fix-and-retry")
    accepted = _create(api, owner.key, good, idempotency_key="fix-and-retry")

    assert refused.status_code == 400
    assert accepted.status_code == 201, accepted.json()
    assert [p["text"] for p in sandbox.posts()] == ["Hi"]


def test_idempotency_keys_are_per_team(api, owner, outsider, accounts, sandbox):
    theirs = sandbox_account(outsider.team, "x")

    ours = _create(api, owner.key, {"content": "Ours", "targets": [_target(accounts.x)]}, idempotency_key="shared")
    other = _create(api, outsider.key, {"content": "Theirs", "targets": [_target(theirs)]}, idempotency_key="shared")

    assert ours.status_code == other.status_code == 201
    assert ours.json()["data"]["id"] != other.json()["data"]["id"]
    assert sorted(p["text"] for p in sandbox.posts()) == ["Ours", "Theirs"]


def test_an_over_long_idempotency_key_is_refused(api, owner, accounts, sandbox):
    response = _create(api, owner.key, {"content": "Hi", "targets": [_target(accounts.x)]}, idempotency_key="k" * 256)

    assert response.status_code == 400
    assert _error(response)["type"] == "invalid_request"
    assert not Publish.objects.exists()
    assert sandbox.posts() == []


def test_a_255_character_idempotency_key_is_accepted(api, owner, accounts, sandbox):
    response = _create(api, owner.key, {"content": "Hi", "targets": [_target(accounts.x)]}, idempotency_key="k" * 255)

    assert response.status_code == 201, response.json()


# --- events ----------------------------------------------------------------------------------


def test_publish_to_every_target_records_one_published_event(api, owner, team, accounts, sandbox):
    response = _create(
        api, owner.key, {"content": "All good", "targets": [_target(accounts.x), _target(accounts.bluesky)]}
    )
    publish_id = response.json()["data"]["id"]

    events = list(_events(team, "post.published"))

    assert [e.data["publish_id"] for e in events] == [publish_id]
    assert events[0].data["status"] == "published"
    assert {t["platform"] for t in events[0].data["targets"]} == {"x", "bluesky"}
    assert not _events(team, "post.failed").exists()


def test_a_partial_publish_records_a_published_event(api, owner, team, accounts, sandbox):
    sandbox.outcomes("x", "error")

    response = _create(api, owner.key, {"content": "Half", "targets": [_target(accounts.x), _target(accounts.bluesky)]})
    publish_id = response.json()["data"]["id"]

    assert _get(api, owner.key, publish_id).json()["data"]["status"] == "partial"
    events = list(_events(team, "post.published"))
    assert [e.data["publish_id"] for e in events] == [publish_id]
    assert events[0].data["status"] == "partial"


def test_a_refused_only_target_records_a_failed_event(api, owner, team, accounts, sandbox):
    sandbox.outcomes("x", "error")

    response = _create(api, owner.key, {"content": "Refused", "targets": [_target(accounts.x)]})
    publish_id = response.json()["data"]["id"]

    assert response.status_code == 201
    assert _get(api, owner.key, publish_id).json()["data"]["status"] == "failed"
    assert [e.data["publish_id"] for e in _events(team, "post.failed")] == [publish_id]
    assert not _events(team, "post.published").exists()
    assert sandbox.posts() == []
