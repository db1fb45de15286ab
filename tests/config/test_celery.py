"""The Celery wiring: every scheduled job names a real task, and every task's limits are ones
Celery accepts (a soft limit above the hard one makes beat refuse to send the task)."""

from __future__ import annotations

import pytest
from django.conf import settings

from config.celery import app


@pytest.fixture(scope="module")
def tasks():
    app.loader.import_default_modules()
    return {name: task for name, task in app.tasks.items() if not name.startswith("celery.")}


def test_every_beat_entry_names_a_registered_task(tasks):
    assert {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()} <= set(tasks)


def test_every_task_has_a_soft_limit_within_its_hard_limit(tasks):
    for name, task in tasks.items():
        soft = task.soft_time_limit or app.conf.task_soft_time_limit
        hard = task.time_limit or app.conf.task_time_limit
        assert soft, name
        assert hard, name
        assert soft <= hard, name


def test_tasks_have_explicit_stable_names(tasks):
    apps = {"media", "webhooks", "publishing", "analytics", "accounts", "notifications"}
    assert all(name.split(".")[0] in apps for name in tasks)


FETCH_TASKS = {"media.fetch_source", "media.sweep_fetches"}


def test_media_tasks_go_to_the_media_queue_and_fetches_to_their_own(tasks):
    for name in tasks:
        if name.startswith("media."):
            assert app.amqp.router.route({}, name)["queue"].name == ("fetch" if name in FETCH_TASKS else "media"), name


def test_a_fetchs_download_deadline_ends_before_its_task_limits(tasks):
    fetch = tasks["media.fetch_source"]

    assert settings.MEDIA_FETCH_DEADLINE_SECONDS < fetch.soft_time_limit < fetch.time_limit


def test_notification_mails_go_to_the_default_queue(tasks):
    for name in ("notifications.mail_event", "notifications.mail_account_expired"):
        assert app.amqp.router.route({}, name)["queue"].name == "default", name
