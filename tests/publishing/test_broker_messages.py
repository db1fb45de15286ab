"""Delivery messages as they reach the broker (config.broker): each is the message Celery's
`apply_async` writes, a real Celery worker runs what a create sends, and a broker connection
the server closed is replaced at once.

The broker is the real Redis of REDIS_URL, tasks not eager; messages are read back from the
`dispatch` list and removed at the end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.conf import settings

from config import broker
from config.celery import app as celery_app
from publishing.models import Publish, PublishStatus
from publishing.tasks import deliver
from tests.publishing.safety_support import PUBLISHES, create, database_url, wait_until

pytestmark = [pytest.mark.redis, pytest.mark.postgres]

QUEUE = "dispatch"


@pytest.fixture
def queue() -> Iterator[redis.Redis]:
    """The broker's Redis, tasks sent to it instead of running here; the test's messages
    (task ids starting with "test-broker-") are removed at the end."""
    conf = celery_app.conf
    saved = conf.task_always_eager
    conf.task_always_eager = False
    client = redis.Redis.from_url(conf.broker_write_url or conf.broker_url)
    try:
        yield client
    finally:
        conf.task_always_eager = saved
        for raw in client.lrange(QUEUE, 0, -1):
            if json.loads(raw)["headers"]["id"].startswith("test-broker-"):
                client.lrem(QUEUE, 0, raw)
        client.close()


def _messages(client: redis.Redis, task_id: str) -> list[dict[str, Any]]:
    return [m for m in map(json.loads, client.lrange(QUEUE, 0, -1)) if m["headers"]["id"] == task_id]


def _send(calls: list[broker.Call]) -> None:
    broker.send(celery_app, deliver, calls, timeout=settings.CELERY_BROKER_CONNECTION_TIMEOUT)


def test_a_message_is_the_one_apply_async_writes_but_for_its_delivery_tag(queue):
    celery_id, ours_id = f"test-broker-{uuid.uuid4()}", f"test-broker-{uuid.uuid4()}"
    job_id = str(uuid.uuid4())
    url = celery_app.conf.broker_write_url or celery_app.conf.broker_url
    assert broker._writer(celery_app, deliver, url, 3.0) is not None  # not kombu's path

    deliver.apply_async(args=(job_id,), task_id=celery_id)
    _send([(ours_id, (job_id,))])

    (celery,), (ours,) = _messages(queue, celery_id), _messages(queue, ours_id)
    tags = celery["properties"].pop("delivery_tag"), ours["properties"].pop("delivery_tag")
    assert tags[0] != tags[1]
    for message, task_id in ((celery, celery_id), (ours, ours_id)):
        assert message["headers"].pop("id") == message["headers"].pop("root_id") == task_id
        assert message["properties"].pop("correlation_id") == task_id
    assert ours == celery
    assert ours["properties"]["delivery_info"] == {"exchange": "", "routing_key": QUEUE}
    assert ours["headers"]["timelimit"] == [deliver.time_limit, deliver.soft_time_limit]


def test_many_messages_go_out_in_order_in_one_pipeline(queue):
    ids = [f"test-broker-{n}-{uuid.uuid4()}" for n in range(50)]

    _send([(task_id, (str(n),)) for n, task_id in enumerate(ids)])

    # LPUSH: the worker takes from the right, so the first sent is the first taken.
    taken = [m["headers"]["id"] for m in map(json.loads, reversed(queue.lrange(QUEUE, 0, -1)))]
    assert [t for t in taken if t in set(ids)] == ids


def test_a_connection_the_broker_closed_is_replaced_and_the_messages_sent_once(queue):
    _send([(f"test-broker-{uuid.uuid4()}", ("warm",))])  # the pooled connection exists
    url = celery_app.conf.broker_write_url or celery_app.conf.broker_url
    writer = broker._writer(celery_app, deliver, url, 3.0)
    assert writer is not None
    pooled = writer.client.connection_pool.get_connection()
    host, port = pooled._sock.getsockname()[:2]
    writer.client.connection_pool.release(pooled)
    assert queue.client_kill(f"{host}:{port}")

    task_id = f"test-broker-{uuid.uuid4()}"
    _send([(task_id, ("after the kill",))])

    assert len(_messages(queue, task_id)) == 1


def test_a_broker_nothing_listens_on_raises_at_once(queue):
    saved = celery_app.conf.broker_url, celery_app.conf.broker_write_url
    celery_app.conf.broker_url = celery_app.conf.broker_write_url = "redis://127.0.0.1:1/0"
    try:
        with pytest.raises(redis.ConnectionError):
            _send([(f"test-broker-{uuid.uuid4()}", ("refused",))])
    finally:
        celery_app.conf.broker_url, celery_app.conf.broker_write_url = saved


@pytest.mark.django_db(transaction=True)
def test_a_celery_worker_runs_what_a_create_sends(api, owner, accounts, sandbox, queue):
    queue.delete(QUEUE)  # only this test's messages for the worker below
    answer = create(
        api,
        owner.key,
        {
            "content": "Through a real worker",
            "targets": [{"account_id": str(accounts.x.pk)}, {"account_id": str(accounts.bluesky.pk)}],
        },
    )
    assert answer.status_code == 201, answer.json()
    publish_id = answer.json()["data"]["id"]
    assert len(queue.lrange(QUEUE, 0, -1)) == 2

    worker = _worker(sandbox.url)
    try:
        wait_until(
            lambda: _alive(worker) and Publish.objects.get(pk=publish_id).status == PublishStatus.PUBLISHED,
            what="the worker to publish both targets",
            timeout=60,
        )
    finally:
        worker.terminate()
        worker.communicate(timeout=30)

    assert len(sandbox.posts("x")) == len(sandbox.posts("bluesky")) == 1
    assert queue.llen(QUEUE) == 0
    published = api.as_(owner.key).get(f"{PUBLISHES}/{publish_id}").json()["data"]
    assert {t["status"] for t in published["targets"]} == {"published"}


def _worker(sandbox_url: str) -> subprocess.Popen[bytes]:
    """The Procfile's dispatch worker, one thread, on the test database and broker."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(),
        "REDIS_URL": celery_app.conf.broker_url,
        "SANDBOX_URL": sandbox_url,
    }
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--queues",
        QUEUE,
        "--pool",
        "threads",
        "--concurrency",
        "1",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "--loglevel",
        "WARNING",
    ]
    return subprocess.Popen(  # noqa: S603 - our own interpreter running Celery on our app
        command, cwd=settings.BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )


def _alive(worker: subprocess.Popen[bytes]) -> bool:
    assert worker.poll() is None, worker.communicate()[0].decode()[-3000:]
    return True
