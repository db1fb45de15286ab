"""The dashboard's date and time inputs, read in the active time zone and stored as UTC.

A `datetime-local` input sends a wall-clock time without a zone: it is read in the active zone
(the team's on a dashboard page, which the page names beside the field); a script may send an
offset too. Either way the time is turned into UTC here. A wall-clock time the zone skips (the
hour the clocks go forward) is refused with a sentence saying so; one it shows twice (the hour
the clocks go back) is the first of the two, as `fold=0` means. Anything a
browser could never send but a hand-made request can (`9999-12-31T23:00-05:00` is past the last
datetime Python holds once in UTC) is a plain refusal with the field, never an OverflowError.
The year 9999 is refused as a whole: the calendar cannot show a day of it (it always draws the
month after), and a time that close to the end leaves no room for the arithmetic done on it.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django.core.exceptions import ValidationError
from django.utils import timezone

LAST_YEAR = dt.MAXYEAR - 1
TOO_LATE = f"Pick a date before the year {dt.MAXYEAR}."
OUT_OF_RANGE = "That date is out of range."


def utc_moment(text: str, *, malformed: str) -> dt.datetime:
    """`text` (ISO 8601, with or without an offset; without one it is in the active zone) as an
    aware UTC datetime. ValidationError with `malformed` when it is no time at all, with a
    sentence when the zone skips that wall-clock time, or with a plain out-of-range message."""
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValidationError(malformed, code="invalid") from None
    if moment.year > LAST_YEAR:
        raise ValidationError(TOO_LATE, code="out_of_range")
    if moment.tzinfo is None:
        moment = _in_active_zone(moment)
    try:
        moment = moment.astimezone(dt.UTC)
    except OverflowError:  # an offset that moves the first day of year 1 before it
        raise ValidationError(OUT_OF_RANGE, code="out_of_range") from None
    if moment.year > LAST_YEAR:  # year 9998 moved into 9999 by its offset
        raise ValidationError(TOO_LATE, code="out_of_range")
    return moment


def day_in_range(day: dt.date) -> None:
    """A date input's day: with a day either side of it, which a 'from'/'to' filter needs."""
    if day.year > LAST_YEAR:
        raise ValidationError(TOO_LATE, code="out_of_range")
    if day == dt.date.min:
        raise ValidationError(OUT_OF_RANGE, code="out_of_range")


def _in_active_zone(wall: dt.datetime) -> dt.datetime:
    zone = timezone.get_current_timezone()
    try:
        moment = wall.replace(tzinfo=zone, fold=0)
        skipped = moment.astimezone(dt.UTC).astimezone(zone).replace(tzinfo=None) != wall
    except OverflowError:  # the first or last hours Python holds, moved past the ends by the zone
        raise ValidationError(OUT_OF_RANGE, code="out_of_range") from None
    if skipped:
        raise ValidationError(
            f"{wall:%Y-%m-%d %H:%M} does not exist in {zone_name(zone)}: the clocks go forward then. "
            "Pick a time outside the skipped hour.",
            code="nonexistent",
        )
    return moment


def local_text(moment: dt.datetime, pattern: str = "%Y-%m-%d %H:%M") -> str:
    """`moment` as a page says it in a sentence: in the active zone, the zone named after it."""
    zone = timezone.get_current_timezone()
    return f"{moment.astimezone(zone):{pattern}} {zone_name(zone)}"


def zone_name(zone: dt.tzinfo) -> str:
    """The name a page shows for `zone`: the IANA name (Europe/Paris) where there is one."""
    return zone.key if isinstance(zone, zoneinfo.ZoneInfo) else str(zone)
