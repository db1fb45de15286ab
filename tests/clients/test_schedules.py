"""`socialpub schedule` and `socialpub publish --queue` against the running stack."""

from __future__ import annotations

import json
from datetime import datetime

from tests.clients.conftest import Socialpub
from tests.long.stack import LiveStack


def _account(stack: LiveStack, platform: str) -> str:
    return str(stack.seed["accounts"]["acme"][platform])


def test_a_schedule_is_set_shown_and_a_queued_publish_takes_its_first_free_slot(
    socialpub: Socialpub, stack: LiveStack
) -> None:
    account = _account(stack, "x")

    made = socialpub("schedule", account, "--set", "mon 09:00", "thu 18:30", "--timezone", "Europe/Paris", "--json")
    shown = socialpub("schedule", account)
    queued = socialpub("publish", "Into the next slot", "--to", account, "--queue", "--json")
    after = json.loads(socialpub("schedule", account, "--json").out)

    assert made.code == 0, made.err
    schedule = json.loads(made.out)
    assert schedule["timezone"] == "Europe/Paris"
    assert [(slot["day"], slot["time"]) for slot in schedule["slots"]] == [("mon", "09:00"), ("thu", "18:30")]
    assert shown.code == 0, shown.err
    assert f"posting schedule of account {account} (Europe/Paris)" in shown.out
    assert "slots: mon 09:00, thu 18:30" in shown.out
    assert queued.code == 0, queued.err
    publish = json.loads(queued.out)
    first_free = datetime.fromisoformat(schedule["next_free_slots"][0])
    assert publish["status"] == "scheduled"
    assert datetime.fromisoformat(publish["scheduled_at"]) == first_free
    assert first_free not in [datetime.fromisoformat(slot) for slot in after["next_free_slots"]]


def test_a_new_zone_keeps_the_slots_and_clear_removes_them(socialpub: Socialpub, stack: LiveStack) -> None:
    account = _account(stack, "linkedin")
    socialpub("schedule", account, "--set", "tue 10:15", "--timezone", "UTC")

    moved = json.loads(socialpub("schedule", account, "--timezone", "America/New_York", "--json").out)
    cleared = socialpub("schedule", account, "--clear")

    assert moved["timezone"] == "America/New_York"
    assert [(slot["day"], slot["time"]) for slot in moved["slots"]] == [("tue", "10:15")]
    assert cleared.code == 0, cleared.err
    assert "slots: none" in cleared.out
    assert "(America/New_York)" in cleared.out


def test_queueing_to_an_account_without_slots_is_the_apis_error(socialpub: Socialpub, stack: LiveStack) -> None:
    account = _account(stack, "facebook")
    socialpub("schedule", account, "--clear")

    refused = socialpub("publish", "Nowhere to go", "--to", account, "--queue")

    assert refused.code == 1
    assert refused.out == ""
    assert refused.err.startswith("error: 400 ")
    assert "(NO_QUEUE_SLOTS)" in refused.err


def test_queue_and_at_together_are_a_usage_mistake(socialpub: Socialpub, stack: LiveStack) -> None:
    refused = socialpub("publish", "When?", "--to", "x", "--queue", "--at", "2030-01-01T09:00Z")

    assert refused.code == 2
    assert "not allowed with argument" in refused.err


def test_a_slot_without_a_time_is_named(socialpub: Socialpub, stack: LiveStack) -> None:
    refused = socialpub("schedule", _account(stack, "x"), "--set", "monday")

    assert refused.code == 1
    assert refused.err.strip() == "error: --set: 'monday' is not a day and a time such as 'mon 09:00'"


def test_a_bad_zone_is_the_apis_400(socialpub: Socialpub, stack: LiveStack) -> None:
    refused = socialpub("schedule", _account(stack, "linkedin"), "--set", "mon 09:00", "--timezone", "Mars/Olympus")

    assert refused.code == 1
    assert refused.err.startswith("error: 400 ")
    assert "Traceback" not in refused.err
