"""Shared pieces of the TikTok tests: a sandbox connection, media the stand-in can pull from a
small loopback HTTP server, and reading what the sandbox received."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

from accounts.platforms.base import Connection, Credentials, Media
from sandbox import tokens
from tests.media import files
from tests.platforms.file_server import FileServer

ACCOUNT = "tiktok-open-4242"
HANDLE = "tiktok_open_4242"  # the username the stand-in derives from the open_id


def connection(access_token: str | None = None, *, refresh_token: str | None = None) -> Connection:
    token = access_token if access_token is not None else tokens.issue("tiktok", ACCOUNT)
    refresh = refresh_token if refresh_token is not None else tokens.issue("tiktok", ACCOUNT, kind="sbr")
    saved: list[dict[str, str]] = []
    credentials = Credentials(access_token=token, refresh_token=refresh, external_id=ACCOUNT)
    conn = Connection(credentials, sandbox=True, save_ref=lambda ref: saved.append(dict(ref)))
    conn.saved = saved  # type: ignore[attr-defined]
    return conn


class MediaServer(FileServer):
    """The loopback file server, with builders of Media it serves (what media.pull_url() gives)."""

    def media(self, data: bytes, content_type: str, *, name: str = "", **facts: Any) -> Media:
        name = name or f"m{len(self.files)}"
        self.files[name] = (data, content_type)
        return Media(
            id=name,
            content_type=content_type,
            size_bytes=facts.get("size", len(data)),
            width=facts.get("width", 1080),
            height=facts.get("height", 1920),
            duration_seconds=facts.get("duration", 2.5 if content_type.startswith("video/") else None),
            open=lambda: io.BytesIO(data),
            pull_url=lambda: self.url(name),
        )

    def jpeg(self, name: str = "") -> Media:
        return self.media(files.image("JPEG"), "image/jpeg", name=name)

    def webp(self, name: str = "") -> Media:
        return self.media(files.image("WEBP"), "image/webp", name=name)

    def mp4(self, data: bytes | None = None, name: str = "") -> Media:
        return self.media(data if data is not None else files.video(), "video/mp4", name=name)


def media_server() -> Iterator[MediaServer]:
    server = MediaServer()
    try:
        yield server
    finally:
        server.close()


def logged(sandbox: Any, method: str, path_end: str) -> list[dict[str, Any]]:
    return [r for r in sandbox.state.requests if r["method"] == method and r["path"].endswith(path_end)]


def bodies(sandbox: Any, path_end: str) -> list[dict[str, Any]]:
    return [json.loads(r["body"]) for r in logged(sandbox, "POST", path_end)]


def stored(sandbox: Any) -> list[Any]:
    return sandbox.state.posts_of("tiktok")
