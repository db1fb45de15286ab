"""The slot instants of a posting schedule: order, duplicates, taken slots and daylight saving time."""

from __future__ import annotations

import datetime as dt

from accounts.models import PostingSchedule
from accounts.schedules import free_slots_between, next_free_slots, normalized_slots


def _utc(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)


def _schedule(zone: str, *slots: tuple[str, str]) -> PostingSchedule:
    return PostingSchedule(time_zone=zone, slots=[{"day": day, "time": time} for day, time in slots])


def test_a_schedule_without_slots_has_no_free_slots():
    assert next_free_slots(_schedule("Europe/Paris"), _utc("2026-01-05T00:00")) == []


def test_the_next_ten_slots_come_in_time_order_from_now():
    schedule = _schedule("UTC", ("wed", "18:00"), ("mon", "09:30"), ("wed", "08:00"))

    found = next_free_slots(schedule, _utc("2026-01-05T09:30"))  # a Monday, at its slot

    assert found[:4] == [
        _utc("2026-01-07T08:00"),
        _utc("2026-01-07T18:00"),
        _utc("2026-01-12T09:30"),
        _utc("2026-01-14T08:00"),
    ]
    assert len(found) == 10
    assert found == sorted(found)
    assert all(instant.tzinfo == dt.UTC for instant in found)


def test_a_slot_given_twice_counts_once():
    schedule = _schedule("UTC", ("mon", "09:30"), ("mon", "09:30"))

    found = next_free_slots(schedule, _utc("2026-01-05T00:00"), count=2)

    assert found == [_utc("2026-01-05T09:30"), _utc("2026-01-12T09:30")]


def test_slots_are_wall_clock_times_in_the_schedules_zone():
    schedule = _schedule("Asia/Tokyo", ("tue", "08:00"))

    assert next_free_slots(schedule, _utc("2026-01-05T00:00"), count=1) == [_utc("2026-01-05T23:00")]


def test_taken_instants_are_skipped():
    schedule = _schedule("UTC", ("mon", "09:30"))

    found = next_free_slots(schedule, _utc("2026-01-05T00:00"), taken={_utc("2026-01-05T09:30")}, count=2)

    assert found == [_utc("2026-01-12T09:30"), _utc("2026-01-19T09:30")]


def test_paris_skips_a_slot_in_the_spring_forward_gap():
    # 29 March 2026: Paris clocks go from 02:00 straight to 03:00.
    schedule = _schedule("Europe/Paris", ("sun", "02:30"))

    found = next_free_slots(schedule, _utc("2026-03-20T00:00"), count=2)

    assert found == [_utc("2026-03-22T01:30"), _utc("2026-04-05T00:30")]


def test_paris_takes_a_repeated_slot_once_at_its_first_occurrence():
    # 25 October 2026: Paris clocks go back from 03:00 to 02:00; 02:30 happens twice.
    schedule = _schedule("Europe/Paris", ("sun", "02:30"))

    found = next_free_slots(schedule, _utc("2026-10-20T00:00"), count=2)

    assert found == [_utc("2026-10-25T00:30"), _utc("2026-11-01T01:30")]


def test_new_york_skips_the_gap_and_follows_the_offset_change():
    # 8 March 2026: New York clocks go from 02:00 to 03:00.
    schedule = _schedule("America/New_York", ("sun", "02:15"), ("sun", "09:00"))

    found = next_free_slots(schedule, _utc("2026-03-02T00:00"), count=3)

    assert found == [_utc("2026-03-08T13:00"), _utc("2026-03-15T06:15"), _utc("2026-03-15T13:00")]


def test_new_york_takes_the_repeated_hour_once():
    # 1 November 2026: New York clocks go back from 02:00 to 01:00; 01:30 happens twice.
    schedule = _schedule("America/New_York", ("sun", "01:30"))

    found = next_free_slots(schedule, _utc("2026-10-30T00:00"), count=2)

    assert found == [_utc("2026-11-01T05:30"), _utc("2026-11-08T06:30")]


def test_normalized_slots_drop_duplicates_and_sort_by_week_then_time():
    slots = [{"day": "sun", "time": "08:00"}, {"day": "mon", "time": "17:00"}, {"day": "mon", "time": "09:00"}]

    assert normalized_slots([*slots, slots[0]]) == [
        {"day": "mon", "time": "09:00"},
        {"day": "mon", "time": "17:00"},
        {"day": "sun", "time": "08:00"},
    ]


def test_a_zone_the_tz_database_no_longer_has_reads_as_utc():
    schedule = _schedule("Nowhere/Gone", ("mon", "09:30"))

    assert next_free_slots(schedule, _utc("2026-01-05T00:00"), count=1) == [_utc("2026-01-05T09:30")]


def test_the_free_slots_between_two_instants_include_the_start_and_not_the_end():
    schedule = _schedule("UTC", ("mon", "09:30"), ("wed", "08:00"))

    found = free_slots_between(schedule, _utc("2026-01-05T09:30"), _utc("2026-01-19T09:30"))

    assert found == [
        _utc("2026-01-05T09:30"),
        _utc("2026-01-07T08:00"),
        _utc("2026-01-12T09:30"),
        _utc("2026-01-14T08:00"),
    ]


def test_the_free_slots_between_two_instants_leave_out_taken_ones_and_follow_the_zone():
    # 29 March 2026: Paris clocks go from 02:00 straight to 03:00; 02:30 that Sunday does not exist.
    schedule = _schedule("Europe/Paris", ("sun", "02:30"), ("sun", "12:00"))
    taken = {_utc("2026-03-29T10:00")}

    found = free_slots_between(schedule, _utc("2026-03-23T00:00"), _utc("2026-04-06T00:00"), taken)

    assert found == [_utc("2026-04-05T00:30"), _utc("2026-04-05T10:00")]


def test_a_range_over_a_week_long_holds_every_week_of_slots():
    schedule = _schedule("UTC", ("fri", "18:00"))

    found = free_slots_between(schedule, _utc("2026-01-01T00:00"), _utc("2026-02-12T00:00"))  # six weeks

    assert found == [_utc(f"2026-{day}T18:00") for day in ("01-02", "01-09", "01-16", "01-23", "01-30", "02-06")]
