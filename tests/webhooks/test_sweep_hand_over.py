"""The sweep hands what is due to the broker in one round trip (`config.jobs.hand_over`), in the
messages the webhooks worker has always read (`deliver(delivery_id, team_id)`); with the broker
down it logs, the deliveries stay due, and the next sweep sends each once."""

from __future__ import annotations

import base64
import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from config.celery import app as celery_app
from tests.publishing.safety_support import broker_down
from tests.redis_relay import Relay, broker_relayed
from tests.webhooks.helpers import delivery_of, due_deliveries, emit, subscribe
from webhooks import services
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db

QUEUE = "webhooks"


@pytest.fixture
def relayed() -> Iterator[tuple[Relay, redis.Redis]]:
    """Tasks go to the real broker (REDIS_URL) through a counting relay instead of running
    here; the messages a test sent are removed at the end."""
    conf = celery_app.conf
    saved = conf.task_always_eager
    conf.task_always_eager = False
    client = redis.Redis.from_url(conf.broker_write_url or conf.broker_url)
    before = set(client.lrange(QUEUE, 0, -1))
    try:
        with broker_relayed(celery_app) as relay:
            yield relay, client
    finally:
        conf.task_always_eager = saved
        for raw in set(client.lrange(QUEUE, 0, -1)) - before:
            client.lrem(QUEUE, 0, raw)
        client.close()


def _args(raw: bytes) -> list[Any]:
    return json.loads(base64.b64decode(json.loads(raw)["body"]))[0]


@pytest.mark.redis
def test_a_sweep_of_many_due_deliveries_is_one_round_trip(owner, relayed):
    relay, client = relayed
    deliveries = due_deliveries(owner.team, 300)
    services.deliveries_sweep(limit=1)  # the pooled connection exists
    connections, relay.hold = relay.connections, True

    started = time.monotonic()
    sent = services.deliveries_sweep()
    took = time.monotonic() - started

    assert sorted(sent) == sorted(str(d.pk) for d in deliveries)
    # One wait on the broker's answer (a message at a time would wait 300 times: a minute).
    assert took < 5 * Relay.HOLD
    assert relay.connections == connections
    queued = [_args(raw) for raw in client.lrange(QUEUE, 0, -1)]
    ours = [args for args in queued if args[0] in set(sent)]
    assert len(ours) == 300 + 1  # and the first sweep's one
    assert {tuple(args) for args in ours} == {(str(d.pk), str(owner.team.pk)) for d in deliveries}


def test_with_the_broker_down_the_sweep_logs_and_the_next_one_sends_each_delivery_once(owner, receiver, caplog):
    subscribe(owner.team, receiver.url)
    delivery = delivery_of(emit(owner.team))  # its message was never sent

    with broker_down(), caplog.at_level(logging.WARNING, logger="webhooks.services"):
        services.deliveries_sweep()

    assert "Could not enqueue 1 webhook deliveries; the sweep will" in caplog.text
    assert receiver.posts == []
    assert Delivery.objects.get(pk=delivery.pk).state == "pending"

    assert services.deliveries_sweep() == [str(delivery.pk)]  # eager: sent here
    assert len(receiver.posts) == 1
    assert Delivery.objects.get(pk=delivery.pk).state == "succeeded"
