"""Webhook deliveries per second from one Celery worker to a local receiver.

The whole pipeline runs for real: N events are emitted into the outbox in one transaction,
their delivery messages go through the broker (a scratch folder broker, or Redis when
REDIS_URL is set), and one worker process (`celery worker -Q webhooks -c 1`) signs and POSTs
each to a receiver on loopback, recording every attempt in the database.

    .venv/bin/python bench/webhook_throughput.py [EVENTS]     # default 500
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class _Receiver(BaseHTTPRequestHandler):
    times: list[float] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.times.append(time.monotonic())
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def _emit(env: dict[str, str], url: str, events: int) -> None:
    script = (
        "from django.contrib.auth.models import User\n"
        "from django.db import transaction\n"
        "from teams.services import team_create\n"
        "from webhooks import services\n"
        "team = team_create(name='bench', owner=User.objects.create(username='bench'))\n"
        f"services.subscription_create(team=team, url='{url}', events=['post.published'])\n"
        "with transaction.atomic():\n"
        f"    for n in range({events}):\n"
        "        services.emit(team=team, event_type='post.published', data={'publish_id': str(n)})\n"
    )
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v0"], cwd=ROOT, env=env, check=True)  # noqa: S603
    subprocess.run([*manage, "shell", "-c", script], cwd=ROOT, env=env, check=True)  # noqa: S603


def main(events: int) -> int:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            **os.environ,
            "DATABASE_URL": os.environ.get("BENCH_DATABASE_URL", f"sqlite:///{scratch}/bench.sqlite3"),
            "BROKER_DIR": f"{scratch}/broker",
            "SSRF_ALLOW_PRIVATE": "1",
            "WEBHOOK_SWEEP_SECONDS": "3600",
        }
        _emit(env, f"http://127.0.0.1:{server.server_port}/hook", events)
        started = time.monotonic()
        worker = subprocess.Popen(  # noqa: S603
            [
                str(ROOT / ".venv/bin/celery"),
                "-A",
                "config",
                "worker",
                "-Q",
                "webhooks",
                "-c",
                "1",
                "--without-gossip",
                "--without-mingle",
                "--loglevel",
                "WARNING",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = started + 600
            while len(_Receiver.times) < events and time.monotonic() < deadline:
                time.sleep(0.2)
        finally:
            worker.terminate()
            worker.wait(timeout=60)
            server.shutdown()
    received = _Receiver.times
    if len(received) < events:
        print(f"FAIL: {len(received)} of {events} deliveries arrived")
        return 1
    steady = (events - 1) / (received[-1] - received[0]) if events > 1 else float("nan")
    print(
        f"{events} deliveries, one worker: {steady:.0f} per second once running "
        f"({events / (received[-1] - started):.0f} per second including worker start-up)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 500))
