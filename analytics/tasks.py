"""Thin Celery tasks of analytics, on the `analytics` queue; each is safe to run twice."""

from __future__ import annotations

from celery import shared_task

from analytics import services


# The hard limit stays under services.LEASE, so rows a killed run leased wait for the next run.
@shared_task(name="analytics.sync", soft_time_limit=540, time_limit=600)
def sync() -> int:
    return services.metrics_sync()
