"""The message broker: whether it answers, and task messages sent to it in one round trip.

Sending a message through `apply_async` costs about 250 µs of CPU on the calling thread
(Celery's options and routing, kombu's producer, a Redis client made per batch), and a create
sends one per target while it holds a web thread. `send` writes a message's headers,
properties and body with Celery's own `create_task_message`, wraps them in the envelope
kombu's Redis transport pushes (body base64-encoded, delivery info and tag in the
properties), serializes both with kombu's JSON, and pushes every message in one
non-transactional pipeline on a per-process connection pool: about a fifth of the cost.
`tests/publishing/test_broker_messages.py` checks that a message written here is the message
`apply_async` writes (but for its delivery tag) and that a worker runs it.

Other brokers (the filesystem transport of development without Redis) and settings this
writer does not reproduce (another serializer, sent events, a key prefix, priority steps,
exchanges, expiring queues) go through `apply_async` over a pooled kombu producer instead.
"""

from __future__ import annotations

import base64
import os
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import redis
from celery import Celery, Task
from django.conf import settings
from kombu import pools
from kombu.utils.json import dumps
from redis.backoff import NoBackoff
from redis.retry import Retry

from config.redis import get_redis

REDIS_SCHEMES = frozenset({"redis", "rediss"})
# Transport options that change where kombu pushes a message: with either set, kombu writes.
KOMBU_ONLY_OPTIONS = frozenset({"global_keyprefix", "priority_steps"})
Call = tuple[str, tuple[Any, ...]]  # (task id, positional arguments)


@dataclass(frozen=True)
class Writer:
    """How messages of one task go to one Redis broker: the list they are pushed on and what
    Celery puts in their headers from the task's options."""

    client: redis.Redis
    queue: str
    task: str
    time_limit: float | None
    soft_time_limit: float | None
    ignore_result: bool


# Per (broker URL, task name, queue asked for): its Writer, or None when kombu writes. What decides it (the
# routes, serializer and transport options) is read once; the broker URL is read per send.
_writers: dict[tuple[str, str, str | None], Writer | None] = {}
_writers_lock = threading.Lock()


def broker_reachable() -> bool:
    client = get_redis()
    if client is not None:
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
    folder = str(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
    return os.path.isdir(folder) and os.access(folder, os.W_OK)


def send(app: Celery, task: Task[Any, Any], calls: Sequence[Call], *, timeout: float, queue: str | None = None) -> None:
    """Send one message of `task` per (task id, args) call, all in one round trip where the
    broker is Redis, on `queue` (by default the one the task's route names). Raises whatever
    the broker raised; a message may then have been taken or not (the caller must treat the
    whole batch as uncertain)."""
    if not calls:
        return
    url = app.conf.broker_write_url or app.conf.broker_url
    writer = _writer(app, task, url, timeout, queue)
    if writer is None:
        _send_with_kombu(app, task, calls, timeout=timeout, queue=queue)
        return
    parent = app.current_worker_task  # a task sending others: it is their parent, as in Celery
    lineage = (parent.request.root_id or parent.request.id, parent.request.id) if parent is not None else (None, None)
    with writer.client.pipeline(transaction=False) as pipe:
        for task_id, args in calls:
            pipe.lpush(writer.queue, dumps(message(app, writer, task_id, args, lineage)))
        pipe.execute()


def message(
    app: Celery, writer: Writer, task_id: str, args: tuple[Any, ...], lineage: tuple[str | None, str | None]
) -> dict[str, Any]:
    """The message kombu's Redis transport pushes for `task.apply_async(args, task_id=...)`
    when Celery routes it to `writer.queue` by the default exchange; `lineage` is the
    (root id, parent id) of the task sending it, if any."""
    root_id, parent_id = lineage
    headers, properties, body, _ = app.amqp.create_task_message(
        task_id,
        writer.task,
        args,
        {},
        reply_to=app.thread_oid,
        time_limit=writer.time_limit,
        soft_time_limit=writer.soft_time_limit,
        root_id=root_id,
        parent_id=parent_id,
        ignore_result=writer.ignore_result,
        argsrepr=repr(args),
        kwargsrepr="{}",
    )
    return {
        "body": base64.b64encode(dumps(body).encode()).decode(),
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": headers,
        "properties": {
            **properties,
            "delivery_mode": 2,
            "delivery_info": {"exchange": "", "routing_key": writer.queue},
            "priority": 0,
            "body_encoding": "base64",
            "delivery_tag": str(uuid.uuid4()),
        },
    }


def _writer(app: Celery, task: Task[Any, Any], url: str, timeout: float, queue: str | None = None) -> Writer | None:
    key = (url, task.name, queue)
    if key in _writers:
        return _writers[key]
    with _writers_lock:
        if key not in _writers:
            _writers[key] = _new_writer(app, task, url, timeout, queue)
        return _writers[key]


def _new_writer(app: Celery, task: Task[Any, Any], url: str, timeout: float, queue_name: str | None) -> Writer | None:
    """A Writer when the broker is Redis and Celery would push the task's messages as
    `message` writes them; None when kombu must. Its client's pool is per process (redis-py
    makes a new one after a fork). A connection the broker closed meanwhile is retried once,
    at once; nothing else is (the relay sends again what did not go out)."""
    conf = app.conf
    options = conf.broker_transport_options or {}
    if urlsplit(url).scheme not in REDIS_SCHEMES or KOMBU_ONLY_OPTIONS & options.keys():
        return None
    if task.serializer != "json" or conf.task_send_sent_event:
        return None
    if any(getattr(task, option, None) is not None for option in ("queue", "exchange", "routing_key", "priority")):
        return None  # routed by options of its own, which apply_async passes to the router
    route = app.amqp.router.route({"queue": queue_name} if queue_name else {}, task.name, (), {})
    queue = route.get("queue")
    if queue is None or route.keys() - {"queue"} or queue.exchange.type != "direct":
        return None  # Celery would name an exchange or a routing key of its own
    if queue.expires is not None or queue.max_priority is not None:
        return None
    client = redis.Redis.from_url(
        url,
        socket_connect_timeout=float(options.get("socket_connect_timeout", timeout)),
        socket_timeout=float(options.get("socket_timeout", timeout)),
        retry=Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,)),
    )
    return Writer(
        client=client,
        queue=str(queue.name),
        task=task.name,
        time_limit=task.time_limit,
        soft_time_limit=task.soft_time_limit,
        ignore_result=bool(task.ignore_result),
    )


def _send_with_kombu(
    app: Celery, task: Task[Any, Any], calls: Sequence[Call], *, timeout: float, queue: str | None = None
) -> None:
    """`apply_async` over Celery's pooled producer for the broker configured now, batched where
    the transport batches."""
    with pools.producers[app.connection_for_write()].acquire(block=True, timeout=timeout) as producer:
        producer.connection.ensure_connection(max_retries=1, timeout=timeout)
        with producer.batch(max_size=len(calls)):
            for task_id, args in calls:
                if queue is None:
                    task.apply_async(args=args, task_id=task_id, producer=producer, retry=False)
                else:
                    task.apply_async(args=args, task_id=task_id, producer=producer, retry=False, queue=queue)
