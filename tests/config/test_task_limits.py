"""The time-limit watchdog of worker pools that do not enforce limits themselves (threads,
solo): a task past its soft limit gets SoftTimeLimitExceeded in its own thread, and a task past
its hard limit ends the whole process, as prefork ends a pool process."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Sequence

import pytest
from billiard.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from config.task_limits import HARD_LIMIT_EXIT, Running, Watchdog, limits, pool_enforces_limits
from publishing.tasks import deliver


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Task(threading.Thread):
    """A task body in its own thread: busy in Python until told to stop or interrupted."""

    def __init__(self, watchdog: Watchdog, task_id: str, *, soft: float | None, hard: float | None) -> None:
        super().__init__(daemon=True)
        self.watchdog, self.task_id, self.soft, self.hard = watchdog, task_id, soft, hard
        self.entered, self.interrupted, self.finish = threading.Event(), threading.Event(), threading.Event()

    def run(self) -> None:
        self.watchdog.enter(self.task_id, "test.task", soft=self.soft, hard=self.hard)
        self.entered.set()
        try:
            while not self.finish.is_set():
                time.sleep(0.001)
        except SoftTimeLimitExceeded:
            self.interrupted.set()
        finally:
            self.watchdog.leave(self.task_id)


def _started(watchdog: Watchdog, task_id: str, **limits: float | None) -> Task:
    task = Task(watchdog, task_id, soft=limits.get("soft"), hard=limits.get("hard"))
    task.start()
    assert task.entered.wait(5)
    return task


def test_a_task_past_its_soft_limit_gets_soft_time_limit_exceeded_in_its_own_thread():
    clock, ended = Clock(), []
    watchdog = Watchdog(clock=clock, end_process=ended.append)
    late, on_time = _started(watchdog, "late", soft=10.0), _started(watchdog, "on-time", soft=60.0)

    clock.now = 9.9
    watchdog.check()
    assert not late.interrupted.is_set()

    clock.now = 10.0
    watchdog.check()
    assert late.interrupted.wait(5)
    late.join(5)
    assert not on_time.interrupted.is_set()
    assert [task.task_id for task in watchdog.running()] == ["on-time"]
    assert ended == []
    on_time.finish.set()
    on_time.join(5)
    assert not on_time.interrupted.is_set()


def test_nothing_is_raised_in_a_thread_whose_task_left_before_its_limit():
    clock = Clock()
    watchdog = Watchdog(clock=clock, end_process=lambda overdue: None)
    done = _started(watchdog, "done", soft=1.0)
    done.finish.set()
    done.join(5)
    clock.now = 5.0
    watchdog.check()
    assert not done.interrupted.is_set()
    assert watchdog.running() == []


def test_a_task_past_its_hard_limit_ends_the_process_with_every_overdue_task_named():
    clock, ended = Clock(), []
    watchdog = Watchdog(clock=clock, end_process=ended.append)
    stuck = _started(watchdog, "stuck", soft=1.0, hard=2.0)
    other = _started(watchdog, "other", soft=100.0, hard=200.0)
    clock.now = 2.0
    watchdog.check()
    assert [[task.task_id for task in overdue] for overdue in ended] == [["stuck"]]
    for task in (stuck, other):
        task.finish.set()
        task.join(5)


_STUCK_IN_C = """
import time
from config.task_limits import Watchdog
watchdog = Watchdog(interval=0.05)
watchdog.start()
watchdog.enter("stuck-task", "publishing.deliver", soft=0.1, hard=0.3)
time.sleep(60)  # blocked in C: the soft limit cannot reach it, the hard limit must
raise SystemExit(0)
"""


def test_the_hard_limit_ends_a_process_whose_task_is_blocked_outside_python():
    started = time.monotonic()
    ended = subprocess.run(  # noqa: S603 - our own interpreter running our own code
        [sys.executable, "-c", _STUCK_IN_C],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert ended.returncode == HARD_LIMIT_EXIT, ended.stderr
    assert time.monotonic() - started < 30
    assert "Hard time limit exceeded by publishing.deliver[stuck-task]" in ended.stderr


def test_the_watchdog_thread_checks_on_its_own():
    overdue: list[Sequence[Running]] = []
    fired = threading.Event()

    def end_process(tasks: Sequence[Running]) -> None:
        overdue.append(tasks)
        fired.set()

    watchdog = Watchdog(interval=0.01, end_process=end_process)
    watchdog.start()
    try:
        watchdog.enter("t", "test.task", soft=None, hard=0.05)
        assert fired.wait(5)
    finally:
        watchdog.stop()
    assert overdue[0][0].task_id == "t"


@pytest.mark.parametrize(
    ("pool", "enforces"),
    [("prefork", True), ("threads", False), ("solo", False)],
)
def test_only_pools_without_their_own_limits_get_a_watchdog(pool, enforces):
    assert pool_enforces_limits(pool) is enforces


def test_a_delivery_runs_under_the_dispatch_limits():
    assert limits(deliver) == (float(settings.DISPATCH_SOFT_TIME_LIMIT), float(settings.DISPATCH_TIME_LIMIT))
