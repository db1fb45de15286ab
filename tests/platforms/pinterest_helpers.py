"""Shared pieces of the Pinterest tests: a sandbox connection, media Pinterest pulls from the
loopback file server (the sandbox fetches `image_url`s itself, so each Media's `pull_url`
points there), and the logged requests.
"""

from __future__ import annotations

import io
import json
from typing import Any

from accounts.platforms.base import Connection, Credentials, Media
from sandbox import tokens
from tests.media import files
from tests.platforms.file_server import FileServer

ACCOUNT = "7700112233"
BOARD = "549755885175"


def connection(access_token: str | None = None, *, account: str = ACCOUNT, refs: list[Any] | None = None) -> Connection:
    token = access_token if access_token is not None else tokens.issue("pinterest", account)
    saved = refs if refs is not None else []
    return Connection(Credentials(access_token=token, external_id=account), sandbox=True, save_ref=saved.append)


def media(
    data: bytes,
    content_type: str,
    *,
    origin: FileServer | None = None,
    media_id: str = "m1",
    size: int | None = None,
    duration: float | None = None,
    dimensions: tuple[int, int] = (64, 48),
) -> Media:
    url = origin.add(media_id, data, content_type) if origin else "http://unused"
    return Media(
        id=media_id,
        content_type=content_type,
        size_bytes=len(data) if size is None else size,
        width=dimensions[0],
        height=dimensions[1],
        duration_seconds=duration,
        open=lambda: io.BytesIO(data),
        pull_url=lambda: url,
    )


def image(
    origin: FileServer | None = None, fmt: str = "PNG", content_type: str = "image/png", media_id: str = "img"
) -> Media:
    return media(files.image(fmt), content_type, origin=origin, media_id=media_id)


def video(seconds: float = 5.0) -> Media:
    return media(files.video(seconds=seconds), "video/mp4", media_id="vid", duration=seconds)


def logged(state: Any, method: str, path_end: str) -> list[dict[str, Any]]:
    """Requests the sandbox received whose path ends with `path_end`."""
    return [r for r in state.requests if r["method"] == method and r["path"].endswith(path_end)]


def pin_bodies(state: Any) -> list[dict[str, Any]]:
    return [json.loads(r["body"]) for r in logged(state, "POST", "/api.pinterest.com/v5/pins")]
