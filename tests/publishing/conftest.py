"""Fixtures of the publishing tests: sandbox accounts of the persona team, uploaded media,
and Celery in eager mode so dispatched jobs run inside the test, over real HTTP to the
sandbox."""

from __future__ import annotations

from typing import Any

import pytest

from demo.seed import sandbox_account


@pytest.fixture(autouse=True)
def _eager(eager_tasks: None) -> None:
    """Dispatched jobs run inside the test, over real HTTP to the sandbox."""


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
