"""`python -m sandbox`: serve the sandbox on 127.0.0.1:$SANDBOX_PORT (default 8100)."""

from __future__ import annotations

import os

from sandbox.app import create_app
from sandbox.server import make_sandbox_server


def main() -> None:
    port = int(os.environ.get("SANDBOX_PORT", "8100"))
    server = make_sandbox_server("127.0.0.1", port, create_app())
    print(f"Platform sandbox on http://127.0.0.1:{port} (control API under /_sandbox/)", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
