"""Shared pieces of the Threads tests: a sandbox connection, media Meta can pull from a small
HTTP server on loopback, and reading what the stand-in received.

Threads user ids are digit strings, so the test account is one too.
"""

from __future__ import annotations

import http.server
import io
import threading
from typing import Any
from urllib.parse import parse_qsl

from accounts.platforms.base import Connection, Credentials, Media
from sandbox import tokens
from tests.media import files

ACCOUNT = "7100000000000001"


def connection(access_token: str | None = None, *, account: str = ACCOUNT, refs: list[Any] | None = None) -> Connection:
    token = access_token if access_token is not None else tokens.issue("threads", account, lifetime_seconds=86400)
    saved = refs if refs is not None else []
    return Connection(
        Credentials(access_token=token, external_id=account), sandbox=True, save_ref=lambda r: saved.append(dict(r))
    )


class MediaServer:
    """Serves registered bytes at http://127.0.0.1:<port>/<name>, as our media URLs would."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[bytes, str]] = {}
        self.hits: list[str] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.hits.append(self.path)
                data, kind = server.files.get(self.path.lstrip("/"), (b"", ""))
                self.send_response(200 if kind else 404)
                self.send_header("Content-Type", kind or "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_port}/{name}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def media(self, data: bytes, content_type: str, *, name: str = "m1", **facts: Any) -> Media:
        self.files[name] = (data, content_type)
        return make_media(data, content_type, pull_url=self.url(name), name=name, **facts)

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
