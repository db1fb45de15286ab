"""The Redis transport the workers use (config.broker_transport), against the real Redis: a
connection closed after it was lost does not stop the worker, and a healthy close still puts
unacknowledged messages back."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings
from kombu import Connection, Exchange, Queue

from config.celery import app

pytestmark = pytest.mark.redis

TRANSPORT = "config.broker_transport:Transport"


@pytest.fixture
def queue():
    name = f"transport-test-{uuid.uuid4().hex}"
    queue = Queue(name, Exchange(name), name)
    with Connection(settings.REDIS_URL, transport=TRANSPORT) as conn:
        conn.Producer().publish({"n": 1}, exchange=queue.exchange, routing_key=name, declare=[queue])
    yield queue
    with Connection(settings.REDIS_URL, transport=TRANSPORT) as conn:
        queue.bind(conn.default_channel).delete()


def test_the_workers_use_it():
    assert app.conf.broker_transport == TRANSPORT


def test_closing_a_connection_whose_transport_is_detached_does_not_raise(queue):
    conn = Connection(settings.REDIS_URL, transport=TRANSPORT)
    channel = conn.default_channel
    assert channel.basic_get(queue.name, no_ack=False) is not None
    channel.connection.client = None  # what Celery's consumer leaves after collecting a lost connection

    conn.close()  # kombu's own transport raises AttributeError here, and the worker stops

    assert not channel.qos._delivered


def test_a_healthy_close_still_puts_unacknowledged_messages_back(queue):
    conn = Connection(settings.REDIS_URL, transport=TRANSPORT)
    assert conn.default_channel.basic_get(queue.name, no_ack=False) is not None
    conn.close()

    with Connection(settings.REDIS_URL, transport=TRANSPORT) as again:
        message = again.default_channel.basic_get(queue.name, no_ack=True)
    assert message is not None
    assert message.payload == {"n": 1}


def test_acknowledging_on_a_lost_connection_does_not_raise(queue):
    conn = Connection(settings.REDIS_URL, transport=TRANSPORT)
    channel = conn.default_channel
    message = channel.basic_get(queue.name, no_ack=False)
    channel.connection.client = None  # lost, and the worker has reconnected on a new channel

    message.ack()  # kombu's own transport raises AttributeError here, and the worker stops

    assert not channel.qos._delivered
