"""Faults in the middle of the mixed load, each on a stack of its own: the same load as
test_mixed_load for LOAD_SECONDS, a fault injected FAULT_AT seconds in, and afterwards the same
judgement (tests/long/load.py `assert_held`): the queues drain with no hand on the stack,
nothing is lost, nothing is sent twice, no answer is a 500, and a 503 (saying the service is
unavailable) comes only while the fault lasts and shortly after. A supervisor's part (starting a
killed process again) is played by the test, as systemd or Kubernetes would play it.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import time
from collections.abc import Callable

import pytest
import requests

from tests.long.checker import APPLICATION_NAME, _rows, connect
from tests.long.load import USERS, LoadRun, Window, assert_held, figures, run_load
from tests.long.stack import PLATFORM_LATENCY_SECONDS, PLATFORM_TIMEOUT_SECONDS, LiveStack, live_stack
from webhooks.models import Delivery, DeliveryAttempt
from webhooks.services import MAX_ATTEMPTS

pytestmark = pytest.mark.long

LOAD_SECONDS = 60
FAULT_AT = 15
OUTAGE_SECONDS = 20

# Errors a fault makes the processes log, and rightly so: a failure must be visible. A worker
# that finished a job while the broker was away cannot acknowledge it ("Couldn't ack"); the job's
# row already says it is done, so a copy the broker hands over again finds nothing left to send.
BROKER_DOWN = re.compile(
    r"consumer: Cannot connect to .*Connection refused|Couldn't apply scheduled task .*Error 111 connecting"
    r"|Couldn't ack .*reason:.*ConnectionError"
)
DATABASE_GONE = re.compile(
    r"Database unavailable|terminating connection due to administrator command|server closed the connection"
    r"|OperationalError|InterfaceError|connection already closed|consuming input failed|the connection is lost"
)

Fault = Callable[[Window], None]


def _run(stack: LiveStack, title: str, fault: Fault, seconds: int = LOAD_SECONDS) -> LoadRun:
    run = run_load(stack, seconds, fault)
    print(f"\n{title}, {USERS} clients for {seconds} s:\n{figures(run)}")
    return run


def test_redis_stopped_for_20_s_then_started_empty() -> None:
    """The broker, cache and rate-limit store goes away with every queued message; creates are
    answered 503 (their clients send them again with their key), workers and beat reconnect, and
    the relay hands over again the jobs the broker lost."""
    with live_stack() as stack:

        def outage(window: Window) -> None:
            time.sleep(FAULT_AT)
            window.begin()
            stack.redis.stop()
            window.injected["Redis stopped"] += 1
            time.sleep(OUTAGE_SECONDS)
            stack.redis.start()
            window.finish()

        run = _run(stack, "Redis stopped for 20 s", outage)
        assert_held(stack, run, expected_log=BROKER_DOWN)
        stack.keep_logs = False


def test_postgres_connections_killed_mid_traffic() -> None:
    """Every connection of the service to its database is terminated (pg_terminate_backend),
    again and again for 20 s: requests caught mid-transaction answer 503 and roll back, workers
    caught mid-delivery leave attempts the reconciler settles, and every process reconnects."""
    with live_stack() as stack:

        def kill_connections(window: Window) -> None:
            time.sleep(FAULT_AT)
            window.begin()
            with connect(stack.database_url, autocommit=True) as conn:
                deadline = time.monotonic() + OUTAGE_SECONDS
                while time.monotonic() < deadline:
                    row = conn.execute(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                        " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                        " AND application_name <> %s",
                        (APPLICATION_NAME,),
                    ).fetchone()
                    window.injected["connections terminated"] += row[0] if row else 0
                    window.injected["rounds"] += 1
                    time.sleep(2.5)
            window.finish()

        run = _run(stack, "PostgreSQL connections killed every 2.5 s for 20 s", kill_connections)
        assert run.window is not None
        assert run.window.injected["connections terminated"] > 0
        assert_held(stack, run, expected_log=DATABASE_GONE)
        stack.keep_logs = False


def test_workers_sigkilled_again_and_again() -> None:
    """The dispatch worker (mid-call to a platform) and the webhooks worker (mid-webhook) are
    SIGKILLed in turn, three times each, and started again: attempts left sending become unknown
    and are read back, claimed jobs go back to the queue, and nothing goes out twice."""
    with live_stack() as stack:

        def kill_workers(window: Window) -> None:
            time.sleep(FAULT_AT)
            window.begin()
            for name in ("dispatch", "webhooks") * 3:
                stack.kill(name)
                window.injected[f"{name} SIGKILLed"] += 1
                time.sleep(1)
                stack.start(name)
                time.sleep(4)
            window.finish()

        run = _run(stack, "Workers SIGKILLed six times", kill_workers, seconds=75)  # the kills last 30 s
        assert_held(stack, run)
        stack.keep_logs = False


def test_beat_stopped_for_20_s_then_started() -> None:
    """The scheduler stops: scheduled publishes fall due with nobody to release them, the relay,
    the reconciler and the webhook sweeper pause. Started again, beat catches up on all of it."""
    with live_stack() as stack:

        def stop_beat(window: Window) -> None:
            time.sleep(FAULT_AT)
            window.begin()
            stack.stop("beat")
            window.injected["beat stopped"] += 1
            time.sleep(OUTAGE_SECONDS)
            stack.start("beat")
            window.finish()

        run = _run(stack, "Beat stopped for 20 s", stop_beat)
        assert_held(stack, run)
        assert run.report.counts["publishes scheduled"] + run.report.counts["publishes published"] > 0
        stack.keep_logs = False


def test_platforms_answering_after_the_timeout() -> None:
    """For 20 s every platform does the work asked (the post is made, or refused) but answers
    1.5 s after the service stopped waiting: each such attempt is unknown and is read back once
    the platforms are quick again; a post made is published once, never re-sent, and one the
    platform refused fails once the read-back has missed it for RECONCILE_ABSENT_AFTER_SECONDS."""
    with live_stack() as stack:

        def slow_platforms(window: Window) -> None:
            time.sleep(FAULT_AT)
            window.begin()
            latency = PLATFORM_TIMEOUT_SECONDS + 1.5
            requests.post(f"{stack.sandbox_url}/_sandbox/latency", json={"seconds": latency}, timeout=10)
            window.injected[f"every platform answer held {latency:.1f} s"] += 1
            time.sleep(OUTAGE_SECONDS)
            back = {"seconds": PLATFORM_LATENCY_SECONDS}
            requests.post(f"{stack.sandbox_url}/_sandbox/latency", json=back, timeout=10)
            window.finish()

        run = _run(stack, "Platforms answering past the timeout for 20 s", slow_platforms)
        assert_held(stack, run)
        # Far more unknown outcomes than the sandbox's own `timeout` answers alone give.
        assert run.report.counts["attempts seen unknown"] > 30
        stack.keep_logs = False


# Production's schedule (1 min, 5 min, 30 min, 2 h, 12 h) at 1/1800 scale: a day in 48 s.
SCALE = 1800
DAY_SECONDS = 24 * 3600 / SCALE
SCHEDULE = [60 / SCALE, 300 / SCALE, 1800 / SCALE, 7200 / SCALE, 43200 / SCALE]


def test_webhook_receiver_down_for_a_day() -> None:
    """One team's receiver answers 503 for a simulated day: each delivery is tried six times on
    the production schedule (scaled), fails, and after five such deliveries in a row the
    subscription is disabled, visibly; the other teams' webhooks are untouched."""
    settings = {"WEBHOOK_RETRY_DELAYS": ",".join(f"{d:.4f}" for d in SCHEDULE), "WEBHOOK_SWEEP_SECONDS": "0.25"}
    with live_stack(**settings) as stack:

        def receiver_down(window: Window) -> None:
            time.sleep(10)
            window.begin()
            stack.receiver.down.add("other")
            window.injected["receiver down (s, simulated day)"] += round(DAY_SECONDS)
            time.sleep(DAY_SECONDS)
            stack.receiver.down.discard("other")
            window.finish()

        subscription = stack.subscriptions["other"]
        run = run_load(stack, 75, receiver_down, leave_out=frozenset({"other"}))
        print(f"\nWebhook receiver down for a simulated day, {USERS} clients for 75 s:\n{figures(run)}")
        assert_held(stack, run)
        assert run.window is not None

        listed = requests.get(
            f"{stack.url}/api/v1/webhooks",
            headers={"Authorization": f"Bearer {stack.seed['keys']['other_owner']}"},
            timeout=30,
        ).json()["data"]
        shown = next(webhook for webhook in listed if webhook["id"] == subscription)
        assert shown["disabled"] is True, shown
        assert "in a row" in shown["disabled_reason"]

        deliveries = _rows(
            stack.database_url,
            f"SELECT id, state, attempts FROM {Delivery._meta.db_table} WHERE subscription_id = %s",  # noqa: S608
            subscription,
        )
        states = {d["state"] for d in deliveries}
        assert states <= {"succeeded", "failed", "cancelled"}, states
        failed = [d for d in deliveries if d["state"] == "failed"]
        assert len(failed) >= 5
        assert all(d["attempts"] == MAX_ATTEMPTS for d in failed)
        _assert_spread_as_scheduled(stack, [str(d["id"]) for d in failed])

        disabled_at = dt.datetime.fromisoformat(shown["disabled_at"].replace("Z", "+00:00")).timestamp()
        cancelled = sum(1 for d in deliveries if d["state"] == "cancelled")
        print(
            f"other team: {len(failed)} deliveries failed after {MAX_ATTEMPTS} attempts on the schedule, "
            f"{cancelled} cancelled; disabled {disabled_at - run.window.start:.0f} s into the day"
        )
        assert disabled_at < run.window.end, "disabled only after the receiver came back"
        came_back = [a for a in stack.receiver.arrivals if a.team == "other" and a.at > run.window.end]
        assert came_back == [], "a disabled subscription was sent to"
        stack.keep_logs = False


def _assert_spread_as_scheduled(stack: LiveStack, delivery_ids: list[str]) -> None:
    """Between attempt n and n+1 of each delivery: at least the n-th delay of the schedule, at
    most that plus its 10% jitter and the sweeper's tick and a worker's pickup under load."""
    attempts = _rows(
        stack.database_url,
        f"SELECT delivery_id, number, created_at FROM {DeliveryAttempt._meta.db_table}"  # noqa: S608
        " WHERE delivery_id = ANY(%s) ORDER BY delivery_id, number",
        delivery_ids,
    )
    times: dict[str, list[float]] = {}
    for attempt in attempts:
        times.setdefault(str(attempt["delivery_id"]), []).append(attempt["created_at"].timestamp())
    for delivery_id, moments in times.items():
        gaps = [later - earlier for earlier, later in itertools.pairwise(moments)]
        assert len(gaps) == len(SCHEDULE), (delivery_id, gaps)
        for gap, delay in zip(gaps, SCHEDULE, strict=True):
            assert delay * 0.99 <= gap <= delay * 1.1 + 3.0, f"delivery {delivery_id}: gaps {gaps}, schedule {SCHEDULE}"
