"""Pieces of the publishing safety tests: a real broker outage, a delivery worker in its own OS
process (so it can be killed mid-call), polling with a deadline, and the API calls the tests
repeat."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

from django.conf import settings

from config.celery import app as celery_app

PUBLISHES = "/api/v1/publishes"
# Nothing listens on port 1: every connection to this broker is refused at once.
DEAD_BROKER = "redis://127.0.0.1:1/0"


@contextmanager
def not_eager() -> Iterator[None]:
    """Tasks are not eager: a message handed over waits in the test's broker, which no worker
    reads (without Redis, a scratch folder: tests/conftest.py)."""
    conf = celery_app.conf
    saved = conf.task_always_eager
    conf.task_always_eager = False
    try:
        yield
    finally:
        conf.task_always_eager = saved


@contextmanager
def broker_down() -> Iterator[None]:
    """The broker is unreachable and tasks are not eager: `send_jobs` takes its producer from
    the pool of the broker configured now, so this is the outage a web process would see."""
    conf = celery_app.conf
    saved = conf.broker_url, conf.broker_write_url, conf.task_always_eager
    conf.broker_url = conf.broker_write_url = DEAD_BROKER
    conf.task_always_eager = False
    try:
        yield
    finally:
        conf.broker_url, conf.broker_write_url, conf.task_always_eager = saved


def wait_until(condition: Callable[[], bool], *, what: str, timeout: float = 30.0) -> None:
    """Poll `condition` until it holds; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:.0f} s waiting for {what}")


# --- the API ----------------------------------------------------------------------------------


def create(api: Any, key: str, body: dict[str, Any], *, idempotency_key: str | None = None) -> Any:
    headers = {"HTTP_IDEMPOTENCY_KEY": idempotency_key} if idempotency_key else {}
    return api.as_(key).post(PUBLISHES, body, format="json", **headers)


def fetch(api: Any, key: str, publish_id: str) -> dict[str, Any]:
    response = api.as_(key).get(f"{PUBLISHES}/{publish_id}")
    assert response.status_code == 200, response.json()
    data: dict[str, Any] = response.json()["data"]
    return data


def target_of(publish: dict[str, Any], platform: str) -> dict[str, Any]:
    (target,) = [t for t in publish["targets"] if t["platform"] == platform]
    return target


def error_of(response: Any) -> dict[str, Any]:
    error: dict[str, Any] = response.json()["error"]
    return error


def queued_publish(owner: Any, *accounts: Any, content: str) -> Any:
    """An immediate publish whose delivery jobs the create handed to a broker no worker reads:
    pending, marked enqueued when written, never claimed. As far as the database can tell,
    that is also what a create whose process died before its hand-over leaves."""
    with not_eager():
        return immediate_publish(owner, *accounts, content=content)


def immediate_publish(owner: Any, *accounts: Any, content: str) -> Any:
    """An immediate publish of `content` to `accounts`, created as the API creates one: its
    jobs handed to whatever broker the test runs with."""
    from publishing import inputs, lifecycle

    return lifecycle.publish_create(
        team=owner.team,
        caller=inputs.Caller(user=owner.user),
        content=content,
        media_ids=[],
        targets=[inputs.TargetInput(account_id=str(a.pk)) for a in accounts],
        publish_mode="immediate",
        scheduled_at=None,
    )


# --- a delivery worker in its own process -----------------------------------------------------


def database_url() -> str:
    """The URL of the database the tests run on (the test database under transactional_db)."""
    db = settings.DATABASES["default"]
    credentials = quote(db["USER"] or "", safe="")
    if db.get("PASSWORD"):
        credentials += ":" + quote(db["PASSWORD"], safe="")
    host = f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    return f"postgres://{credentials}@{host}/{db['NAME']}"


_WORKER = """\
import sys
import django

django.setup()
from publishing.sending import job_run

job_run(job_id=sys.argv[1])
"""


def start_worker(*, job_id: str, sandbox_url: str, platform_timeout: float) -> subprocess.Popen[bytes]:
    """Run one delivery job in a separate Python process on the test database, as a Celery
    worker process would, with its own read timeout for platform calls."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(),
        "SANDBOX_URL": sandbox_url,
        "PLATFORM_TIMEOUT_SECONDS": str(platform_timeout),
        "DB_FIXED_STATEMENTS": str(settings.DB_FIXED_STATEMENTS),  # the path the test runs
    }
    return subprocess.Popen(  # noqa: S603 - our own interpreter running our own code
        [sys.executable, "-c", _WORKER, job_id],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
