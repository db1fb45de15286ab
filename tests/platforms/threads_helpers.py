"""Shared pieces of the Threads tests: a sandbox connection, media Meta can pull from a small
HTTP server on loopback, and reading what the stand-in received.

Threads user ids are digit strings, so the test account is one too.
"""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import parse_qsl

from accounts.platforms.base import Connection, Credentials, Media
from sandbox import tokens
from tests.media import files
from tests.platforms.file_server import FileServer

ACCOUNT = "7100000000000001"


def connection(access_token: str | None = None, *, account: str = ACCOUNT, refs: list[Any] | None = None) -> Connection:
    token = access_token if access_token is not None else tokens.issue("threads", account, lifetime_seconds=86400)
    saved = refs if refs is not None else []
    return Connection(
        Credentials(access_token=token, external_id=account), sandbox=True, save_ref=lambda r: saved.append(dict(r))
    )


class MediaServer(FileServer):
    """The loopback file server, with builders of Media it serves."""

    def media(self, data: bytes, content_type: str, *, name: str = "m1", **facts: Any) -> Media:
        return make_media(data, content_type, pull_url=self.add(name, data, content_type), name=name, **facts)

    def image(self, fmt: str = "PNG", *, name: str = "img") -> Media:
        return self.media(files.image(fmt), f"image/{fmt.lower()}", name=name)

    def video(self, *, seconds: float = 2.5, name: str = "vid") -> Media:
        return self.media(files.video(seconds=seconds), "video/mp4", name=name, duration=seconds)


def make_media(
    data: bytes, content_type: str, *, pull_url: str = "http://unused", name: str = "m1", **facts: Any
) -> Media:
    return Media(
        id=name,
        content_type=content_type,
        size_bytes=facts.get("size", len(data)),
        width=facts.get("width", 64),
        height=facts.get("height", 48),
        duration_seconds=facts.get("duration"),
        open=lambda: io.BytesIO(data),
        pull_url=lambda: pull_url,
    )


def logged(state: Any, method: str, path_end: str) -> list[dict[str, Any]]:
    """Requests the sandbox received whose path ends with `path_end`."""
    return [r for r in state.requests if r["method"] == method and r["path"].endswith(path_end)]


def params_of(request: dict[str, Any]) -> dict[str, str]:
    """A logged request's parameters: the query string and a form body together."""
    form = parse_qsl(request["body"].decode()) if request["body"] else []
    return dict(parse_qsl(request["query"]) + form)


def containers(state: Any) -> list[dict[str, str]]:
    return [params_of(r) for r in logged(state, "POST", f"/{ACCOUNT}/threads")]
