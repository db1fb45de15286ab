"""The Celery app. Tasks live in each app's tasks.py and are found by autodiscovery.

Database connections in a worker process live as they do in a web process: Celery's Django
fixup keeps them across tasks (CELERY_DB_REUSE_MAX), and around each task the connection is
recycled by Django's own rules, as around a request: closed once older than CONN_MAX_AGE or
after an error that left it unusable, and health-checked before its first query when
CONN_HEALTH_CHECKS is on. A worker therefore opens a connection now and then, not per task.

A worker started with `--db-connections N` takes its connections from one pool of at most N
instead of one per thread (config.dbpool): the dispatch lanes run hundreds of threads that
mostly wait on the platforms.

A worker whose pool does not enforce time limits (threads, as the `dispatch` worker runs, or
solo) gets a watchdog thread that does (config.task_limits).
"""

from __future__ import annotations

import gc
import logging
import os
from typing import Any

import click
from celery import Celery, bootsteps
from celery.signals import (
    after_setup_logger,
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_init,
    worker_ready,
)

from config.task_limits import Watchdog, limits, pool_enforces_limits

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("social")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

app.user_options["worker"].add(
    click.Option(
        ["--db-connections"],
        type=int,
        default=0,
        help="Share at most this many PostgreSQL connections among the worker's threads (0: one per thread).",
    )
)


class DatabasePool(bootsteps.Step):
    """`--db-connections N`: the worker's threads share a pool of at most N connections."""

    def __init__(self, parent: Any, db_connections: int = 0, **options: Any) -> None:
        if db_connections > 0:
            from config.dbpool import use_pool

            use_pool(db_connections)
        super().__init__(parent, **options)


app.steps["worker"].add(DatabasePool)


def recycle_database(sender: Any = None, **_: Any) -> None:
    """Django's request-boundary connection rules, applied at a task's start and end. A task
    run eagerly belongs to its caller (and its transaction): it is left alone."""
    request = getattr(sender, "request", None)
    if getattr(request, "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


task_prerun.connect(recycle_database, weak=False)
task_postrun.connect(recycle_database, weak=False)


# Celery's loggers of the routine: beat sending each due task, a worker receiving it, a task
# succeeding. A failed task is logged at ERROR by celery.app.trace, which WARNING keeps.
ROUTINE_LOGGERS = ("celery.beat", "celery.worker.strategy", "celery.app.trace")


@after_setup_logger.connect(weak=False)
def quiet_routine(**_: Any) -> None:
    from django.conf import settings

    if not settings.LOG_EVERY_TASK:
        for name in ROUTINE_LOGGERS:
            logging.getLogger(name).setLevel(logging.WARNING)


# The watchdog of this worker process, when its pool does not enforce time limits.
watchdog: Watchdog | None = None


@worker_init.connect(weak=False)
def watch_time_limits(sender: Any = None, **_: Any) -> None:
    global watchdog  # one per worker process, set once at its start
    if sender is None or pool_enforces_limits(sender.pool_cls):
        return
    watchdog = Watchdog()
    watchdog.start()


@task_prerun.connect(weak=False)
def task_started(sender: Any = None, task_id: str = "", **_: Any) -> None:
    if watchdog is not None and sender is not None and not getattr(sender.request, "is_eager", False):
        soft, hard = limits(sender)
        watchdog.enter(task_id, sender.name, soft=soft, hard=hard)


@task_postrun.connect(weak=False)
def task_ended(task_id: str = "", **_: Any) -> None:
    if watchdog is not None:
        watchdog.leave(task_id)


READY_DIR = "ready"  # under VAR_DIR: one file per worker that has started, in development


@worker_ready.connect(weak=False)
def mark_ready(sender: Any = None, **_: Any) -> None:
    """In development, a file per started worker (its hostname) tells `manage.py welcome` that
    the worker's banner is out, without a broadcast the local folder broker handles badly."""
    from django.conf import settings

    if settings.DEVELOPMENT and sender is not None:
        folder = settings.VAR_DIR / READY_DIR
        folder.mkdir(exist_ok=True)
        (folder / str(sender.hostname)).write_text(str(os.getpid()))


@worker_ready.connect(weak=False)
@worker_process_init.connect(weak=False)
def freeze_worker(**_: Any) -> None:
    """A worker process (a prefork pool process, or the one process of a threads worker) has
    loaded the app: keep what it loaded out of garbage collection, as gunicorn.conf.py does
    for web workers (a full collection otherwise walks every module's objects, about 60 ms)."""
    gc.collect()
    gc.freeze()
