"""Thin Celery tasks on the `media` queue (fetches on the `fetch` lane, config.lanes); each
calls one service and is safe to run twice."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from media import probing, services

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
    probing.media_probe(upload_id=upload_id)


@shared_task(name="media.sweep_probes", soft_time_limit=100, time_limit=120)
def sweep_probes() -> int:
    return probing.media_sweep_probes()
