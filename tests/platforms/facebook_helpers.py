"""Shared pieces of the Facebook tests: a Page connection, media the stand-in can pull from the
loopback file server (Meta fetches `url`/`file_url` itself), and request reading.

Facebook Page ids are digit strings, so the test Page is one too.
"""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import parse_qsl

from accounts.platforms.base import Connection, Credentials, Media
from sandbox import tokens
from tests.media import files
from tests.platforms.file_server import FileServer

PAGE = "104242424242"


def connection(access_token: str | None = None, *, page: str = PAGE, refs: list[Any] | None = None) -> Connection:
    token = access_token if access_token is not None else tokens.issue("facebook", page)
    saved = refs if refs is not None else []
    return Connection(Credentials(access_token=token, external_id=page), sandbox=True, save_ref=saved.append)


def media(
    server: FileServer | None,
    data: bytes,
    content_type: str,
    *,
    name: str = "m1",
    size: int | None = None,
    duration: float | None = None,
    width: int = 64,
    height: int = 48,
) -> Media:
    url = server.add(name, data, content_type) if server else "http://127.0.0.1:9/unused"
    return Media(
        id=name,
        content_type=content_type,
        size_bytes=len(data) if size is None else size,
        width=width,
        height=height,
        duration_seconds=duration,
        open=lambda: io.BytesIO(data),
        pull_url=lambda: url,
    )


def image(server: FileServer | None, name: str = "img.png") -> Media:
    return media(server, files.image("PNG"), "image/png", name=name)


def video(server: FileServer | None, seconds: float = 5.0, *, reel: bool = False) -> Media:
    size = (1080, 1920) if reel else (640, 360)
    data = files.video(seconds=seconds, width=size[0], height=size[1])
    return media(server, data, "video/mp4", name="clip.mp4", duration=seconds, width=size[0], height=size[1])


def logged(state: Any, method: str, path_end: str) -> list[dict[str, Any]]:
    return [r for r in state.requests if r["method"] == method and r["path"].endswith(path_end)]


def form(request: dict[str, Any]) -> dict[str, str]:
    """A logged request's query and form-encoded body, as Graph reads them together."""
    body = request["body"].decode() if "urlencoded" in request["headers"].get("Content-Type", "") else ""
    return {**dict(parse_qsl(request["query"])), **dict(parse_qsl(body))}
