"""Fixtures of the publishing tests: sandbox accounts of the persona team, uploaded media,
and Celery in eager mode so dispatched jobs run inside the test, over real HTTP to the
sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from config.celery import app as celery_app
from teams.demo import sandbox_account


@pytest.fixture(autouse=True)
def eager_tasks() -> Iterator[None]:
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager, conf.task_eager_propagates = True, True
    yield
    conf.task_always_eager, conf.task_eager_propagates = saved


class Accounts:
    """`accounts.x`, `accounts.bluesky`...: one sandbox account per platform of a team, made on
    first use."""

    def __init__(self, team: Any) -> None:
        self._team = team
        self._made: dict[str, Any] = {}

    def __getattr__(self, platform: str) -> Any:
        if platform.startswith("_"):
            raise AttributeError(platform)
        if platform not in self._made:
            self._made[platform] = sandbox_account(self._team, platform)
        return self._made[platform]


@pytest.fixture
def accounts(team: Any) -> Accounts:
    return Accounts(team)
