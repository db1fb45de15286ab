"""The Celery app. Tasks live in each app's tasks.py and are found by autodiscovery."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("social")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
