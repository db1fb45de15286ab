"""Shared pieces of the Pinterest tests: a sandbox connection, media Pinterest pulls from a real
file server on loopback, and the logged requests.

The sandbox fetches `image_url`s itself, so images are served by a small http.server on
127.0.0.1 (`serve()`) and each Media's `pull_url` points there.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from accounts.platforms.base import Connection, Credentials, Media
from sandbox import tokens
from tests.media import files

ACCOUNT = "7700112233"
BOARD = "549755885175"


class Origin:
    """Files served on loopback: `add(name, data)` gives the URL Pinterest may pull."""

    def __init__(self, url: str, routes: dict[str, bytes]) -> None:
        self.url, self.routes = url, routes

    def add(self, name: str, data: bytes) -> str:
        self.routes[f"/{name}"] = data
        return f"{self.url}/{name}"


def _handler(routes: dict[str, bytes]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = routes.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serve() -> Iterator[Origin]:
    """A file server on 127.0.0.1 for the length of a test (wrap it in an `origin` fixture)."""
    routes: dict[str, bytes] = {}
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(routes))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Origin(f"http://127.0.0.1:{server.server_port}", routes)
    finally:
        server.shutdown()
        server.server_close()


def connection(access_token: str | None = None, *, account: str = ACCOUNT, refs: list[Any] | None = None) -> Connection:
    token = access_token if access_token is not None else tokens.issue("pinterest", account)
    saved = refs if refs is not None else []
    return Connection(Credentials(access_token=token, external_id=account), sandbox=True, save_ref=saved.append)


def media(
    data: bytes,
    content_type: str,
    *,
    origin: Origin | None = None,
    media_id: str = "m1",
    size: int | None = None,
    duration: float | None = None,
    dimensions: tuple[int, int] = (64, 48),
) -> Media:
    url = origin.add(media_id, data) if origin else "http://unused"
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
    origin: Origin | None = None, fmt: str = "PNG", content_type: str = "image/png", media_id: str = "img"
) -> Media:
    return media(files.image(fmt), content_type, origin=origin, media_id=media_id)


def video(seconds: float = 5.0) -> Media:
    return media(files.video(seconds=seconds), "video/mp4", media_id="vid", duration=seconds)


def logged(state: Any, method: str, path_end: str) -> list[dict[str, Any]]:
    """Requests the sandbox received whose path ends with `path_end`."""
    return [r for r in state.requests if r["method"] == method and r["path"].endswith(path_end)]


def pin_bodies(state: Any) -> list[dict[str, Any]]:
    return [json.loads(r["body"]) for r in logged(state, "POST", "/api.pinterest.com/v5/pins")]
