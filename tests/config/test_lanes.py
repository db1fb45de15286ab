"""Lanes: every kind of background work has a queue and a worker of its own (both Procfiles),
the control lane carries only the scheduler, the relay and reconciliation, and inside a lane one
team holds at most its share of slots, in Redis across processes and in-process without it."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from django.conf import settings

from config import lanes
from config.celery import app
from config.redis import get_redis
from config.settings import BASE_DIR

PROCFILES = ("Procfile", "Procfile.production")


def _queues_by_process(procfile: str) -> dict[str, set[str]]:
    served = {}
    for line in (BASE_DIR / procfile).read_text().splitlines():
        name, _, command = line.partition(":")
        args = shlex.split(command)
        if "worker" in args:
            served[name] = set(args[args.index("--queues") + 1].split(","))
    return served


def _queue_of(task: str) -> str:
    return app.amqp.router.route({}, task)["queue"].name


@pytest.mark.parametrize("procfile", PROCFILES)
def test_each_lane_has_a_worker_of_its_own(procfile):
    served = _queues_by_process(procfile)
    lanes_named = {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()} | {"default"}

    assert sorted(q for queues in served.values() for q in queues) == sorted(lanes_named)  # each once
    assert all(len(queues) == 1 for queues in served.values()), served


def test_nothing_queues_ahead_of_the_scheduler_the_relay_and_reconciliation():
    app.loader.import_default_modules()
    control = {name for name in app.tasks if not name.startswith("celery.") and _queue_of(name) == "control"}

    assert control == {"publishing.release_due", "publishing.relay", "publishing.reconcile"}


@pytest.mark.parametrize(
    ("task", "lane"),
    [
        ("media.fetch_source", "fetch"),
        ("media.probe", "media"),
        ("webhooks.deliver", "webhooks"),
        ("analytics.sync", "analytics"),
        ("publishing.deliver", "dispatch"),
        ("publishing.purge_done_jobs", "default"),
    ],
)
def test_each_kind_of_work_runs_in_its_lane(task, lane):
    assert _queue_of(task) == lane


# --- a team's share ----------------------------------------------------------------------------


@pytest.fixture(params=["in-process", pytest.param("redis", marks=pytest.mark.redis)])
def where(request, settings) -> Iterator[str]:
    """The shares kept in this process (no REDIS_URL) or in Redis."""
    if request.param == "in-process":
        settings.REDIS_URL = ""
    get_redis.cache_clear()
    settings.LANE_TEAM_SHARES = {**settings.LANE_TEAM_SHARES, "fetch": 2}
    yield request.param
    get_redis.cache_clear()


def _hold(stack: ExitStack, team: str) -> bool:
    return stack.enter_context(lanes.team_share("fetch", team, lease_seconds=60))


def test_a_team_holds_at_most_its_share_and_another_team_is_not_held_back(where):
    with ExitStack() as stack:
        assert [_hold(stack, "team-a") for _ in range(3)] == [True, True, False]
        assert _hold(stack, "team-b") is True
        assert lanes.held("fetch", "team-a") == 2


def test_a_slot_is_free_again_once_its_work_ends(where):
    with ExitStack() as stack:
        assert [_hold(stack, "team-a") for _ in range(2)] == [True, True]
    with lanes.team_share("fetch", "team-a", lease_seconds=60) as held:
        assert held
    assert lanes.held("fetch", "team-a") == 0


def test_a_slot_is_free_again_when_the_work_raises(where):
    with pytest.raises(RuntimeError), lanes.team_share("fetch", "team-a", lease_seconds=60):
        raise RuntimeError("the fetch broke")

    assert lanes.held("fetch", "team-a") == 0


@pytest.mark.redis
def test_a_lease_whose_worker_died_ends_by_itself(settings):
    settings.LANE_TEAM_SHARES = {**settings.LANE_TEAM_SHARES, "fetch": 2}
    get_redis().zadd("lane:fetch:team-a", {"dead-worker-1": 1.0, "dead-worker-2": 2.0})  # expired long ago

    with lanes.team_share("fetch", "team-a", lease_seconds=60) as held:
        assert held


def test_with_redis_away_a_process_still_bounds_its_own_work(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    get_redis.cache_clear()
    try:
        with ExitStack() as stack:
            held = [stack.enter_context(lanes.team_share("media", "team-a", lease_seconds=60)) for _ in range(2)]
        assert held == [True, False]  # the media share is one
    finally:
        get_redis.cache_clear()


def test_a_second_reconciliation_does_not_run_beside_the_first(where):
    from publishing.tasks import reconcile

    with lanes.alone("publishing.reconcile", lease_seconds=60) as first:
        assert first
        with lanes.alone("publishing.reconcile", lease_seconds=60) as second:
            assert not second
        assert reconcile.run() == 0  # returns at once: the first run has it
