"""The Celery app. Tasks live in each app's tasks.py and are found by autodiscovery.

Database connections in a worker process live as they do in a web process: Celery's Django
fixup keeps them across tasks (CELERY_DB_REUSE_MAX), and around each task the connection is
recycled by Django's own rules, as around a request: closed once older than CONN_MAX_AGE or
after an error that left it unusable, and health-checked before its first query when
CONN_HEALTH_CHECKS is on. A worker therefore opens a connection now and then, not per task.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("social")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


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
