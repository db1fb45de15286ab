"""Input of the dashboard's posting schedule form, parsed before `services.posting_schedule_set`
sees it.

The form has one text field per weekday (`slots_mon` .. `slots_sun`) holding that day's times,
`09:00 13:30 18:00`: typing a day's times in a row is quicker than a control per slot, and reads
back the same way. Times are wall-clock `HH:MM` on the 24-hour clock; `9:30` is taken as 09:30.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from accounts.schedules import DAYS

DAY_NAMES = dict(zip(DAYS, ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"), strict=True))
TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
SEPARATORS = re.compile(r"[\s,;]+")


def field_of(day: str) -> str:
    return f"slots_{day}"


def day_texts(slots: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """Each day's times as its field shows them, by field name."""
    times: dict[str, list[str]] = {day: [] for day in DAYS}
    for slot in slots:
        times[slot["day"]].append(slot["time"])
    return {field_of(day): " ".join(found) for day, found in times.items()}


def parsed_slots(data: Mapping[str, str]) -> tuple[list[dict[str, str]], dict[str, str]]:
    """The slots typed in the form, and a problem by field name for each day that has a word
    which is not a time (nothing is saved then)."""
    slots: list[dict[str, str]] = []
    problems: dict[str, str] = {}
    for day in DAYS:
        for word in SEPARATORS.split(data.get(field_of(day), "").strip()):
            if not word:
                continue
            found = TIME.match(word)
            if found is None:
                problems[field_of(day)] = _not_a_time(day, word)
                break
            slots.append({"day": day, "time": f"{int(found[1]):02d}:{found[2]}"})
    return slots, problems


def _not_a_time(day: str, word: str) -> str:
    shown = word if len(word) <= 20 else f"{word[:20]}…"
    return (
        f"{DAY_NAMES[day]}: “{shown}” is not a time. Write each time as hours and minutes on the 24-hour "
        "clock, such as 09:00 or 18:30, with a space between two times."
    )
