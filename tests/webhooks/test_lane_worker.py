"""The Procfile's `webhooks` worker, run for real (threads pool, the Redis broker, the test
database): one team floods its webhook with test events to a receiver that accepts each
connection and never answers, and another team's `post.published` is still delivered at once,
while the flood waits its turn: bounded by the team's share of the lane, not by the flood."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis
from django.conf import settings

from bench.common import procfile_command
from config.celery import app as celery_app
from tests.publishing.safety_support import database_url, wait_until
from tests.webhooks.helpers import emit, subscribe
from tests.webhooks.receiver import Answer, Receiver
from webhooks import services
from webhooks.models import Delivery

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

THREADS, SHARE, FLOOD = 4, 2, 24
QUEUE = "webhooks"


@pytest.fixture
def broker() -> Iterator[None]:
    """Tasks go to the real broker (the test's Redis), for the worker below; its queue starts
    and ends empty."""
    conf = celery_app.conf
    saved = conf.task_always_eager
    conf.task_always_eager = False
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.delete(QUEUE)
    try:
        yield
    finally:
        conf.task_always_eager = saved
        client.delete(QUEUE)
        client.close()


@contextmanager
def webhooks_worker() -> Iterator[subprocess.Popen[str]]:
    argv = procfile_command("webhooks", WEBHOOK_THREADS=str(THREADS))
    worker = subprocess.Popen(  # noqa: S603 - the Procfile's own command
        [str(settings.BASE_DIR / argv[0]), *argv[1:]],
        cwd=settings.BASE_DIR,
        env={
            **os.environ,
            "DATABASE_URL": database_url(),
            "REDIS_URL": settings.REDIS_URL,
            "SSRF_ALLOW_PRIVATE": "1",
            "WEBHOOK_TEAM_CONCURRENCY": str(SHARE),
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


@pytest.fixture
def receivers(settings) -> Iterator[tuple[Receiver, Receiver]]:
    settings.SSRF_ALLOW_PRIVATE = True
    hanging, prompt = Receiver().start(), Receiver().start()
    hanging.always(Answer(delay=120))  # past the 10 s attempt timeout: the sender gives up first
    yield hanging, prompt
    hanging.stop()
    prompt.stop()


def test_a_flood_to_a_receiver_that_never_answers_does_not_hold_back_another_team(owner, outsider, receivers, broker):
    hanging, prompt = receivers
    flooded = subscribe(owner.team, hanging.url)
    subscribe(outsider.team, prompt.url)

    with webhooks_worker() as worker:
        for _ in range(FLOOD):  # each queued as its transaction commits, ahead of the other team's
            services.subscription_send_test(subscription=flooded)
        published = emit(outsider.team)

        def delivered() -> bool:
            assert worker.poll() is None, worker.communicate()
            return Delivery.objects.filter(event=published, state="succeeded").exists()

        wait_until(delivered, what="the other team's post.published to be delivered", timeout=60)
        flood = Delivery.objects.filter(subscription=flooded)
        claimed = flood.exclude(attempts=0).count()
        waiting = flood.filter(state="pending", attempts=0).count()

    assert len(prompt.posts) == 1
    # Meanwhile at most the team's share of the flood was attempted; the rest waits, pending and
    # uncounted, none lost.
    assert claimed <= SHARE
    assert waiting >= FLOOD - SHARE
    assert flood.count() == FLOOD
    assert not flood.filter(state__in=["failed", "cancelled"]).exists()
