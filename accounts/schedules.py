"""Posting schedules: weekly wall-clock slots in an account's own time zone, and the instants
they fall on.

A slot is `{"day": "mon".."sun", "time": "HH:MM"}`. It names a wall-clock time, so its instant
moves with daylight saving time: on the day clocks spring forward a slot inside the gap does not
exist and is skipped; on the day they fall back a slot inside the repeated hour is taken once, at
its first occurrence (`fold=0`). Everything here is pure; `accounts.selectors` supplies the
instants already taken.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import zoneinfo
from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import Protocol

from teams.time_zones import zone_of

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # index = date.weekday()
# One slot per hour of the week; more is a list nobody keeps by hand.
MAX_SLOTS = 168
TIME_PATTERN = re.compile(r"^(?:[01]\d|2[0-3]):[0-5]\d$")


class Schedule(Protocol):
    time_zone: str
    slots: list[dict[str, str]]


def normalized_slots(slots: Iterable[Mapping[str, str]]) -> list[dict[str, str]]:
    """The slots without duplicates, in week order (Monday first), then by time."""
    unique = {(DAYS.index(slot["day"]), slot["time"]) for slot in slots}
    return [{"day": DAYS[day], "time": time} for day, time in sorted(unique)]


def next_free_slots(
    schedule: Schedule, now: dt.datetime, taken: Collection[dt.datetime] = (), count: int = 10
) -> list[dt.datetime]:
    """The next `count` slot instants strictly after `now` (aware, UTC) that are not in `taken`."""
    slots = normalized_slots(schedule.slots)
    if not slots or count <= 0:
        return []
    # Each week has at least one instant of every slot but for a rare DST gap, so this many
    # weeks always hold `count` free ones.
    weeks = count + len(taken) + 2
    found: list[dt.datetime] = []
    for instant in _instants(slots, zone_of(schedule.time_zone), now, weeks):
        if instant > now and instant not in taken:
            found.append(instant)
            if len(found) == count:
                break
    return found


def free_slots_between(
    schedule: Schedule, start: dt.datetime, end: dt.datetime, taken: Collection[dt.datetime] = ()
) -> list[dt.datetime]:
    """Every slot instant in [start, end) (aware) that is not in `taken`, in order."""
    if end <= start:
        return []
    weeks = (end - start).days // 7 + 1
    instants = itertools.takewhile(lambda instant: instant < end, slot_instants(schedule, start=start, weeks=weeks))
    return [instant for instant in instants if instant not in taken]


def _instants(
    slots: list[dict[str, str]], zone: zoneinfo.ZoneInfo, now: dt.datetime, weeks: int
) -> Iterator[dt.datetime]:
    """Every slot's instant in UTC, in order, from the local day before `now` on."""
    by_day: dict[int, list[dt.time]] = {}
    for slot in slots:
        by_day.setdefault(DAYS.index(slot["day"]), []).append(dt.time.fromisoformat(slot["time"]))
    first_day = now.astimezone(zone).date() - dt.timedelta(days=1)
    for offset in range(weeks * 7):
        day = first_day + dt.timedelta(days=offset)
        for time in by_day.get(day.weekday(), []):
            instant = _wall_clock_instant(dt.datetime.combine(day, time), zone)
            if instant is not None:
                yield instant


def _wall_clock_instant(wall: dt.datetime, zone: zoneinfo.ZoneInfo) -> dt.datetime | None:
    """The UTC instant of a naive wall-clock time in `zone`: its first occurrence when the hour
    repeats, None when the clocks skip it (it does not survive a round trip through UTC)."""
    instant = wall.replace(tzinfo=zone, fold=0).astimezone(dt.UTC)
    if instant.astimezone(zone).replace(tzinfo=None) != wall:
        return None
    return instant


def slot_instants(schedule: Schedule, *, start: dt.datetime, weeks: int) -> Iterator[dt.datetime]:
    """Every slot instant at or after `start` (aware) for `weeks` weeks, in order."""
    slots = normalized_slots(schedule.slots)
    if not slots:
        return
    for instant in _instants(slots, zone_of(schedule.time_zone), start, weeks + 1):
        if instant >= start:
            yield instant


def is_slot_instant(schedule: Schedule, instant: dt.datetime) -> bool:
    """Whether `instant` (aware) is one of the schedule's slot instants: a slot's wall-clock
    time in its zone, at its first occurrence when the hour repeats."""
    zone = zone_of(schedule.time_zone)
    wall = instant.astimezone(zone).replace(tzinfo=None)
    if wall.second or wall.microsecond:
        return False
    slot = {"day": DAYS[wall.weekday()], "time": f"{wall:%H:%M}"}
    return slot in schedule.slots and _wall_clock_instant(wall, zone) == instant
