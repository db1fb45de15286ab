"""POST /api/v1/publishes/validate: the create's own judgement of a body, answered as data
(200 with `valid`, the create's status and error object, every problem of every target),
with nothing created, counted, announced or sent."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.models import AccountStatus
from demo.seed import sandbox_account
from publishing.models import DeliveryJob, Publish
from teams.models import MonthlyUsage
from webhooks.models import Event

pytestmark = pytest.mark.django_db

URL = "/api/v1/publishes"
NO_SUCH_ID = "01900000-0000-7000-8000-000000000000"


def _validate(api, key, body):
    response = api.as_(key).post(f"{URL}/validate", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()["data"]


def _without_request_id(error):
    return None if error is None else {k: v for k, v in error.items() if k != "request_id"}


def _nothing_written():
    assert Publish.objects.count() == 0
    assert DeliveryJob.objects.count() == 0
    assert MonthlyUsage.objects.count() == 0
    assert Event.objects.count() == 0


def _bodies(accounts, expired):
    x, bluesky, pinterest = (str(a.pk) for a in (accounts.x, accounts.bluesky, accounts.pinterest))
    past = (timezone.now() - dt.timedelta(hours=1)).isoformat()
    return {
        "accepted": {"content": "Launch day", "targets": [{"account_id": x}, {"account_id": bluesky}]},
        "text too long": {"content": "a" * 281, "targets": [{"account_id": x}]},
        "expired account": {"content": "Hi", "targets": [{"account_id": x}, {"account_id": str(expired.pk)}]},
        "unknown account": {"content": "Hi", "targets": [{"account_id": NO_SUCH_ID}]},
        "account twice": {"content": "Hi", "targets": [{"account_id": x}, {"account_id": x}]},
        "past schedule": {"content": "Hi", "targets": [{"account_id": x}], "scheduled_at": past},
        "unknown media": {"content": "Hi", "media_ids": [NO_SUCH_ID], "targets": [{"account_id": x}]},
        "no board, no media": {"content": "Hi", "targets": [{"account_id": pinterest}]},
        "bad field": {"content": "Hi", "targets": [{"account_id": "not-a-uuid"}], "publish_mode": "later"},
        "no targets": {"content": "Hi", "targets": []},
        "thread accepted": {"content": "1/3", "targets": [{"account_id": x, "thread": [{"content": "2/3"}]}]},
        "thread item too long": {"content": "1/2", "targets": [{"account_id": x, "thread": [{"content": "a" * 281}]}]},
        "thread where none is taken": {
            "content": "Hi",
            "media_ids": [],
            "targets": [{"account_id": pinterest, "platform_settings": {"boardId": "1"}, "thread": [{"content": "2"}]}],
        },
    }


def test_each_answer_is_the_creates_own_and_validating_writes_nothing(api, owner, accounts, sandbox):
    expired = sandbox_account(owner.team, "x", suffix="_expired", status=AccountStatus.EXPIRED)
    for name, body in _bodies(accounts, expired).items():
        checked = _validate(api, owner.key, body)
        _nothing_written()

        created = api.as_(owner.key).post(URL, body, format="json")

        assert checked["status"] == created.status_code, name
        assert checked["valid"] is (created.status_code == 201), name
        expected = None if created.status_code == 201 else created.json()["error"]
        assert _without_request_id(checked["error"]) == _without_request_id(expected), name
        Publish.objects.all().delete()
        MonthlyUsage.objects.all().delete()
        Event.objects.all().delete()


def test_every_problem_of_every_target_is_reported_where_the_create_names_the_first(api, owner, accounts):
    expired = sandbox_account(owner.team, "x", suffix="_expired", status=AccountStatus.EXPIRED)
    body = {
        "content": "a" * 301,
        "targets": [
            {"account_id": str(expired.pk)},
            {"account_id": NO_SUCH_ID},
            {"account_id": str(accounts.x.pk)},
            {"account_id": str(accounts.bluesky.pk), "content": "Short enough"},
            {"account_id": str(accounts.pinterest.pk)},
        ],
    }

    checked = _validate(api, owner.key, body)

    assert checked["valid"] is False
    assert checked["error"]["code"] == "ACCOUNT_EXPIRED"  # the create stops at the first
    by_index = {t["index"]: t for t in checked["targets"]}
    assert [p["code"] for p in by_index[0]["problems"]] == ["ACCOUNT_EXPIRED"]
    assert (by_index[1]["platform"], [p["code"] for p in by_index[1]["problems"]]) == (None, ["ACCOUNT_NOT_FOUND"])
    assert (by_index[2]["length"], by_index[2]["limit"]) == (301, 280)
    assert [p["code"] for p in by_index[2]["problems"]] == ["TEXT_TOO_LONG"]
    assert by_index[3] == {
        "index": 3,
        "account_id": str(accounts.bluesky.pk),
        "platform": "bluesky",
        "length": 12,
        "limit": 300,
        "problems": [],
    }
    assert {"MEDIA_REQUIRED", "BOARD_REQUIRED"} <= {p["code"] for p in by_index[4]["problems"]}


def test_a_used_up_quota_is_the_429_the_create_would_answer_and_nothing_is_counted(api, team, owner, accounts):
    team.plan.posts_per_month = 1
    team.plan.save()
    first = api.as_(owner.key).post(
        URL, {"content": "One", "targets": [{"account_id": str(accounts.x.pk)}]}, format="json"
    )
    assert first.status_code == 201

    body = {"content": "Two", "targets": [{"account_id": str(accounts.bluesky.pk)}]}
    checked = _validate(api, owner.key, body)

    assert (checked["valid"], checked["status"]) == (False, 429)
    assert checked["error"]["type"] == "quota_exceeded"
    assert [(p["field"], p["code"]) for p in checked["problems"]] == [("quota", "QUOTA_EXCEEDED")]
    assert MonthlyUsage.objects.get().posts == 1
    draft = _validate(api, owner.key, {**body, "publish_mode": "draft"})
    assert (draft["valid"], draft["status"]) == (True, 201)  # a draft counts when confirmed


def test_it_says_a_members_publish_would_wait_for_approval(api, team, owner, member, accounts):
    team.approval_required = True
    team.save()
    body = {"content": "Hi", "targets": [{"account_id": str(accounts.x.pk)}]}

    assert _validate(api, member.key, body)["approval_required"] is True
    assert _validate(api, owner.key, body)["approval_required"] is False


def test_a_field_the_create_refuses_is_named_with_its_path(api, owner, accounts):
    body = {"targets": [{"account_id": "nope"}], "publish_mode": "later"}

    checked = _validate(api, owner.key, body)

    assert (checked["valid"], checked["status"]) == (False, 400)
    assert checked["error"]["code"] == "VALIDATION_ERROR"
    assert {p["field"] for p in checked["problems"]} == {"targets[0].account_id", "publish_mode"}
    assert checked["targets"] == []


def test_validating_needs_the_posts_write_scope_and_sees_only_the_callers_team(api, owner, outsider, accounts):
    body = {"content": "Hi", "targets": [{"account_id": str(accounts.x.pk)}]}

    refused = api.as_(owner.key_with("posts:read")).post(f"{URL}/validate", body, format="json")
    foreign = _validate(api, outsider.key, body)

    assert refused.status_code == 403
    assert foreign["error"]["code"] == "ACCOUNT_NOT_FOUND"
    assert foreign["targets"][0]["platform"] is None


def test_malformed_json_is_a_400_as_anywhere(api, owner):
    response = api.as_(owner.key).post(f"{URL}/validate", data="{", content_type="application/json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "MALFORMED_BODY"


def test_a_thread_items_problem_is_named_by_its_place_in_the_thread(api, owner, accounts):
    body = {
        "content": "1/3",
        "targets": [{"account_id": str(accounts.x.pk), "thread": [{"content": "2/3"}, {"content": "a" * 281}]}],
    }

    [target] = _validate(api, owner.key, body)["targets"]

    assert [(p["field"], p["code"]) for p in target["problems"]] == [("thread[1].text", "TEXT_TOO_LONG")]
