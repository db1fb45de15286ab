"""Thin Celery tasks of analytics, on the `analytics` queue; each is safe to run twice."""

from __future__ import annotations

from celery import shared_task

from analytics import services


# The hard limit stays under services.LEASE, so rows a killed run leased wait for the next run.
@shared_task(name="analytics.sync", soft_time_limit=50, time_limit=60)
def sync() -> int:
    return len(services.metrics_sync_fan_out())


@shared_task(name="analytics.sync_team", soft_time_limit=540, time_limit=600)
def sync_team(team_id: str) -> int:
    return services.metrics_sync_team(team_id=team_id)


@shared_task(name="analytics.purge_samples", soft_time_limit=50, time_limit=60)
def purge_samples() -> int:
    return services.samples_purge()
