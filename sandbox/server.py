"""The sandbox's HTTP server: werkzeug's, keeping headers whose names contain underscores.

werkzeug (like nginx by default) drops such headers, but some platforms define them (Facebook's
rupload takes `file_size` and `file_url`), and the stand-in must see what the platform sees.
"""

from __future__ import annotations

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from sandbox.app import SandboxApp


class _Handler(WSGIRequestHandler):
    def make_environ(self) -> dict[str, object]:
        environ: dict[str, object] = dict(super().make_environ())
        for key, value in self.headers.items():
            if "_" in key:
                environ.setdefault("HTTP_" + key.upper().replace("-", "_"), value)
        return environ


def make_sandbox_server(host: str, port: int, app: SandboxApp) -> BaseWSGIServer:
    return make_server(host, port, app, threaded=True, request_handler=_Handler)
