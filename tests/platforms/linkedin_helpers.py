"""Shared builders for the LinkedIn client tests: a sandbox connection, media, and request reading.

The test member's id is a bare LinkedIn person id (as `/v2/userinfo` gives in `sub`); the
client builds `urn:li:person:{id}` from it.
"""

from __future__ import annotations

import io
import json
from typing import Any

from accounts.platforms.base import Connection, Credentials, Media
from sandbox import tokens
from tests.media import files

ACCOUNT = "abc123XYZ"
AUTHOR = f"urn:li:person:{ACCOUNT}"
HOST = "/api.linkedin.com"


def connection(
    access_token: str | None = None,
    *,
    account: str = ACCOUNT,
    external_id: str | None = None,
    refs: list[Any] | None = None,
) -> Connection:
    token = access_token if access_token is not None else tokens.issue("linkedin", account)
    saved = refs if refs is not None else []
    credentials = Credentials(access_token=token, external_id=account if external_id is None else external_id)
    return Connection(credentials, sandbox=True, save_ref=saved.append)


def media(
    data: bytes, content_type: str, *, media_id: str = "m1", size: int | None = None, duration: float | None = None
) -> Media:
    return Media(
        id=media_id,
        content_type=content_type,
        size_bytes=len(data) if size is None else size,
        width=64,
        height=48,
        duration_seconds=duration,
        open=lambda: io.BytesIO(data),
        pull_url=lambda: "http://unused",
    )


def image(fmt: str = "PNG", content_type: str = "image/png", media_id: str = "img") -> Media:
    return media(files.image(fmt), content_type, media_id=media_id)


def video(seconds: float = 5.0) -> Media:
    return media(files.video(seconds=seconds), "video/mp4", media_id="vid", duration=seconds)


def logged(state: Any, method: str, path_end: str) -> list[dict[str, Any]]:
    """Requests the sandbox received whose path ends with `path_end`."""
    return [r for r in state.requests if r["method"] == method and r["path"].endswith(path_end)]


def post_bodies(state: Any) -> list[dict[str, Any]]:
    return [json.loads(r["body"]) for r in logged(state, "POST", f"{HOST}/rest/posts")]
