"""A file's description travels with it: a publish of a described image reaches each network
that takes alt text with it, as the sandbox's post page shows."""

from __future__ import annotations

import pytest
import requests

from tests.media import files

pytestmark = pytest.mark.django_db


def test_a_publish_of_a_described_image_reaches_the_sandbox_with_its_alt_text(
    api, owner, accounts, sandbox, settings, tmp_path
):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    media_id = files.stored_upload(owner.team, files.image(), "image/png", "chart.png")
    described = api.as_(owner.key).patch(
        f"/api/v1/media/uploads/{media_id}", {"alt_text": "Sales doubled in May"}, format="json"
    )
    assert described.status_code == 200
    networks = ("x", "bluesky", "linkedin")
    body = {
        "content": "Our month",
        "media_ids": [media_id],
        "targets": [{"account_id": str(getattr(accounts, n).pk)} for n in networks],
    }

    response = api.as_(owner.key).post("/api/v1/publishes", body, format="json")

    assert response.status_code == 201, response.json()
    posts = {p["platform"]: p for p in sandbox.posts()}
    assert sorted(posts) == sorted(networks)
    for platform, post in posts.items():
        page = requests.get(f"{sandbox.url}/_sandbox/posts/{platform}/{post['id']}", timeout=5).text
        assert "Sales doubled in May" in page, platform
