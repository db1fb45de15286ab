"""Shared pieces of the Instagram tests: a sandbox connection, media on the loopback file server
the stand-in pulls `image_url`/`video_url` from (as Instagram fetches them itself), and readers
of what the sandbox received."""

from __future__ import annotations

import io
import json
from typing import Any
from urllib.parse import parse_qsl

from accounts.platforms import base
from sandbox import tokens
from tests.media import files
from tests.platforms.file_server import FileServer

ACCOUNT = "17841400000000001"  # Instagram professional account ids are digit strings
LONG_LIVED = 60 * 86400


def connection(*, access_token: str | None = None, account: str = ACCOUNT) -> base.Connection:
    saved: list[dict[str, str]] = []
    token = (
        access_token if access_token is not None else tokens.issue("instagram", account, lifetime_seconds=LONG_LIVED)
    )
    credentials = base.Credentials(access_token=token, external_id=account, handle="sandbox_acme")
    conn = base.Connection(credentials, sandbox=True, save_ref=lambda ref: saved.append(dict(ref)))
    conn.saved = saved  # type: ignore[attr-defined]
    return conn


def media(
    server: FileServer | None,
    data: bytes,
    content_type: str,
    *,
    size: int | None = None,
    width: int | None = 64,
    height: int | None = 48,
    duration: float | None = None,
) -> base.Media:
    url = server.add(f"media/{len(server.files) + 1}", data, content_type) if server else "http://127.0.0.1:9/unused"
    return base.Media(
        id=f"m-{len(data)}",
        content_type=content_type,
        size_bytes=len(data) if size is None else size,
        width=width,
        height=height,
        duration_seconds=duration,
        open=lambda: io.BytesIO(data),
        pull_url=lambda: url,
    )


def jpeg(server: FileServer | None) -> base.Media:
    return media(server, files.image("JPEG"), "image/jpeg")


def mp4(server: FileServer | None, seconds: float = 4.0) -> base.Media:
    return media(server, files.video(seconds=seconds), "video/mp4", width=640, height=360, duration=seconds)


def logged(sandbox: Any, method: str, path_end: str) -> list[dict[str, Any]]:
    return [
        r
        for r in sandbox.state.requests
        if r["method"] == method and r["path"].startswith("/graph.instagram.com/") and r["path"].endswith(path_end)
    ]


def params_of(request: dict[str, Any]) -> dict[str, Any]:
    """The Graph parameters of a logged request: its query plus a JSON or form body."""
    found: dict[str, Any] = dict(parse_qsl(request["query"]))
    content_type = request["headers"].get("Content-Type", "")
    if content_type.startswith("application/json"):
        found.update(json.loads(request["body"]))
    elif content_type.startswith("application/x-www-form-urlencoded"):
        found.update(parse_qsl(request["body"].decode()))
    return found


def container_bodies(sandbox: Any) -> list[dict[str, Any]]:
    return [params_of(r) for r in logged(sandbox, "POST", "/media")]


def stored(sandbox: Any) -> list[Any]:
    return sandbox.state.posts_of("instagram")
