"""Thin Celery tasks on the `webhooks` queue; each calls one service and is safe to run twice.

`deliver` is acknowledged when the worker receives it, so the worker fetches the next message
while it sends this one. Nothing depends on the broker keeping it: the database holds what is
still to send, and the sweep re-queues a delivery whose message or worker was lost (a pending
delivery that is due, or a claim older than STALE_CLAIM).
"""

from __future__ import annotations

from celery import shared_task

from webhooks import services


@shared_task(name="webhooks.deliver", soft_time_limit=30, time_limit=40)
def deliver(delivery_id: str) -> None:
    services.delivery_attempt(delivery_id=delivery_id)


@shared_task(name="webhooks.sweep", soft_time_limit=50, time_limit=60)
def sweep() -> int:
    return len(services.deliveries_sweep())


@shared_task(name="webhooks.purge_deliveries", soft_time_limit=50, time_limit=60)
def purge_deliveries() -> int:
    return services.deliveries_purge()
