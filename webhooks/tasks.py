"""Thin Celery tasks on the `webhooks` queue; each calls one service and is safe to run twice.

`deliver` is acknowledged when the worker receives it, so the worker fetches the next message
while it sends this one. Nothing depends on the broker keeping it: the database holds what is
still to send, and the sweep re-queues a delivery whose message or worker was lost (a pending
delivery that is due, or a claim older than STALE_CLAIM).

A delivery runs only while its team holds one of its slots in the lane (LANE_TEAM_SHARES,
`config.lanes`): one team's flood of deliveries to a receiver that never answers fills at most
its own share of the worker's threads, and another team's deliveries still find one free. Over
its share, the delivery is handed back before anything is claimed: no attempt is counted.
"""

from __future__ import annotations

from celery import shared_task

from config import lanes
from webhooks import services

DELIVER_TIME_LIMIT = 40  # seconds; a slot of the lane is leased for as long (a killed worker's frees then)


@shared_task(name="webhooks.deliver", soft_time_limit=30, time_limit=DELIVER_TIME_LIMIT)
def deliver(delivery_id: str, team_id: str | None = None) -> None:
    if team_id is None:  # a message queued before messages named their team
        team_id = services.delivery_team(delivery_id=delivery_id)
    with lanes.team_share("webhooks", team_id, lease_seconds=DELIVER_TIME_LIMIT) as held:
        if held:
            services.delivery_attempt(delivery_id=delivery_id)
            return
    services.delivery_hand_back(delivery_id=delivery_id)
    lanes.later(deliver, delivery_id, team_id)


@shared_task(name="webhooks.sweep", soft_time_limit=50, time_limit=60)
def sweep() -> int:
    return len(services.deliveries_sweep())


@shared_task(name="webhooks.purge_deliveries", soft_time_limit=50, time_limit=60)
def purge_deliveries() -> int:
    return services.deliveries_purge()
