"""Files on a loopback HTTP server, for the platforms that fetch media by URL themselves
(Instagram, Threads, Facebook, Pinterest, TikTok's PULL_FROM_URL): a Media's `pull_url()`
points here, and the stand-in fetches it as the platform would fetch our media URL."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


class FileServer:
    """Serves each registered file at `url(name)`; any other name answers 404. `hits` lists the
    paths asked for, in order."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[bytes, str]] = {}
        self.hits: list[str] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def add(self, name: str, data: bytes, content_type: str = "application/octet-stream") -> str:
        self.files[name] = (data, content_type)
        return self.url(name)

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self._httpd.server_port}/{name}"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.hits.append(self.path)
                data, content_type = server.files.get(urlsplit(self.path).path.lstrip("/"), (b"", ""))
                self.send_response(200 if content_type else 404)
                self.send_header("Content-Type", content_type or "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        return Handler


def serve_files() -> Iterator[FileServer]:
    """The body of a fixture: a FileServer for the test, closed after it."""
    server = FileServer()
    try:
        yield server
    finally:
        server.close()
