"""Shared builders for the YouTube client tests: a sandbox connection, a video, request logs."""

from __future__ import annotations

import io
import json
from typing import Any

from accounts.platforms.base import Connection, Credentials, Media, Post
from sandbox import tokens
from tests.media import files

CHANNEL = "UCsandboxChannel00000001"  # a channel id: "UC" + 22 characters


def connection(access_token: str | None = None, *, refresh_token: str | None = None) -> Connection:
    token = access_token if access_token is not None else tokens.issue("youtube", CHANNEL)
    refresh = refresh_token if refresh_token is not None else tokens.issue("youtube", CHANNEL, kind="sbr")
    saved: list[dict[str, str]] = []
    credentials = Credentials(access_token=token, refresh_token=refresh, external_id=CHANNEL)
    conn = Connection(credentials, sandbox=True, save_ref=lambda ref: saved.append(dict(ref)))
    conn.saved = saved  # type: ignore[attr-defined]
    return conn


def media(data: bytes, content_type: str, *, size: int | None = None, duration: float | None = 2.5) -> Media:
    return Media(
        id=f"m-{len(data)}",
        content_type=content_type,
        size_bytes=len(data) if size is None else size,
        width=640,
        height=360,
        duration_seconds=duration,
        open=lambda: io.BytesIO(data),
        pull_url=lambda: "http://unused",
    )


def video(padding: int = 0) -> Media:
    """A real MP4; `padding` zero bytes after it make a file that needs several chunks."""
    return media(files.video() + b"\0" * padding, "video/mp4")


def post(text: str = "A description", title: str = "A title", **settings: Any) -> Post:
    return Post(text=text, media=[video()], settings={"title": title, **settings})


def logged(sandbox: Any, method: str, path_end: str) -> list[dict[str, Any]]:
    return [r for r in sandbox.state.requests if r["method"] == method and r["path"].endswith(path_end)]


def insert_bodies(sandbox: Any) -> list[dict[str, Any]]:
    """The Video resources of every session-opening POST, in order."""
    return [json.loads(r["body"]) for r in logged(sandbox, "POST", "/upload/youtube/v3/videos")]
