"""publish_mode "queue": a publish scheduled at the first posting-schedule slot, a minute away
or more, that every one of its accounts has free."""

from __future__ import annotations

import datetime as dt
import time
import zoneinfo
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from accounts.schedules import DAYS
from accounts.services import posting_schedule_set
from publishing import inputs, lifecycle, queue
from publishing.models import Publish, QueueSlot

pytestmark = pytest.mark.django_db

EVERY_DAY_AT_NINE = [{"day": day, "time": "09:00"} for day in DAYS]
PARIS = zoneinfo.ZoneInfo("Europe/Paris")


def _queue(api, key, *accounts, **fields):
    body = {"content": "Queued", "targets": [{"account_id": str(a.pk)} for a in accounts], "publish_mode": "queue"}
    return api.as_(key).post("/api/v1/publishes", {**body, **fields}, format="json")


def _at(response):
    return dt.datetime.fromisoformat(response.json()["data"]["scheduled_at"])


def _free(api, key, account):
    body = api.as_(key).get(f"/api/v1/accounts/{account.pk}/schedule").json()
    return [dt.datetime.fromisoformat(value) for value in body["data"]["next_free_slots"]]


def test_a_queued_publish_is_scheduled_at_the_accounts_first_free_slot(api, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="Europe/Paris", slots=EVERY_DAY_AT_NINE)
    first = _free(api, owner.key, accounts.x)[0]

    response = _queue(api, owner.key, accounts.x)

    assert response.status_code == 201, response.json()
    data = response.json()["data"]
    assert (data["status"], data["publish_mode"]) == ("scheduled", "scheduled")
    assert _at(response) == first
    assert _at(response).astimezone(PARIS).time() == dt.time(9, 0)
    assert [t["status"] for t in data["targets"]] == ["scheduled"]
    # The slot is taken: the schedule's next free one is the day after.
    assert _free(api, owner.key, accounts.x)[0] == first + dt.timedelta(days=1)


def test_queued_publishes_take_the_slots_in_turn(api, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)
    free = _free(api, owner.key, accounts.x)

    times = [_at(_queue(api, owner.key, accounts.x)) for _ in range(3)]

    assert times == free[:3]


def test_a_slot_taken_by_a_scheduled_publish_is_skipped(api, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)
    free = _free(api, owner.key, accounts.x)
    scheduled = {"content": "Picked", "targets": [{"account_id": str(accounts.x.pk)}], "scheduled_at": free[0]}
    assert api.as_(owner.key).post("/api/v1/publishes", scheduled, format="json").status_code == 201

    assert _at(_queue(api, owner.key, accounts.x)) == free[1]


def test_every_account_must_have_the_slot_free(api, owner, accounts):
    weekdays = [{"day": day, "time": "09:00"} for day in DAYS[:5]]
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)
    posting_schedule_set(account=accounts.bluesky, time_zone="UTC", slots=weekdays)
    # The x account's next free slot goes to a publish of its own.
    x_first = _at(_queue(api, owner.key, accounts.x))
    bluesky_free = _free(api, owner.key, accounts.bluesky)

    both = _at(_queue(api, owner.key, accounts.x, accounts.bluesky))

    assert both == min(slot for slot in bluesky_free if slot > x_first)
    assert both.weekday() < 5 and both.time() == dt.time(9, 0)
    assert QueueSlot.objects.filter(instant=both).count() == 2


def test_an_account_without_slots_is_a_400_naming_it(api, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)

    response = _queue(api, owner.key, accounts.x, accounts.bluesky)

    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("invalid_request", "NO_QUEUE_SLOTS")
    assert error["details"]["account_id"] == str(accounts.bluesky.pk)
    assert not QueueSlot.objects.exists()
    assert api.as_(owner.key).get("/api/v1/publishes").json()["data"] == []


def test_accounts_that_never_share_a_slot_are_a_400(api, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=[{"day": "mon", "time": "09:00"}])
    posting_schedule_set(account=accounts.bluesky, time_zone="UTC", slots=[{"day": "tue", "time": "09:00"}])

    response = _queue(api, owner.key, accounts.x, accounts.bluesky)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "NO_QUEUE_SLOTS"
    assert set(response.json()["error"]["details"]["account_ids"]) == {str(accounts.x.pk), str(accounts.bluesky.pk)}


def test_a_queued_publish_takes_no_scheduled_at(api, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)

    response = _queue(api, owner.key, accounts.x, scheduled_at="2099-01-01T09:00:00Z")

    assert (response.status_code, response.json()["error"]["code"]) == (400, "SCHEDULED_AT_NOT_ALLOWED")


@pytest.mark.parametrize("action", ["unschedule", "reschedule"])
def test_unscheduling_or_rescheduling_frees_the_slot(api, owner, accounts, action):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)
    first = _queue(api, owner.key, accounts.x)
    body = {"scheduled_at": (_at(first) + dt.timedelta(hours=3)).isoformat()} if action == "reschedule" else {}

    moved = api.as_(owner.key).post(f"/api/v1/publishes/{first.json()['data']['id']}/{action}", body, format="json")

    assert moved.status_code == 200, moved.json()
    assert _at(_queue(api, owner.key, accounts.x)) == _at(first)


def test_a_rejected_publish_frees_its_slot(api, owner, member, accounts):
    owner.team.approval_required = True
    owner.team.save()
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)
    waiting = _queue(api, member.key, accounts.x)
    assert waiting.json()["data"]["approval_status"] == "pending_approval"

    rejected = api.as_(owner.key).post(f"/api/v1/publishes/{waiting.json()['data']['id']}/reject", {}, format="json")

    assert rejected.status_code == 200, rejected.json()
    assert _at(_queue(api, owner.key, accounts.x)) == _at(waiting)


def test_a_slot_left_by_an_edit_is_taken_again(api, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)
    posting_schedule_set(account=accounts.bluesky, time_zone="UTC", slots=EVERY_DAY_AT_NINE)
    both = _queue(api, owner.key, accounts.x, accounts.bluesky)
    edit = {"targets": [{"account_id": str(accounts.bluesky.pk)}]}
    edited = api.as_(owner.key).patch(f"/api/v1/publishes/{both.json()['data']['id']}", edit, format="json")
    assert edited.status_code == 200, edited.json()

    # The x account no longer posts at that instant: its slot is free for the next one.
    assert _at(_queue(api, owner.key, accounts.x)) == _at(both)
    assert _at(_queue(api, owner.key, accounts.bluesky)) > _at(both)


def test_validate_answers_the_slot_a_queue_create_would_take(api, owner, accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)
    body = {"content": "Queued", "targets": [{"account_id": str(accounts.x.pk)}], "publish_mode": "queue"}

    answer = api.as_(owner.key).post("/api/v1/publishes/validate", body, format="json").json()["data"]

    assert (answer["valid"], answer["status"]) == (True, 201)
    assert dt.datetime.fromisoformat(answer["scheduled_at"]) == _free(api, owner.key, accounts.x)[0]
    assert not QueueSlot.objects.exists()


def test_validate_reports_an_account_without_slots(api, owner, accounts):
    body = {"content": "Queued", "targets": [{"account_id": str(accounts.x.pk)}], "publish_mode": "queue"}

    answer = api.as_(owner.key).post("/api/v1/publishes/validate", body, format="json").json()["data"]

    assert (answer["valid"], answer["status"], answer["scheduled_at"]) == (False, 400, None)
    assert answer["error"]["code"] == "NO_QUEUE_SLOTS"
    assert [(p["field"], p["code"]) for p in answer["problems"]] == [("publish_mode", "NO_QUEUE_SLOTS")]


def test_a_slot_less_than_a_minute_away_is_not_taken(accounts):
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)
    now = dt.datetime(2031, 3, 4, 8, 59, 30, tzinfo=dt.UTC)

    assert queue.first_free_slot(accounts=[accounts.x], now=now) == dt.datetime(2031, 3, 5, 9, 0, tzinfo=dt.UTC)
    earlier = now - dt.timedelta(seconds=1)
    assert queue.first_free_slot(accounts=[accounts.x], now=earlier - dt.timedelta(seconds=30)) == dt.datetime(
        2031, 3, 4, 9, 0, tzinfo=dt.UTC
    )


def test_a_slot_in_the_spring_forward_gap_is_skipped_by_the_queue(accounts):
    # Paris moves from 02:00 to 03:00 on 30 March 2031: no 02:30 that Sunday.
    posting_schedule_set(account=accounts.x, time_zone="Europe/Paris", slots=[{"day": "sun", "time": "02:30"}])
    now = dt.datetime(2031, 3, 29, 12, 0, tzinfo=dt.UTC)

    slot = queue.first_free_slot(accounts=[accounts.x], now=now)

    assert slot == dt.datetime(2031, 4, 6, 0, 30, tzinfo=dt.UTC)  # 02:30 CEST a week later


def test_a_repeated_hour_gives_one_slot_to_two_accounts_in_different_zones(accounts):
    # 02:30 on 26 October 2031 happens twice in Paris; the first one (CEST, 00:30 UTC) is the slot.
    # London's 01:30 (BST, 00:30 UTC) that day is the same instant; Paris' second 02:30 is not.
    posting_schedule_set(account=accounts.x, time_zone="Europe/Paris", slots=[{"day": "sun", "time": "02:30"}])
    posting_schedule_set(account=accounts.bluesky, time_zone="Europe/London", slots=[{"day": "sun", "time": "01:30"}])
    now = dt.datetime(2031, 10, 25, 12, 0, tzinfo=dt.UTC)

    slot = queue.first_free_slot(accounts=[accounts.x, accounts.bluesky], now=now)

    assert slot == dt.datetime(2031, 10, 26, 0, 30, tzinfo=dt.UTC)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_create_racing_for_a_held_slot_waits_then_takes_the_next(owner, accounts):
    """The unique (account, instant) keeps two creates apart: the second one's insert waits
    for the first's commit, then it moves to the next slot."""
    posting_schedule_set(account=accounts.x, time_zone="UTC", slots=EVERY_DAY_AT_NINE)
    caller = inputs.Caller(user=owner.user, can_approve=True)
    target = [inputs.TargetInput(account_id=str(accounts.x.pk))]

    def create() -> dt.datetime:
        try:
            publish = lifecycle.publish_create(
                team=owner.team,
                caller=caller,
                content="Second",
                media_ids=[],
                targets=target,
                publish_mode="queue",
                scheduled_at=None,
            )
            return publish.scheduled_at
        finally:
            connections.close_all()

    with ThreadPoolExecutor(1) as pool:
        with transaction.atomic():
            held = queue.take_slot(publish=Publish(team=owner.team), accounts=[accounts.x], now=timezone.now())
            second = pool.submit(create)
            _wait_until_blocked(connection)
            transaction.set_rollback(True)
        # The holder rolled back (its publish never existed): the slot is free again, but the
        # waiting create had to wait to know it.
        assert second.result(timeout=30) == held

    with ThreadPoolExecutor(1) as pool, transaction.atomic():
        first = lifecycle.CreateRequest("First", [], target, "queue")
        publish, _ = lifecycle._new_publish(owner.team, caller, first, now=timezone.now())
        third = pool.submit(create)
        _wait_until_blocked(connection)
    assert third.result(timeout=30) > publish.scheduled_at > held


def _wait_until_blocked(connection) -> None:
    """Until another session of this database waits for a lock (a poll, not a sleep)."""
    deadline = time.monotonic() + 20
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0]:
                return
            cursor.execute("SELECT pg_stat_clear_snapshot()")
    raise AssertionError("no other session waited for a lock")
