"""Each target's outcome is one INFO line, so `make run` shows what happened to a publish."""

from __future__ import annotations

import logging

import pytest


@pytest.mark.django_db
def test_each_target_s_outcome_is_one_info_line(api, owner, accounts, sandbox, caplog, eager_tasks):
    sandbox.outcomes("bluesky", "error")
    body = {
        "content": "Hello logs",
        "targets": [{"account_id": str(accounts.x.pk)}, {"account_id": str(accounts.bluesky.pk)}],
    }
    with caplog.at_level(logging.INFO, logger="publishing.delivery"):
        response = api.as_(owner.key).post("/api/v1/publishes", body, format="json")
    assert response.status_code == 201, response.json()
    publish_id = response.json()["data"]["id"]
    lines = [r.getMessage() for r in caplog.records if r.name == "publishing.delivery"]
    [x_line] = [line for line in lines if " to x:" in line]
    [bluesky_line] = [line for line in lines if " to bluesky:" in line]
    x_url = api.get(f"/api/v1/publishes/{publish_id}").json()["data"]["targets"][0]["platform_post_url"]
    assert x_line == f"Publish {publish_id} to x: published, {x_url}"
    assert bluesky_line.startswith(f"Publish {publish_id} to bluesky: failed, ")
