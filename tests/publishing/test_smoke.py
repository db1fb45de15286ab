from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_an_immediate_publish_reaches_the_sandbox(api, owner, accounts, sandbox):
    body = {
        "content": "Hello world",
        "targets": [{"account_id": str(accounts.x.pk)}, {"account_id": str(accounts.bluesky.pk)}],
    }
    response = api.as_(owner.key).post("/api/v1/publishes", body, format="json")
    assert response.status_code == 201, response.json()
    data = response.json()["data"]
    assert data["status"] == "publishing"
    got = api.get(f"/api/v1/publishes/{data['id']}").json()["data"]
    assert got["status"] == "published", got
    assert {p["platform"] for p in sandbox.posts()} == {"x", "bluesky"}
