"""Fixtures of the publishing tests: sandbox accounts of the persona team, uploaded media,
and Celery in eager mode so dispatched jobs run inside the test, over real HTTP to the
sandbox."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.platforms.instagram import Client as InstagramClient
from accounts.platforms.threads import Client as ThreadsClient
from demo.seed import sandbox_account
from tests.media import files


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


@pytest.fixture
def upload(settings, tmp_path):
    """`upload(team, kind=...)`: a confirmed upload of a real PNG, JPEG or MP4 file, made as the
    API makes it (register, store the bytes, confirm); `confirmed=False` stops before the confirm."""
    settings.MEDIA_ROOT = str(tmp_path / "media")

    def make(team, *, kind="image", confirmed=True):
        data, content_type, name = {
            "image": (files.image(), "image/png", "photo.png"),
            "jpeg": (files.image("JPEG"), "image/jpeg", "photo.jpg"),
            "video": (files.video(), "video/mp4", "clip.mp4"),
        }[kind]
        return files.stored_upload(team, data, content_type, name, confirmed=confirmed)

    return make


@pytest.fixture
def pulled(live_server, settings, tmp_path, monkeypatch):
    """Instagram and Threads pull media from this service over real HTTP, without pauses."""
    settings.PUBLIC_BASE_URL = live_server.url
    settings.MEDIA_ROOT = str(tmp_path / "media")
    monkeypatch.setattr(InstagramClient, "poll_seconds", 0.0)
    monkeypatch.setattr(ThreadsClient, "poll_seconds", 0.0)
    return live_server
