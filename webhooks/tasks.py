"""Thin Celery tasks on the `webhooks` queue; each calls one service and is safe to run twice."""

from __future__ import annotations

from celery import shared_task

from webhooks import services


@shared_task(name="webhooks.deliver", soft_time_limit=30, time_limit=40, acks_late=True, reject_on_worker_lost=True)
def deliver(delivery_id: str) -> None:
    services.delivery_attempt(delivery_id=delivery_id)


@shared_task(name="webhooks.sweep", soft_time_limit=50, time_limit=60)
def sweep() -> int:
    return len(services.deliveries_sweep())
