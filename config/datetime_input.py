"""The dashboard's date and time inputs, read as UTC.

A `datetime-local` input sends a wall-clock time without a zone, which the pages say is UTC; a
script may send an offset too. Either way the time is turned into UTC here, and anything a
browser could never send but a hand-made request can (`9999-12-31T23:00-05:00` is past the last
datetime Python holds once in UTC) is a plain refusal with the field, never an OverflowError.
The year 9999 is refused as a whole: the calendar cannot show a day of it (it always draws the
month after), and a time that close to the end leaves no room for the arithmetic done on it.
"""

from __future__ import annotations

import datetime as dt

from django.core.exceptions import ValidationError

LAST_YEAR = dt.MAXYEAR - 1
TOO_LATE = f"Pick a date before the year {dt.MAXYEAR}."
OUT_OF_RANGE = "That date is out of range."


def utc_moment(text: str, *, malformed: str) -> dt.datetime:
    """`text` (ISO 8601, with or without an offset; without one it is UTC) as an aware UTC
    datetime. ValidationError with `malformed` when it is no time at all, or with a plain
    out-of-range message."""
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValidationError(malformed, code="invalid") from None
    if moment.year > LAST_YEAR:
        raise ValidationError(TOO_LATE, code="out_of_range")
    try:
        moment = moment.replace(tzinfo=dt.UTC) if moment.tzinfo is None else moment.astimezone(dt.UTC)
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
