"""The sandbox's HTTP server: werkzeug's, keeping headers whose names contain underscores and
connections alive between requests, as the platforms do.

werkzeug (like nginx by default) drops such headers, but some platforms define them (Facebook's
rupload takes `file_size` and `file_url`), and the stand-in must see what the platform sees.

werkzeug also closes every connection after its answer, because Python's http.server cannot
skip what an application left unread of a request body before the next request line (and,
after the answer, it reads whatever else the client sends, which would swallow that next
request). Here a body of known length up to KEEP_ALIVE_BODY is read in full before the
application runs, so nothing can be left unread: the connection stays open for the client's
next request, as it would with the real platform (clients reuse one connection per host),
and werkzeug's after-answer read is pointed at an empty stream. A larger or chunked body is
streamed to the application as before, and that answer closes the connection.
"""

from __future__ import annotations

import io

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from sandbox.app import SandboxApp

KEEP_ALIVE_BODY = 1024 * 1024


class _Handler(WSGIRequestHandler):
    keep_alive = False  # this request's body was read in full: its connection may stay open
    # werkzeug writes an answer's headers and body apart; on a connection kept open, Nagle's
    # algorithm would hold the body back until the client's delayed ACK of the headers.
    disable_nagle_algorithm = True

    def parse_request(self) -> bool:
        self.keep_alive = False  # until this request's body is read in full
        return super().parse_request()

    def make_environ(self) -> dict[str, object]:
        environ: dict[str, object] = dict(super().make_environ())
        for key, value in self.headers.items():
            if "_" in key:
                environ.setdefault("HTTP_" + key.upper().replace("-", "_"), value)
        self.keep_alive = self._buffer_body(environ)
        return environ

    def _buffer_body(self, environ: dict[str, object]) -> bool:
        """Read a body of known, bounded length into memory; True when nothing is left unread."""
        if environ.get("wsgi.input_terminated"):  # chunked
            return False
        length = str(environ.get("CONTENT_LENGTH") or "0")
        size = int(length) if length.isdigit() else KEEP_ALIVE_BODY + 1
        if size > KEEP_ALIVE_BODY:
            return False
        body = self.rfile.read(size) if size else b""
        if len(body) != size:  # the client went away mid-body
            return False
        environ["wsgi.input"] = io.BytesIO(body)
        self.rfile = io.BytesIO()  # what werkzeug drains after the answer
        return True

    def run_wsgi(self) -> None:
        connection_input = self.rfile
        try:
            super().run_wsgi()
        finally:
            self.rfile = connection_input  # the next request line comes from the connection

    def send_header(self, keyword: str, value: str) -> None:
        if keyword.lower() == "connection" and value.lower() == "close" and self.keep_alive:
            return  # werkzeug's blanket close: not needed when the body was read in full
        super().send_header(keyword, value)


def make_sandbox_server(host: str, port: int, app: SandboxApp) -> BaseWSGIServer:
    return make_server(host, port, app, threaded=True, request_handler=_Handler)
