"""A team's time zone: an IANA name (`Europe/Paris`) the dashboard shows and reads times in.

The database and the API keep UTC. Dashboard pages activate the team's zone once they know the
team (`teams.dashboard.team_membership`), so templates render datetimes in it and
`config.datetime_input` reads a `datetime-local` value as the team's wall-clock time;
`config.middleware.TimeZoneMiddleware` puts UTC back around every request, so an API answer
never sees a zone a dashboard page left behind.
"""

from __future__ import annotations

import functools
import zoneinfo

from django.core.exceptions import ValidationError

DEFAULT = "UTC"


@functools.cache
def names() -> list[str]:
    """Every zone name the system's tz database knows, sorted (for the settings page's list)."""
    return sorted(zoneinfo.available_timezones())


def zone_of(name: str) -> zoneinfo.ZoneInfo:
    """The zone `name`; UTC for a name the tz database no longer has (a row written before an
    update of it), so a page still renders."""
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo(DEFAULT)


def validate_time_zone(name: str) -> None:
    if name not in names():
        raise ValidationError(
            "“%(name)s” is not a time zone name. Pick one from the list, such as Europe/Paris or America/New_York.",
            code="invalid_time_zone",
            params={"name": name},
        )
