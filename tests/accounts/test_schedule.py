"""GET and PUT /api/v1/accounts/{id}/schedule: an account's posting schedule and its next free slots."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from django.utils import timezone

from accounts.schedules import DAYS, MAX_SLOTS
from tests.factories import SocialAccountFactory

pytestmark = pytest.mark.django_db

WEEKDAYS_AT_NINE = [{"day": day, "time": "09:00"} for day in DAYS[:5]]


def _url(account):
    return f"/api/v1/accounts/{account.pk}/schedule"


def _put(api, key, account, body):
    return api.as_(key).put(_url(account), body, format="json")


def _instants(body):
    return [dt.datetime.fromisoformat(value) for value in body["data"]["next_free_slots"]]


def test_an_account_without_a_schedule_has_no_slots(api, owner):
    account = SocialAccountFactory(team=owner.team)

    response = api.as_(owner.key).get(_url(account))

    assert response.status_code == 200
    assert response.json() == {"data": {"timezone": "UTC", "slots": [], "next_free_slots": []}}


def test_a_schedule_set_is_answered_with_its_next_ten_free_slots(api, owner):
    account = SocialAccountFactory(team=owner.team)
    before = timezone.now()

    response = _put(api, owner.key, account, {"timezone": "Europe/Paris", "slots": WEEKDAYS_AT_NINE})

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["data"]["timezone"] == "Europe/Paris"
    assert body["data"]["slots"] == WEEKDAYS_AT_NINE
    assert all(value.endswith("Z") for value in body["data"]["next_free_slots"])
    instants = _instants(body)
    assert len(instants) == 10
    assert instants == sorted(instants)
    assert instants[0] > before
    paris = [instant.astimezone(zoneinfo.ZoneInfo("Europe/Paris")) for instant in instants]
    assert {(local.weekday(), local.hour, local.minute) for local in paris} <= {(d, 9, 0) for d in range(5)}
    assert api.as_(owner.key).get(_url(account)).json() == body


def test_slots_are_answered_without_duplicates_in_week_order(api, owner):
    account = SocialAccountFactory(team=owner.team)
    slots = [{"day": "fri", "time": "17:45"}, {"day": "mon", "time": "08:00"}, {"day": "fri", "time": "17:45"}]

    body = _put(api, owner.key, account, {"timezone": "UTC", "slots": slots}).json()

    assert body["data"]["slots"] == [{"day": "mon", "time": "08:00"}, {"day": "fri", "time": "17:45"}]


def test_an_empty_list_clears_the_slots(api, owner):
    account = SocialAccountFactory(team=owner.team)
    _put(api, owner.key, account, {"timezone": "Asia/Tokyo", "slots": WEEKDAYS_AT_NINE})

    response = _put(api, owner.key, account, {"timezone": "Asia/Tokyo", "slots": []})

    assert response.json() == {"data": {"timezone": "Asia/Tokyo", "slots": [], "next_free_slots": []}}
    assert api.as_(owner.key).get(_url(account)).json()["data"]["slots"] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"timezone": "Mars/Olympus", "slots": []}, "timezone"),
        ({"timezone": "", "slots": []}, "timezone"),
        ({"timezone": "UTC", "slots": [{"day": "monday", "time": "09:00"}]}, "slots"),
        ({"timezone": "UTC", "slots": [{"day": "mon", "time": "24:00"}]}, "slots"),
        ({"timezone": "UTC", "slots": [{"day": "mon", "time": "9:5"}]}, "slots"),
        ({"timezone": "UTC", "slots": [{"day": "mon", "time": "ab"}]}, "slots"),
        ({"timezone": "UTC", "slots": [{"day": "mon"}]}, "slots"),
        ({"timezone": "UTC", "slots": {"day": "mon", "time": "09:00"}}, "slots"),
        ({"timezone": "UTC", "slots": "mon 09:00"}, "slots"),
        ({"timezone": "UTC"}, "slots"),
        ({"timezone": "UTC", "slots": [{"day": "mon", "time": "09:00"}] * (MAX_SLOTS + 1)}, "slots"),
    ],
    ids=[
        "unknown zone",
        "empty zone",
        "bad day",
        "24:00",
        "9:5",
        "not a time",
        "no time",
        "object",
        "string",
        "no slots",
        "too many",
    ],
)
def test_an_invalid_schedule_is_a_400_that_changes_nothing(api, owner, body, field):
    account = SocialAccountFactory(team=owner.team)
    _put(api, owner.key, account, {"timezone": "Europe/Paris", "slots": WEEKDAYS_AT_NINE})

    response = _put(api, owner.key, account, body)

    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("invalid_request", "VALIDATION_ERROR")
    assert field in error["details"]
    assert api.as_(owner.key).get(_url(account)).json()["data"]["slots"] == WEEKDAYS_AT_NINE


def test_setting_a_schedule_needs_accounts_write(api, owner):
    account = SocialAccountFactory(team=owner.team)
    reader = owner.key_with("accounts:read")

    refused = _put(api, reader, account, {"timezone": "UTC", "slots": WEEKDAYS_AT_NINE})

    assert refused.status_code == 403
    assert (refused.json()["error"]["code"], "accounts:write" in refused.json()["error"]["message"]) == (
        "MISSING_SCOPE",
        True,
    )
    assert api.as_(reader).get(_url(account)).json()["data"]["slots"] == []


def test_another_teams_account_is_not_found(api, owner, outsider):
    account = SocialAccountFactory(team=owner.team)
    _put(api, owner.key, account, {"timezone": "UTC", "slots": WEEKDAYS_AT_NINE})

    read = api.as_(outsider.key).get(_url(account))
    written = _put(api, outsider.key, account, {"timezone": "Asia/Tokyo", "slots": []})

    assert (read.status_code, read.json()["error"]["code"]) == (404, "ACCOUNT_NOT_FOUND")
    assert (written.status_code, written.json()["error"]["code"]) == (404, "ACCOUNT_NOT_FOUND")
    assert api.as_(owner.key).get(_url(account)).json()["data"]["timezone"] == "UTC"


def test_a_slot_with_a_scheduled_publish_to_the_account_is_not_free(api, owner):
    account, other = SocialAccountFactory(team=owner.team), SocialAccountFactory(team=owner.team)
    _put(api, owner.key, other, {"timezone": "UTC", "slots": WEEKDAYS_AT_NINE})
    slots = _put(api, owner.key, account, {"timezone": "UTC", "slots": WEEKDAYS_AT_NINE}).json()
    taken = slots["data"]["next_free_slots"][1]  # a day ahead at least, so still in the future
    publish = {
        "content": "In a slot",
        "targets": [{"account_id": str(account.pk)}],
        "publish_mode": "scheduled",
        "scheduled_at": taken,
    }
    assert api.as_(owner.key).post("/api/v1/publishes", publish, format="json").status_code == 201

    after = api.as_(owner.key).get(_url(account)).json()["data"]["next_free_slots"]

    assert taken not in after
    assert len(after) == 10
    assert after[0] == slots["data"]["next_free_slots"][0]
    # Another account's slot at the same instant stays free.
    assert taken in api.as_(owner.key).get(_url(other)).json()["data"]["next_free_slots"]
