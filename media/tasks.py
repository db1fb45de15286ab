"""Thin Celery tasks of the `media` and `fetch` lanes; each calls one service and is safe to run twice."""

from __future__ import annotations

import datetime as dt
from typing import Any

from celery import shared_task
from django.conf import settings

from config import lanes
from media import fitting, probing, selectors, services

# The download ends by its deadline; what is left is storing the last bytes and the quota check.
FETCH_SOFT_TIME_LIMIT = settings.MEDIA_FETCH_DEADLINE_SECONDS + 60
FETCH_TIME_LIMIT = FETCH_SOFT_TIME_LIMIT + 60


@shared_task(name="media.fetch_source", soft_time_limit=FETCH_SOFT_TIME_LIMIT, time_limit=FETCH_TIME_LIMIT)
def fetch_source(upload_id: str) -> None:
    services.media_fetch_source(upload_id=upload_id)


@shared_task(name="media.sweep_fetches", soft_time_limit=100, time_limit=120)
def sweep_fetches() -> int:
    return services.media_sweep_fetches()


@shared_task(name="media.delete_unconfirmed", soft_time_limit=840, time_limit=900)
def delete_unconfirmed() -> int:
    return services.media_delete_unconfirmed()


@shared_task(name="media.probe", soft_time_limit=240, time_limit=300)
def probe(upload_id: str) -> None:
    # A team holding its share of the media lane waits its turn off the lane; the upload stays
    # pending, which the probe sweep also finds.
    with lanes.team_share("media", selectors.team_of_upload(upload_id), lease_seconds=300) as held:
        if held:
            probing.media_probe(upload_id=upload_id)
            return
    lanes.later(probe, upload_id)


@shared_task(name="media.sweep_probes", soft_time_limit=100, time_limit=120)
def sweep_probes() -> int:
    return probing.media_sweep_probes()


# The limits of a fit of one rendition; `fitting.fit_hand_over` sets them per message, by the
# number of renditions it asks for.
_FIT_LIMIT = settings.MEDIA_PROBE_TIMEOUT_SECONDS + settings.MEDIA_FIT_TIMEOUT_SECONDS + 60


@shared_task(name="media.fit", soft_time_limit=_FIT_LIMIT, time_limit=_FIT_LIMIT + 30)
def fit(pairs: list[list[str]], then: dict[str, Any], since: str) -> None:
    """Make the renditions a delivery or a thread item waits for, then send it again (`then`),
    within the team's share of the media lane (else later: the delivery waits, pending)."""
    made = [(str(upload_id), str(profile)) for upload_id, profile in pairs]
    team_id = selectors.team_of_upload(made[0][0]) if made else ""
    with lanes.team_share("media", team_id, lease_seconds=_FIT_LIMIT + 30) as held:
        if held:
            fitting.media_fit(pairs=made, then=then, since=dt.datetime.fromisoformat(since))
            return
    lanes.later(fit, pairs, then, since)
