"""Fixtures of the webhook tests: a receiver on loopback (private addresses allowed, as in
demos), one that is down, and Celery in eager mode so queued deliveries run in the test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from config import outbound
from tests.factories import UserFactory
from tests.webhooks.receiver import Receiver


@pytest.fixture(autouse=True)
def _eager(eager_tasks: None) -> None:
    """Every `deliver.delay()` (after commit, from the sweep, from the admin) runs at once in
    the test instead of going to a broker with no worker."""


@pytest.fixture(autouse=True)
def _no_idle_connections() -> Iterator[None]:
    """Keep-alive connections to a test's receiver end with the test, so the next test (which
    may get the same port) starts on fresh connections."""
    yield
    outbound.close_idle_connections()


@pytest.fixture
def receiver(settings: Any) -> Iterator[Receiver]:
    settings.SSRF_ALLOW_PRIVATE = True
    server = Receiver().start()
    yield server
    server.stop()


@pytest.fixture
def down_receiver(settings: Any) -> Iterator[Receiver]:
    """Its port is bound but not listening, so connecting is refused until `.start()`."""
    settings.SSRF_ALLOW_PRIVATE = True
    server = Receiver()
    yield server
    server.stop()


@pytest.fixture
def no_retry_delay(settings: Any) -> None:
    settings.WEBHOOK_RETRY_DELAYS = [0, 0, 0, 0, 0]


@pytest.fixture
def staff_client(client: Any, db: None) -> Any:
    client.force_login(UserFactory(username="staff", is_staff=True, is_superuser=True))
    return client
