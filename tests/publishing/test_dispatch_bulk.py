"""Handing jobs over in bulk (DESIGN §4.3, §4.6): many jobs go to the broker in one round trip
over a pooled connection and are marked enqueued by one UPDATE; the relay and the scheduler
tick work in batches with SKIP LOCKED; a refusal still leaves every job for the relay.

The broker is the real Redis of REDIS_URL with tasks not eager (the messages are read back from
the `dispatch` list and removed at the end); concurrency is real threads on PostgreSQL."""

from __future__ import annotations

import base64
import datetime as dt
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
import redis
from celery.fixups.django import DjangoWorkerFixup
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config.celery import app as celery_app
from config.celery import recycle_database
from publishing import handover, release, tasks
from publishing.models import (
    ApprovalStatus,
    DeliveryAttempt,
    DeliveryJob,
    JobState,
    Publish,
    PublishStatus,
    ScheduledRelease,
    Target,
    TargetState,
)
from tests.publishing.safety_support import broker_down, immediate_publish
from tests.redis_relay import Relay, broker_relayed

pytestmark = [pytest.mark.django_db, pytest.mark.redis]

QUEUE = "dispatch"


class Broker:
    """The `dispatch` list in Redis, as far as this test's messages go."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.ours: set[str] = set()

    def expect(self, jobs: list[DeliveryJob]) -> None:
        self.ours |= {job.dispatch_id for job in jobs}

    def task_ids(self) -> list[str]:
        """Task ids of this test's messages in the queue, one per message."""
        found = []
        for raw in self.client.lrange(QUEUE, 0, -1):
            task_id = json.loads(raw)["headers"]["id"]
            if task_id in self.ours:
                found.append(task_id)
        return found

    def remove_ours(self) -> None:
        with self.client.pipeline(transaction=False) as pipe:
            for raw in self.client.lrange(QUEUE, 0, -1):
                if json.loads(raw)["headers"]["id"] in self.ours:
                    pipe.lrem(QUEUE, 0, raw)
            pipe.execute()


@pytest.fixture
def broker() -> Iterator[Broker]:
    """Tasks are sent to the real broker instead of running here."""
    conf = celery_app.conf
    saved = conf.task_always_eager
    conf.task_always_eager = False
    client = redis.Redis.from_url(conf.broker_write_url or conf.broker_url)
    queue = Broker(client)
    try:
        yield queue
    finally:
        conf.task_always_eager = saved
        queue.remove_ours()
        client.close()


@pytest.fixture
def relayed(broker: Broker) -> Iterator[Relay]:
    """The broker reached through a counting relay (its own connection pool: kept per broker URL)."""
    with broker_relayed(celery_app) as relay:
        yield relay


def _publishes(
    owner: Any, accounts: list[Any], count: int, *, state: str, due: dt.datetime | None = None
) -> list[Publish]:
    """`count` publishes of one target each (accounts in turn), written in bulk: queued ones with
    a pending job each, scheduled ones with a release row due at `due`."""
    now = timezone.now()
    scheduled = state == TargetState.SCHEDULED
    publishes = Publish.objects.bulk_create(
        Publish(
            team=owner.team,
            content=f"Bulk {n}",
            confirmed=True,
            publish_mode="scheduled" if scheduled else "immediate",
            status=PublishStatus.SCHEDULED if scheduled else PublishStatus.PUBLISHING,
            scheduled_at=due,
        )
        for n in range(count)
    )
    targets = Target.objects.bulk_create(
        Target(
            publish=p,
            account=accounts[n % len(accounts)],
            platform=accounts[n % len(accounts)].platform,
            state=state,
            attempt_count=0 if scheduled else 1,
        )
        for n, p in enumerate(publishes)
    )
    if scheduled:
        ScheduledRelease.objects.bulk_create(ScheduledRelease(publish=p, due_at=due) for p in publishes)
    else:
        DeliveryJob.objects.bulk_create(
            DeliveryJob(target=t, number=1, dispatch_id=f"deliver:{t.pk}:1", not_before=now) for t in targets
        )
    return publishes


def _jobs(publishes: list[Publish]) -> list[DeliveryJob]:
    return list(DeliveryJob.objects.filter(target__publish__in=publishes))


def _statements(queries: CaptureQueriesContext) -> Counter[str]:
    return Counter(q["sql"].split(None, 1)[0].upper() for q in queries.captured_queries)


# --- send_jobs ----------------------------------------------------------------------------------


def test_many_jobs_are_handed_over_in_one_round_trip_and_marked_in_one_update(broker, relayed, owner, accounts):
    jobs = _jobs(_publishes(owner, [accounts.x, accounts.bluesky], 40, state=TargetState.QUEUED))
    broker.expect(jobs)
    handover.send_jobs(jobs[:1])  # the pooled connection exists and its queue is declared
    connections, relayed.hold = relayed.connections, True

    with CaptureQueriesContext(connection) as queries:
        started = time.monotonic()
        handover.send_jobs(jobs[1:])
        took = time.monotonic() - started

    # Instances are used as they are: no SELECT, one UPDATE for all of them.
    assert _statements(queries) == Counter({"UPDATE": 1})
    # 39 messages on the connection already open, waiting for the broker's answer about once
    # (a message at a time would wait 39 times: 7.8 s).
    assert relayed.connections == connections
    assert took < 5 * Relay.HOLD
    assert Counter(broker.task_ids()) == Counter({job.dispatch_id: 1 for job in jobs})
    assert not DeliveryJob.objects.filter(pk__in=[j.pk for j in jobs], enqueued_at=None).exists()


def test_the_broker_connection_is_pooled_across_hand_overs(broker, relayed, owner, accounts):
    jobs = _jobs(_publishes(owner, [accounts.x], 4, state=TargetState.QUEUED))
    broker.expect(jobs)
    handover.send_jobs(jobs[:1])
    connections = relayed.connections

    for job in jobs[1:]:
        handover.send_jobs([job])

    assert relayed.connections == connections
    assert sorted(broker.task_ids()) == sorted(job.dispatch_id for job in jobs)


def test_ids_are_looked_up_in_one_select(broker, owner, accounts):
    jobs = _jobs(_publishes(owner, [accounts.x], 5, state=TargetState.QUEUED))
    broker.expect(jobs)

    with CaptureQueriesContext(connection) as queries:
        handover.send_jobs([job.pk for job in jobs[:3]] + [str(job.pk) for job in jobs[3:]])

    assert _statements(queries) == Counter({"SELECT": 1, "UPDATE": 1})
    assert sorted(broker.task_ids()) == sorted(job.dispatch_id for job in jobs)


def test_only_jobs_still_pending_with_the_same_runs_are_marked_enqueued(broker, owner, accounts):
    jobs = _jobs(_publishes(owner, [accounts.x], 3, state=TargetState.QUEUED))
    broker.expect(jobs)
    claimed, put_back, untouched = jobs
    # Meanwhile a worker claimed one, and ran another and put it back to wait out a pause.
    DeliveryJob.objects.filter(pk=claimed.pk).update(state=JobState.RUNNING, runs=1)
    DeliveryJob.objects.filter(pk=put_back.pk).update(runs=1)

    handover.send_jobs(jobs)

    enqueued = set(DeliveryJob.objects.exclude(enqueued_at=None).values_list("pk", flat=True))
    assert enqueued == {untouched.pk}


def test_a_refused_hand_over_marks_the_jobs_refused_and_raises(owner, accounts):
    jobs = _jobs(_publishes(owner, [accounts.x, accounts.bluesky], 4, state=TargetState.QUEUED))

    with broker_down(), pytest.raises(handover.DispatchUncertain):
        handover.send_jobs(jobs)

    rows = DeliveryJob.objects.filter(pk__in=[j.pk for j in jobs])
    assert rows.filter(state=JobState.PENDING, enqueued_at=None).exclude(refused_at=None).count() == 4


def _job_writes(queries: CaptureQueriesContext) -> list[str]:
    table = DeliveryJob._meta.db_table
    return [q["sql"] for q in queries.captured_queries if q["sql"].startswith("UPDATE") and table in q["sql"]]


def test_a_create_hands_its_jobs_over_written_marked_with_no_second_write(broker, owner, accounts):
    with CaptureQueriesContext(connection) as queries:
        publish = immediate_publish(owner, accounts.x, accounts.bluesky, content="Marked when written")

    jobs = list(DeliveryJob.objects.filter(target__publish=publish))
    broker.expect(jobs)
    assert Counter(broker.task_ids()) == Counter({job.dispatch_id: 1 for job in jobs})
    assert None not in [job.enqueued_at for job in jobs]  # committed with the create
    assert _job_writes(queries) == []
    # Marked: the relay leaves them alone until the mark is old, as after any hand-over.
    assert release.relay() == 0


def test_a_refused_create_hand_over_takes_the_mark_off_so_the_relay_sends_the_jobs(broker, owner, accounts):
    with broker_down(), pytest.raises(handover.PublishDispatchUncertain) as refused:
        immediate_publish(owner, accounts.x, accounts.bluesky, content="Refused, then relayed")

    rows = DeliveryJob.objects.filter(target__publish=refused.value.publish)
    broker.expect(list(rows))
    assert rows.filter(state=JobState.PENDING, enqueued_at=None).exclude(refused_at=None).count() == 2
    assert broker.task_ids() == []
    assert release.relay() == 2  # at its next run, not RELAY_AFTER later
    assert Counter(broker.task_ids()) == Counter({job.dispatch_id: 1 for job in rows})


def test_a_create_whose_message_was_lost_is_relayed_once_its_mark_is_old(broker, owner, accounts):
    """A process that died between the create's commit and its hand-over leaves the same rows:
    jobs marked when written, with no message anywhere."""
    publish = immediate_publish(owner, accounts.x, content="Committed, message lost")
    jobs = list(DeliveryJob.objects.filter(target__publish=publish))
    broker.expect(jobs)
    broker.remove_ours()  # the broker lost it (a Redis restarted without persistence)

    assert release.relay() == 0
    assert release.relay(now=timezone.now() + release.RELAY_AFTER + dt.timedelta(seconds=1)) == 1
    assert broker.task_ids() == [jobs[0].dispatch_id]


def test_sending_a_publishs_jobs_again_hands_over_what_never_reached_the_broker(broker, owner, accounts):
    (publish,) = _publishes(owner, [accounts.x], 1, state=TargetState.QUEUED)
    jobs = _jobs([publish])
    broker.expect(jobs)

    handover.publish_send_jobs(team=owner.team, publish_id=publish.pk)

    assert broker.task_ids() == [jobs[0].dispatch_id]
    assert DeliveryJob.objects.get(pk=jobs[0].pk).enqueued_at is not None
    handover.publish_send_jobs(team=owner.team, publish_id=publish.pk)  # taken: nothing to send
    assert broker.task_ids() == [jobs[0].dispatch_id]
    DeliveryJob.objects.filter(pk=jobs[0].pk).update(enqueued_at=None)
    with broker_down(), pytest.raises(handover.PublishDispatchUncertain):
        handover.publish_send_jobs(team=owner.team, publish_id=publish.pk)
    assert DeliveryJob.objects.filter(pk=jobs[0].pk, enqueued_at=None).exclude(refused_at=None).exists()


# --- relay --------------------------------------------------------------------------------------


def test_the_relay_hands_over_every_batch_in_one_run(broker, owner, accounts):
    count = release.RELAY_BATCH * 2 + 300
    jobs = _jobs(_publishes(owner, [accounts.x, accounts.bluesky], count, state=TargetState.QUEUED))
    broker.expect(jobs)

    with CaptureQueriesContext(connection) as queries:
        assert release.relay() == count

    assert len(queries.captured_queries) <= 6 * 3  # a handful of statements a batch, not a job
    assert Counter(broker.task_ids()) == Counter({job.dispatch_id: 1 for job in jobs})
    assert not DeliveryJob.objects.filter(enqueued_at=None).exists()
    assert release.relay() == 0
    assert release.relay(now=timezone.now() + dt.timedelta(hours=1)) == count  # taken long ago, never claimed


def test_a_relay_during_an_outage_leaves_the_jobs_for_the_next_one(broker, owner, accounts):
    jobs = _jobs(_publishes(owner, [accounts.x], 3, state=TargetState.QUEUED))
    broker.expect(jobs)

    with broker_down():
        assert release.relay() == 0
    assert DeliveryJob.objects.filter(enqueued_at=None).count() == 3

    assert release.relay() == 3
    assert sorted(broker.task_ids()) == sorted(job.dispatch_id for job in jobs)


# --- scheduled release --------------------------------------------------------------------------


def test_one_tick_releases_many_due_publishes_in_batches(broker, owner, accounts):
    due = timezone.now() - dt.timedelta(seconds=1)
    count = release.RELEASE_BATCH * 2 + 100
    publishes = _publishes(owner, [accounts.x, accounts.bluesky], count, state=TargetState.SCHEDULED, due=due)
    later = _publishes(owner, [accounts.x], 2, state=TargetState.SCHEDULED, due=due + dt.timedelta(hours=1))
    gated = _publishes(owner, [accounts.x], 2, state=TargetState.SCHEDULED, due=due)
    Publish.objects.filter(pk=gated[0].pk).update(approval_status=ApprovalStatus.PENDING)
    Publish.objects.filter(pk=gated[1].pk).update(approval_status=ApprovalStatus.REJECTED)

    with CaptureQueriesContext(connection) as queries:
        assert release.release_due(now=timezone.now()) == count

    assert len(queries.captured_queries) <= 12 * 3  # a fixed number of statements a batch
    jobs = _jobs(publishes)
    broker.expect(jobs)
    assert Counter(broker.task_ids()) == Counter({job.dispatch_id: 1 for job in jobs})
    assert len(jobs) == count
    assert {(j.number, j.dispatch_id == f"deliver:{j.target_id}:1") for j in jobs} == {(1, True)}
    assert not DeliveryJob.objects.filter(pk__in=[j.pk for j in jobs], enqueued_at=None).exists()
    released = Publish.objects.filter(pk__in=[p.pk for p in publishes])
    assert set(released.values_list("status", flat=True)) == {PublishStatus.PUBLISHING}
    assert not released.filter(released_at=None).exists()
    targets = Target.objects.filter(publish__in=publishes)
    assert set(targets.values_list("state", "attempt_count")) == {(TargetState.QUEUED, 1)}
    assert not ScheduledRelease.objects.filter(publish__in=publishes).exists()
    waiting = later + gated
    assert ScheduledRelease.objects.filter(publish__in=waiting).count() == 4
    assert not DeliveryJob.objects.filter(target__publish__in=waiting).exists()
    assert release.release_due(now=timezone.now()) == 0


def _armed_runs(client: redis.Redis) -> list[tuple[dt.datetime, dt.datetime, dict[str, Any]]]:
    """(eta, expires, kwargs) of the release runs waiting in the `control` queue, removed from it."""
    runs = []
    for raw in client.lrange("control", 0, -1):
        message = json.loads(raw)
        if message["headers"]["task"] != "publishing.release_due":
            continue
        client.lrem("control", 0, raw)
        headers = message["headers"]
        _, kwargs, _ = json.loads(base64.b64decode(message["body"]))
        runs.append((dt.datetime.fromisoformat(headers["eta"]), dt.datetime.fromisoformat(headers["expires"]), kwargs))
    return sorted(runs, key=lambda run: run[0])


def test_a_tick_arms_a_run_for_each_second_something_falls_due_before_the_next_tick(broker, owner, accounts):
    second = timezone.now().replace(microsecond=0) + dt.timedelta(seconds=2)
    at = [second + dt.timedelta(milliseconds=ms) for ms in (100, 600, 1300)]
    for due in at:
        _publishes(owner, [accounts.x], 2, state=TargetState.SCHEDULED, due=due)
    after_the_tick = _publishes(owner, [accounts.x], 1, state=TargetState.SCHEDULED, due=second + dt.timedelta(hours=1))
    due_now = _publishes(owner, [accounts.x], 1, state=TargetState.SCHEDULED, due=timezone.now())
    broker.expect(_jobs(due_now))
    _armed_runs(broker.client)

    assert tasks.release_due() == 1  # beat's run: what is due now, then the arming

    runs = _armed_runs(broker.client)
    # The latest due time of each second, a little after it: every publish of that second is due then.
    assert [eta for eta, _, _ in runs] == [at[1] + tasks.ARMED_MARGIN, at[2] + tasks.ARMED_MARGIN]
    assert {json.dumps(kwargs) for _, _, kwargs in runs} == {json.dumps({"arm": False})}  # they arm nothing more
    assert all(expires - eta == dt.timedelta(seconds=5) - tasks.ARMED_MARGIN for eta, expires, _ in runs)
    assert ScheduledRelease.objects.filter(publish__in=after_the_tick).exists()

    # A run armed for a moment releases what is due by then, and arms nothing.
    assert release.release_due(now=at[1] + tasks.ARMED_MARGIN) == 4
    assert tasks.release_due(arm=False) == 0
    assert _armed_runs(broker.client) == []


def test_a_publish_that_fell_due_while_the_tick_ran_is_armed_at_once(broker, owner, accounts):
    due = timezone.now()
    _publishes(owner, [accounts.x], 1, state=TargetState.SCHEDULED, due=due)
    _armed_runs(broker.client)

    # The tick looked for due publishes just before this one fell due, and arms after it did.
    tasks._arm_releases(after=due - dt.timedelta(milliseconds=5))

    assert [eta for eta, _, _ in _armed_runs(broker.client)] == [due + tasks.ARMED_MARGIN]


def test_a_tick_that_cannot_arm_its_runs_still_releases_what_is_due(owner, accounts):
    soon = timezone.now() + dt.timedelta(seconds=2)
    waiting = _publishes(owner, [accounts.x], 1, state=TargetState.SCHEDULED, due=soon)
    due_now = _publishes(owner, [accounts.x], 1, state=TargetState.SCHEDULED, due=timezone.now())

    with broker_down():
        assert tasks.release_due() == 1  # the arming is refused: logged, the next tick releases it

    assert Publish.objects.get(pk=due_now[0].pk).status == PublishStatus.PUBLISHING
    assert ScheduledRelease.objects.filter(publish__in=waiting).exists()
    assert DeliveryJob.objects.filter(target__publish__in=due_now, enqueued_at=None).count() == 1  # for the relay


def test_a_released_publish_is_sent_and_published(owner, accounts, sandbox):
    due = timezone.now() - dt.timedelta(seconds=1)
    publishes = _publishes(owner, [accounts.x, accounts.bluesky], 2, state=TargetState.SCHEDULED, due=due)

    assert release.release_due() == 2  # eager: each job runs as it is handed over

    assert set(Publish.objects.filter(pk__in=[p.pk for p in publishes]).values_list("status", flat=True)) == {
        PublishStatus.PUBLISHED
    }
    assert len(sandbox.posts("x")) == len(sandbox.posts("bluesky")) == 1
    assert DeliveryAttempt.objects.filter(target__publish__in=publishes).count() == 2


def test_a_refused_hand_over_after_a_release_leaves_the_jobs_for_the_relay(owner, accounts, sandbox):
    due = timezone.now() - dt.timedelta(seconds=1)
    publishes = _publishes(owner, [accounts.x], 2, state=TargetState.SCHEDULED, due=due)

    with broker_down():
        assert release.release_due() == 2

    jobs = DeliveryJob.objects.filter(target__publish__in=publishes)
    assert jobs.filter(state=JobState.PENDING, enqueued_at=None).exclude(refused_at=None).count() == 2
    assert release.relay() == 2
    assert set(Publish.objects.filter(pk__in=[p.pk for p in publishes]).values_list("status", flat=True)) == {
        PublishStatus.PUBLISHED
    }
    assert len(sandbox.posts("x")) == 2


def test_a_broker_outage_during_a_large_release_leaves_every_batch_for_the_relay(broker, owner, accounts):
    due = timezone.now() - dt.timedelta(seconds=1)
    count = release.RELEASE_BATCH * 2 + 10
    publishes = _publishes(owner, [accounts.x], count, state=TargetState.SCHEDULED, due=due)

    with broker_down():
        assert release.release_due() == count  # released in the database all the same

    jobs = _jobs(publishes)
    broker.expect(jobs)
    assert len(jobs) == count
    assert not DeliveryJob.objects.filter(pk__in=[j.pk for j in jobs]).exclude(enqueued_at=None).exists()
    assert release.relay() == count
    assert Counter(broker.task_ids()) == Counter({job.dispatch_id: 1 for job in jobs})


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_ticks_release_each_publish_once(broker, owner, accounts):
    due = timezone.now() - dt.timedelta(seconds=1)
    count = release.RELEASE_BATCH * 3
    publishes = _publishes(owner, [accounts.x, accounts.bluesky], count, state=TargetState.SCHEDULED, due=due)
    start = threading.Barrier(2)
    released: list[int] = []

    def tick() -> None:
        try:
            start.wait(timeout=30)
            released.append(release.release_due())
        finally:
            connection.close()

    threads = [threading.Thread(target=tick) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert sum(released) == count
    jobs = _jobs(publishes)
    broker.expect(jobs)
    assert len(jobs) == count
    assert Counter(job.target_id for job in jobs).most_common(1)[0][1] == 1
    assert set(Target.objects.filter(publish__in=publishes).values_list("attempt_count", flat=True)) == {1}
    assert Counter(broker.task_ids()) == Counter({job.dispatch_id: 1 for job in jobs})


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_tick_skips_a_publish_a_transition_holds_and_releases_it_next_time(broker, owner, accounts):
    due = timezone.now() - dt.timedelta(seconds=1)
    held, *others = _publishes(owner, [accounts.x], 4, state=TargetState.SCHEDULED, due=due)
    locked, done = threading.Event(), threading.Event()

    def transition() -> None:
        try:
            with transaction.atomic():
                Publish.objects.select_for_update().get(pk=held.pk)
                locked.set()
                done.wait(timeout=60)
        finally:
            connection.close()

    holder = threading.Thread(target=transition)
    holder.start()
    try:
        assert locked.wait(timeout=30)
        assert release.release_due() == 3  # does not wait for the held row
        assert ScheduledRelease.objects.filter(publish=held).exists()
    finally:
        done.set()
        holder.join(timeout=30)

    assert release.release_due() == 1
    jobs = _jobs([held, *others])
    broker.expect(jobs)
    assert len(jobs) == 4


# --- the worker ---------------------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_process_keeps_its_database_connection_from_task_to_task():
    """What Celery's Django fixup and our own recycling do around each task, with the setting
    in force: the connection opened by the first task serves the next ones."""
    fixup = DjangoWorkerFixup(celery_app)
    task = SimpleNamespace(request=SimpleNamespace(is_eager=False))
    connection.ensure_connection()
    opened = connection.connection

    for _ in range(20):
        fixup.on_task_prerun(sender=task)
        recycle_database(sender=task)
        Publish.objects.exists()
        recycle_database(sender=task)
        fixup.on_task_postrun(sender=task)

    assert connection.connection is opened


def test_a_tick_hands_over_the_publish_due_first_first(broker, owner, accounts):
    now = timezone.now()
    # Written in one order, due in the reverse one: the first written falls due last.
    publishes = [
        _publishes(owner, [accounts.x], 1, state=TargetState.SCHEDULED, due=now - dt.timedelta(seconds=n))[0]
        for n in range(1, 6)
    ]

    assert release.release_due(now=timezone.now()) == len(publishes)

    jobs = {job.target.publish_id: job.dispatch_id for job in DeliveryJob.objects.select_related("target")}
    broker.expect(list(DeliveryJob.objects.filter(target__publish__in=publishes)))
    sent_first_to_last = list(reversed(broker.task_ids()))  # the queue is pushed on the left
    assert sent_first_to_last == [jobs[p.pk] for p in reversed(publishes)]
