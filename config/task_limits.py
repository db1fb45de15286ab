"""Task time limits in a worker whose pool does not enforce them (threads, solo).

Celery's prefork pool enforces both limits of a task: past the soft limit it raises
SoftTimeLimitExceeded in the task, past the hard limit it kills the pool process. The threads
and solo pools enforce neither, yet publishing relies on both: the reconciler takes an attempt
still `sending` after DISPATCH_STALE_SECONDS for a dead worker's, which is only true if no live
worker can still be inside that call (DESIGN §4.9: time limits on every task).

The `dispatch` worker runs on threads (one process overlaps many platform calls and database
round trips), so each such worker process runs one watchdog thread that keeps the same two
promises:

- past a task's soft limit it raises SoftTimeLimitExceeded in the task's thread, once. Python
  delivers it at the thread's next Python instruction: a blocking socket read first ends by
  the client's own read timeout. The task handles it as under prefork (a delivery records an
  unknown outcome, to be reconciled).
- past a task's hard limit it ends the whole worker process at once, as prefork ends a pool
  process. The messages of the tasks it was running are unacknowledged (acks_late), so the
  broker gives them back, and their claims and attempts are settled by the reconciler as any
  lost worker's are.
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from billiard.exceptions import SoftTimeLimitExceeded

logger = logging.getLogger(__name__)

# The exit status of a worker process ended by a hard time limit (EX_SOFTWARE).
HARD_LIMIT_EXIT = 70


@dataclass
class Running:
    """A task a thread of this process is running, and when its limits fall."""

    thread_id: int
    task_id: str
    name: str
    soft_at: float | None
    hard_at: float | None
    soft_raised: bool = False


def _raise_in(thread_id: int, exc: type[BaseException]) -> bool:
    """Raise `exc` in the thread at its next Python instruction; False when there is no such thread."""
    changed = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc))
    if changed > 1:  # cannot happen for one thread id; undo rather than hit several threads
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), None)
    return bool(changed == 1)


def _end_process(overdue: Sequence[Running]) -> None:
    names = ", ".join(f"{task.name}[{task.task_id}]" for task in overdue)
    logger.critical("Hard time limit exceeded by %s: ending this worker process", names)
    logging.shutdown()
    os._exit(HARD_LIMIT_EXIT)


class Watchdog:
    """Holds the tasks running in this process and enforces their limits, from its own thread
    (`start`) or from whoever calls `check`. `end_process` is what happens past a hard limit."""

    def __init__(
        self,
        *,
        interval: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        end_process: Callable[[Sequence[Running]], None] = _end_process,
    ) -> None:
        self.interval = interval
        self.clock = clock
        self.end_process = end_process
        self._lock = threading.Lock()
        self._running: dict[str, Running] = {}
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def enter(self, task_id: str, name: str, *, soft: float | None, hard: float | None) -> None:
        """The calling thread starts the task now, with these limits in seconds (None: none)."""
        now = self.clock()
        running = Running(
            thread_id=threading.get_ident(),
            task_id=task_id,
            name=name,
            soft_at=None if soft is None else now + soft,
            hard_at=None if hard is None else now + hard,
        )
        with self._lock:
            self._running[task_id] = running

    def leave(self, task_id: str) -> None:
        with self._lock:
            self._running.pop(task_id, None)

    def running(self) -> list[Running]:
        with self._lock:
            return list(self._running.values())

    def check(self) -> None:
        """Raise the soft limit in each task past it (once), end the process if any is past its
        hard limit."""
        now = self.clock()
        with self._lock:
            overdue = [task for task in self._running.values() if task.hard_at is not None and now >= task.hard_at]
            if overdue:
                self.end_process(overdue)
                return
            for task in self._running.values():
                if task.soft_at is not None and now >= task.soft_at and not task.soft_raised:
                    # Under the lock: the task cannot leave (and its thread start another) meanwhile.
                    task.soft_raised = True
                    logger.warning("Soft time limit exceeded by %s[%s]", task.name, task.task_id)
                    _raise_in(task.thread_id, SoftTimeLimitExceeded)

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="task-time-limits", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.check()
            except Exception:  # the watchdog must outlive any one bad check
                logger.exception("Checking task time limits failed")


def limits(task: Any) -> tuple[float | None, float | None]:
    """(soft, hard) seconds for the task's current run, as Celery picks them: the limits its
    message asked for, else the task's own, else the app's defaults."""
    asked = getattr(task.request, "timelimit", None) or (None, None)
    hard, soft = asked
    hard = hard or task.time_limit or task.app.conf.task_time_limit
    soft = soft or task.soft_time_limit or task.app.conf.task_soft_time_limit
    return (float(soft) if soft else None, float(hard) if hard else None)


def pool_enforces_limits(pool_cls: Any) -> bool:
    """Whether the worker pool enforces time limits itself (prefork, eventlet, gevent do)."""
    from celery import concurrency

    pool = concurrency.get_implementation(pool_cls) if isinstance(pool_cls, str) else pool_cls
    return bool(pool.__module__.split(".")[-1] not in {"thread", "solo"})
