"""Fixtures of the analytics tests: the publishing fixtures (sandbox accounts, eager Celery),
and helpers to publish through the API and to set what the sandbox platforms report."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from publishing.models import Target
from tests.publishing.conftest import Accounts, _eager, accounts

__all__ = ["_eager", "accounts"]


class Posts:
    """Publishes through the API as the persona's key, and sets their metrics on the sandbox."""

    def __init__(self, api: Any, key: str, sandbox: Any) -> None:
        self.api, self.key, self.sandbox = api, key, sandbox

    def publish(self, *accounts: Any, content: str = "Hello analytics", **body: Any) -> str:
        targets = [{"account_id": str(account.pk)} for account in accounts]
        response = self.api.as_(self.key).post(
            "/api/v1/publishes", {"content": content, "targets": targets, **body}, format="json"
        )
        assert response.status_code == 201, response.json()
        return str(response.json()["data"]["id"])

    def target(self, publish_id: str, platform: str) -> Target:
        return Target.objects.get(publish_id=publish_id, platform=platform)

    def set_metrics(self, publish_id: str, platform: str, **values: int) -> None:
        post_id = self.target(publish_id, platform).platform_post_id
        body = {"platform": platform, "post_id": post_id, **values}
        response = requests.post(f"{self.sandbox.url}/_sandbox/metrics", json=body, timeout=5)
        assert response.status_code == 200, response.text


@pytest.fixture
def posts(api: Any, owner: Any, sandbox: Any) -> Posts:
    return Posts(api, owner.key, sandbox)


@pytest.fixture
def other_posts(outsider: Any, sandbox: Any) -> tuple[Posts, Accounts]:
    from tests.conftest import Api

    return Posts(Api(), outsider.key, sandbox), Accounts(outsider.team)
