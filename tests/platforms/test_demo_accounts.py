"""seed_demo's accounts are connected to the sandbox: each publishes through its real client."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from accounts.models import SocialAccount
from accounts.platforms.base import Media, OutcomeKind, Post
from accounts.platforms.registry import client_for
from accounts.services import account_note_outcome as note_outcome
from accounts.services import connection_for
from demo.seed import PINTEREST_BOARD_ID, seed
from tests.media import files

pytestmark = pytest.mark.django_db

JPEG = files.image("JPEG", (1080, 1080))
MP4 = files.video(seconds=5.0, width=1080, height=1920)


@pytest.fixture
def media_server() -> Iterator[str]:
    """Serves the files platforms pull by URL (Instagram, Threads, Pinterest, TikTok...)."""
    payloads = {"/photo.jpg": (JPEG, "image/jpeg"), "/clip.mp4": (MP4, "video/mp4")}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body, content_type = payloads[self.path]
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def _media(base: str, data: bytes, content_type: str, path: str, **facts: float | int) -> Media:
    return Media(
        id=path,
        content_type=content_type,
        size_bytes=len(data),
        width=1080,
        height=int(facts.get("height", 1080)),
        duration_seconds=float(facts["seconds"]) if "seconds" in facts else None,
        open=lambda: io.BytesIO(data),
        pull_url=lambda: f"{base}{path}",
    )


def _post(platform: str, base: str) -> Post:
    photo = _media(base, JPEG, "image/jpeg", "/photo.jpg")
    clip = _media(base, MP4, "video/mp4", "/clip.mp4", seconds=5.0, height=1920)
    posts = {
        "instagram": Post(text="Demo caption", media=[photo]),
        "pinterest": Post(text="Demo pin", media=[photo], settings={"boardId": PINTEREST_BOARD_ID}),
        "youtube": Post(text="Demo video", media=[clip], settings={"title": "Demo"}),
        "tiktok": Post(text="Demo clip", media=[clip]),
    }
    return posts.get(platform, Post(text=f"Hello from the {platform} demo account"))


@pytest.mark.parametrize(
    "platform", ["x", "instagram", "tiktok", "youtube", "facebook", "linkedin", "pinterest", "threads", "bluesky"]
)
def test_every_demo_account_publishes_to_the_sandbox(sandbox, media_server, platform):
    data = seed(fresh=True)
    account = SocialAccount.objects.get(pk=data.accounts["acme"][platform].pk)
    client = client_for(platform)
    post = _post(platform, media_server)
    assert client.validate(post) == []

    outcome = client.publish(connection_for(account), post)
    for _ in range(5):  # processing platforms settle after a few status checks
        if outcome.kind != OutcomeKind.PROCESSING:
            break
        outcome = client.check(connection_for(account), outcome.ref)

    assert outcome.kind == OutcomeKind.PUBLISHED, (outcome.error_code, outcome.error_message)
    assert [p for p in sandbox.posts(platform) if p["account"] == account.external_id]


def test_the_expired_demo_account_is_refused_by_the_sandbox(sandbox):
    data = seed(fresh=True)
    account = SocialAccount.objects.get(pk=data.accounts["acme"]["x_expired"].pk)

    outcome = client_for("x").publish(connection_for(account), Post(text="Should not go out"))

    assert outcome.kind == OutcomeKind.FAILED
    assert outcome.auth_failed
    assert sandbox.posts("x") == []


def test_a_refused_token_during_publish_expires_the_account(sandbox):
    data = seed(fresh=True)
    account = SocialAccount.objects.get(pk=data.accounts["acme"]["bluesky"].pk)
    sandbox.state.revoked.add(account.access_token)

    outcome = client_for("bluesky").publish(connection_for(account), Post(text="Refused"))
    note_outcome(account=account, outcome=outcome)

    account.refresh_from_db()
    assert account.status == "expired"
    assert "Re-authorize" in account.status_reason


def test_bluesky_videos_are_held_to_the_blob_upload_limit():
    big = Media("v", "video/mp4", 60 * 1024 * 1024, 1080, 1920, 10.0, open=io.BytesIO, pull_url=str)

    problems = client_for("bluesky").validate(Post(text="", media=[big]))

    assert [(p.field, p.code) for p in problems] == [("media[0]", "MEDIA_TOO_LARGE")]
