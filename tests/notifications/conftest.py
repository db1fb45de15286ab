"""Fixtures of the notification tests: Celery in eager mode (a queued mail is sent inside the
test, through Django's locmem backend: `mail.outbox`), sandbox accounts of the persona team and
a mail server that refuses on cue."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.notifications.backends import FlakyBackend


@pytest.fixture(autouse=True)
def _eager(eager_tasks: None, settings: Any) -> None:
    settings.PUBLIC_BASE_URL = "https://social.example.com"


@pytest.fixture
def flaky_mail_server(settings: Any) -> Iterator[type[FlakyBackend]]:
    """The mail server refuses as `FlakyBackend.refusals` says. Celery runs a retry at once,
    as eager mode does when failures are not propagated to the caller."""
    from config.celery import app

    settings.EMAIL_BACKEND = "tests.notifications.backends.FlakyBackend"
    FlakyBackend.refusals = []
    saved, app.conf.task_eager_propagates = app.conf.task_eager_propagates, False
    yield FlakyBackend
    app.conf.task_eager_propagates = saved
