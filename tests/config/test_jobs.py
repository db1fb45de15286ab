"""The primitives every send-once engine shares (config.jobs), on the real database: of two
claims of one row exactly one wins, on either implementation and when they race; a lost
worker's claim is taken back, or given up once its tries are spent; messages go to the broker
grouped by queue. Webhook deliveries are the rows claimed here, as the webhooks worker claims
them."""

from __future__ import annotations

import base64
import datetime as dt
import json
import threading
import uuid
from typing import Any

import pytest
import redis
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from config import jobs
from config.celery import app as celery_app
from config.db import run
from publishing import tasks as publishing_tasks
from tests.publishing.safety_support import wait_until
from tests.webhooks.helpers import due_deliveries
from webhooks import tasks as webhooks_tasks
from webhooks.models import Delivery, DeliveryState

PENDING, SENDING, FAILED = DeliveryState.PENDING, DeliveryState.SENDING, DeliveryState.FAILED
CLAIM_SQL = jobs.claim_sql(
    Delivery,
    from_state=PENDING,
    to_state=SENDING,
    due_field="next_attempt_at",
    changes={"claimed_at": "%(now)s", "attempts": "attempts + 1"},
    returning=("id",),
)


def _claim(how: str, pk: Any, now: dt.datetime) -> bool:
    """One claim, through the ORM (`jobs.claim`) or its fixed statement (`jobs.claim_sql`)."""
    if how == "fixed":
        return bool(run(CLAIM_SQL, {"pk": pk, "now": now}))
    changes = {"claimed_at": now, "attempts": F("attempts") + 1}
    return jobs.claim(
        Delivery, pk, from_state=PENDING, to_state=SENDING, due_field="next_attempt_at", now=now, changes=changes
    )


def _row(delivery: Delivery) -> tuple[Any, ...]:
    return Delivery.objects.values_list("state", "attempts", "claimed_at").get(pk=delivery.pk)


# --- the claim --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_of_two_claims_of_one_row_the_first_wins_and_the_second_writes_nothing(owner, hot_path):
    (delivery,) = due_deliveries(owner.team, 1)
    now = timezone.now()

    assert _claim(hot_path, delivery.pk, now) is True
    assert _claim(hot_path, delivery.pk, now + dt.timedelta(seconds=1)) is False

    assert _row(delivery) == (SENDING, 1, now)


@pytest.mark.django_db
def test_a_row_not_yet_due_or_in_another_state_is_not_claimed(owner, hot_path):
    later, failed = due_deliveries(owner.team, 2)
    now = timezone.now()
    Delivery.objects.filter(pk=later.pk).update(next_attempt_at=now + dt.timedelta(seconds=1))
    Delivery.objects.filter(pk=failed.pk).update(state=FAILED)

    assert _claim(hot_path, later.pk, now) is False
    assert _claim(hot_path, failed.pk, now) is False
    assert _row(later) == (PENDING, 0, None)
    assert _row(failed) == (FAILED, 0, None)


@pytest.mark.django_db
def test_a_claim_from_several_states_takes_any_of_them(owner):
    (delivery,) = due_deliveries(owner.team, 1, state=FAILED)
    now = timezone.now()

    claimed = jobs.claim(
        Delivery.objects.filter(subscription__team=owner.team),
        delivery.pk,
        from_state={PENDING, FAILED},
        to_state=SENDING,
        due_field="next_attempt_at",
        now=now,
        changes={"claimed_at": now},
    )

    assert claimed is True
    assert _row(delivery) == (SENDING, 0, now)


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_fixed_statement_writes_the_row_the_orm_claim_writes(owner):
    by_orm, by_sql = due_deliveries(owner.team, 2)
    now = timezone.now()

    assert _claim("orm", by_orm.pk, now)
    assert _claim("fixed", by_sql.pk, now)

    assert _row(by_orm) == _row(by_sql) == (SENDING, 1, now)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("first", "second"), [("orm", "fixed"), ("fixed", "orm"), ("orm", "orm")])
def test_of_two_claims_racing_for_one_row_exactly_one_wins(owner, first, second):
    """The second claim reaches the row while the first one's transaction holds it: it waits,
    then finds the row claimed and writes nothing."""
    (delivery,) = due_deliveries(owner.team, 1)
    now = timezone.now()
    waiting: dict[str, Any] = {}

    def claim_second() -> None:
        try:
            waiting["pid"] = run("SELECT pg_backend_pid()", {})[0][0]
            waiting["claimed"] = _claim(second, delivery.pk, now)
        finally:
            connection.close()

    with transaction.atomic():
        assert _claim(first, delivery.pk, now) is True
        racer = threading.Thread(target=claim_second)
        racer.start()
        wait_until(
            lambda: "pid" in waiting and bool(run("SELECT pg_blocking_pids(%(pid)s)", {"pid": waiting["pid"]})[0][0]),
            what="the second claim to wait for the first one's row lock",
        )
    racer.join(timeout=30)

    assert waiting["claimed"] is False
    assert _row(delivery) == (SENDING, 1, now)


# --- the stale sweep --------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_lost_workers_claim_is_taken_back_and_one_out_of_tries_is_given_up(owner):
    now = timezone.now()
    long_ago, lately = now - dt.timedelta(hours=1), now - dt.timedelta(seconds=5)
    lost, spent, live, pending = due_deliveries(owner.team, 4, state=SENDING, claimed_at=long_ago, attempts=2)
    Delivery.objects.filter(pk=spent.pk).update(attempts=3)
    Delivery.objects.filter(pk=live.pk).update(claimed_at=lately)
    Delivery.objects.filter(pk=pending.pk).update(state=PENDING)

    swept = jobs.take_back(
        Delivery.objects.all(),
        running=SENDING,
        pending=PENDING,
        failed=FAILED,
        tries_field="attempts",
        max_tries=3,
        older_than=dt.timedelta(minutes=1),
        now=now,
        back={"next_attempt_at": now},
        given_up={"next_attempt_at": None, "last_error": "WORKER_LOST"},
    )

    assert swept == jobs.Swept(back=1, given_up=1)
    states = dict(Delivery.objects.values_list("pk", "state"))
    assert states == {lost.pk: PENDING, spent.pk: FAILED, live.pk: SENDING, pending.pk: PENDING}
    assert Delivery.objects.get(pk=lost.pk).next_attempt_at == now  # due: the sweep sends it
    assert Delivery.objects.get(pk=spent.pk).last_error == "WORKER_LOST"


@pytest.mark.django_db
def test_a_row_is_stale_only_in_its_running_state_past_the_limit_by_the_field_named(owner):
    now = timezone.now()
    old, recent, other_state = due_deliveries(owner.team, 3, state=SENDING, claimed_at=now - dt.timedelta(hours=1))
    Delivery.objects.filter(pk=recent.pk).update(claimed_at=now)
    Delivery.objects.filter(pk=other_state.pk).update(state=FAILED)
    rows = Delivery.objects.all()

    assert list(jobs.stale(rows, state=SENDING, older_than=dt.timedelta(minutes=1), now=now)) == [old]
    by_due = jobs.stale(rows, state=SENDING, older_than=dt.timedelta(0), now=now, since_field="next_attempt_at")
    assert {row.pk for row in by_due} == {old.pk, recent.pk}


# --- the hand-over ----------------------------------------------------------------------------


@pytest.fixture
def queues() -> Any:
    """Tasks go to the real broker (REDIS_URL); what a test sends is read back and removed."""
    conf = celery_app.conf
    saved = conf.task_always_eager
    conf.task_always_eager = False
    client = redis.Redis.from_url(conf.broker_write_url or conf.broker_url)
    sent: set[str] = set()

    def read(queue: str) -> list[tuple[str, str, list[Any]]]:
        found = []
        for raw in client.lrange(queue, 0, -1):
            message = json.loads(raw)
            headers = message["headers"]
            if headers["id"] in sent:
                found.append((headers["id"], headers["task"], json.loads(_body(message))[0]))
        return found

    try:
        yield sent, read
    finally:
        conf.task_always_eager = saved
        for queue in ("webhooks", "dispatch", "uploads"):
            for raw in client.lrange(queue, 0, -1):
                if json.loads(raw)["headers"]["id"] in sent:
                    client.lrem(queue, 0, raw)
        client.close()


def _body(message: dict[str, Any]) -> str:
    return base64.b64decode(message["body"]).decode()


@pytest.mark.redis
def test_messages_go_to_the_queue_each_names_or_to_their_tasks_route(queues):
    sent, read = queues
    ids = [str(uuid.uuid4()) for _ in range(4)]
    sent.update(ids)

    jobs.hand_over(
        publishing_tasks.deliver,
        [jobs.Message(ids[0], ("job-1",), "dispatch"), jobs.Message(ids[1], ("job-2",), "uploads")],
    )
    jobs.hand_over(
        webhooks_tasks.deliver, [jobs.Message(ids[2], ("d-1", "team-1")), jobs.Message(ids[3], ("d-2", "team-2"))]
    )

    assert read("dispatch") == [(ids[0], "publishing.deliver", ["job-1"])]
    assert read("uploads") == [(ids[1], "publishing.deliver", ["job-2"])]
    assert sorted(read("webhooks")) == sorted(
        [(ids[2], "webhooks.deliver", ["d-1", "team-1"]), (ids[3], "webhooks.deliver", ["d-2", "team-2"])]
    )
