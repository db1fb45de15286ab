"""The Procfile's `dispatch` worker, run for real: a Celery worker on the threads pool, reading
the broker, sending to the sandbox over HTTP and writing the test database. It delivers, and its
time-limit watchdog keeps the promise the reconciler relies on: past the hard limit no thread
of it is still inside a call to a platform, because the process is gone."""

from __future__ import annotations

import datetime as dt
import os
import secrets
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import psutil
import pytest
import requests
from django.conf import settings
from django.db import connection

from bench.common import procfile_command, replace_option
from config.celery import app as celery_app
from config.task_limits import HARD_LIMIT_EXIT
from publishing.models import DeliveryAttempt, DeliveryJob, Publish, Target
from publishing.readback import reconcile
from publishing.tasks import deliver
from tests.publishing.safety_support import database_url, queued_publish, wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def _procfile_dispatch(queue: str, threads: int = 2, connections: int = 8) -> list[str]:
    """The Procfile's dispatch line with `threads` threads (two by default) sharing at most
    `connections` PostgreSQL connections, reading `queue` (a queue of this test's own)."""
    argv = procfile_command("dispatch", DISPATCH_THREADS=str(threads), DISPATCH_DB_CONNECTIONS=str(connections))
    argv = replace_option(replace_option(argv, "--queues", queue), "--hostname", f"{queue}@%h")
    return [str(settings.BASE_DIR / argv[0]), *argv[1:]]


@contextmanager
def dispatch_worker(
    queue: str, sandbox_url: str, *, threads: int = 2, connections: int = 8, **env: str
) -> Iterator[subprocess.Popen[str]]:
    worker = subprocess.Popen(  # noqa: S603 - the Procfile's own command
        _procfile_dispatch(queue, threads, connections),
        cwd=settings.BASE_DIR,
        env={
            **os.environ,
            "DATABASE_URL": database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "SANDBOX_URL": sandbox_url,
            "PLATFORM_TIMEOUT_SECONDS": "120",
            **env,
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield worker
    finally:
        if worker.poll() is None:
            worker.send_signal(signal.SIGKILL)
        worker.communicate(timeout=30)


def _queued(owner, account, content: str) -> DeliveryJob:
    return DeliveryJob.objects.get(target__publish=queued_publish(owner, account, content=content))


def _send(job: DeliveryJob, queue: str, **limits: float) -> None:
    """Hand the job to the real broker, on the test's own queue (with other time limits than
    the task's: the message's limits are the ones a worker applies)."""
    conf = celery_app.conf
    saved = conf.task_always_eager
    conf.task_always_eager = False
    try:
        deliver.apply_async(args=(str(job.pk),), task_id=job.dispatch_id, queue=queue, retry=False, **limits)
    finally:
        conf.task_always_eager = saved


def test_the_dispatch_worker_delivers_each_job_once(owner, accounts, sandbox):
    queue = f"dispatch-test-{secrets.token_hex(4)}"
    jobs = [_queued(owner, accounts.x, f"Threads worker {n}") for n in range(6)]
    with dispatch_worker(queue, sandbox.url) as worker:
        for job in jobs:
            _send(job, queue)
        _send(jobs[0], queue)  # a duplicate message: the claim makes it a no-op

        def all_published() -> bool:
            assert worker.poll() is None, worker.communicate()
            return Target.objects.filter(publish__content__startswith="Threads worker", state="published").count() == 6

        wait_until(all_published, what="the dispatch worker to publish every target")
    texts = sorted(post["text"] for post in sandbox.posts("x"))
    assert texts == [f"Threads worker {n}" for n in range(6)]
    assert DeliveryAttempt.objects.filter(target__publish__content__startswith="Threads worker").count() == 6


def test_a_delivery_past_its_hard_limit_ends_the_worker_and_is_settled_as_a_lost_one(owner, accounts, sandbox):
    queue = f"dispatch-test-{secrets.token_hex(4)}"
    job = _queued(owner, accounts.x, "Held past the hard limit")
    sandbox.outcomes("x", "timeout")  # the post is created, then the answer is held for 6 s
    with dispatch_worker(queue, sandbox.url) as worker:
        _send(job, queue, soft_time_limit=1, time_limit=2)
        ended = worker.wait(timeout=30)
        log, _ = worker.communicate(timeout=30)
    # Blocked in a socket read, the thread could not take the soft limit: the hard one ended it.
    assert ended == HARD_LIMIT_EXIT, log
    assert "Hard time limit exceeded by publishing.deliver" in log
    (post,) = sandbox.posts("x")
    attempt = DeliveryAttempt.objects.get(target__publish__content="Held past the hard limit")
    assert attempt.state == "sending"  # no answer was recorded: the worker is gone, not late

    # The reconciler takes it for a lost worker's (no live worker can still be inside the call)
    # and reads the post back from the platform: published, once.
    reconcile(now=attempt.started_at + dt.timedelta(seconds=settings.DISPATCH_STALE_SECONDS + 1))
    reconcile(now=attempt.started_at + dt.timedelta(hours=1))
    publish = Publish.objects.get(pk=job.target.publish_id)
    target = Target.objects.get(pk=job.target_id)
    assert (publish.status, target.state, target.platform_post_id) == ("published", "published", post["id"])
    assert len(sandbox.posts("x")) == 1


def _database_connections(pid: int) -> int:
    """The process's open TCP connections to the PostgreSQL server."""
    port = connection.settings_dict.get("PORT") or 5432
    return sum(1 for c in psutil.Process(pid).net_connections(kind="tcp") if c.raddr and c.raddr.port == int(port))


def _most_at_once(spans: list[tuple[dt.datetime, dt.datetime]]) -> int:
    """The largest number of the spans (start, end) open at one moment."""
    edges = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    most = now = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


def test_the_dispatch_threads_wait_on_the_platform_holding_no_database_connection(owner, accounts, sandbox):
    """With the platform answering after a second, 24 threads keep the calls in flight
    together while sharing two PostgreSQL connections: a thread gives its connection back
    while it waits."""
    requests.post(f"{sandbox.url}/_sandbox/latency", json={"seconds": 1}, timeout=5).raise_for_status()
    queue = f"dispatch-test-{secrets.token_hex(4)}"
    jobs = [_queued(owner, accounts.x, f"Pooled worker {n}") for n in range(24)]
    most_connections = 0
    with dispatch_worker(queue, sandbox.url, threads=24, connections=2) as worker:
        for job in jobs:
            _send(job, queue)

        def all_published() -> bool:
            nonlocal most_connections
            assert worker.poll() is None, worker.communicate()
            most_connections = max(most_connections, _database_connections(worker.pid))
            published = Target.objects.filter(publish__content__startswith="Pooled worker", state="published")
            return published.count() == 24

        wait_until(all_published, what="the dispatch worker to publish every target", timeout=60)
    assert 1 <= most_connections <= 2
    attempts = DeliveryAttempt.objects.filter(target__publish__content__startswith="Pooled worker")
    spans = [(a.started_at, a.finished_at) for a in attempts]
    assert len(spans) == 24
    # Each call waited a second on the platform: twelve or more of them were waited on at once.
    assert _most_at_once(spans) >= 12
    assert sorted(post["text"] for post in sandbox.posts("x")) == sorted(f"Pooled worker {n}" for n in range(24))
