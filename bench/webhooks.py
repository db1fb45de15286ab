"""Webhook deliveries per second from one Celery worker process to a local receiver.

The whole pipeline runs for real. A scratch PostgreSQL database (`bench_webhooks_<hex>`, beside
the one DATABASE_URL names, else on 127.0.0.1:5432; dropped at the end) and Redis database 11
(flushed before and after) hold the outbox and the broker. One `manage.py shell` process
migrates, subscribes the receiver and emits EVENTS events in one transaction, so every delivery
message (one per delivery, as in production) is queued when it commits. One worker
(`celery worker -Q webhooks -c 1`: a prefork pool with one child; log level INFO as in the
Procfile) signs and POSTs each delivery to a receiver on 127.0.0.1 and records every attempt.
The receiver (HTTP/1.1 keep-alive, in this process) checks each signature.

The figure is the worker's steady rate at the receiver: deliveries after the first, divided by
the time from the first to the last arrival. Its ceiling is the receiver's own rate in the same
run, when a plain client (a `requests.Session` in a separate process, one request at a time)
POSTs the same number of signed bodies to it.

The run is broken (RuntimeError) when a delivery is missing, arrives twice, carries a bad
signature, is not `succeeded` after exactly one attempt, or the worker logs a warning or error.

Celery closes every database connection after every task unless CELERY_DB_REUSE_MAX is set.
When config.settings does not set it, the worker runs with CELERY_DB_REUSE_MAX = DB_REUSE_MAX
from a settings module in the scratch folder; the figure says which value it ran with.

    .venv/bin/python bench/webhooks.py [--quick | --events N]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
# First on the path, also when run as a script (whose own folder, bench/, would otherwise make
# `webhooks` this file instead of the app).
sys.path.insert(0, str(ROOT))

from bench.common import Figure, machine, postgres_database  # noqa: E402
from webhooks import signing  # noqa: E402 - stdlib only, no Django set-up needed

NAME = "webhook deliveries per second, one worker, local receiver"
GOAL = "≥ 200/s"
TARGET = 200.0
EVENTS = {True: 1000, False: 5000}  # quick, full
DB_REUSE_MAX = 1000
REDIS_DB = 11
LOG_PROBLEM = re.compile(r"\b(WARNING|ERROR|CRITICAL)\b|Traceback")
TASK_TIME = re.compile(r"webhooks\.deliver\[[^]]*\] succeeded in ([0-9.]+)s")

SETTINGS = """
from config.settings import *  # noqa: F403

if "CELERY_DB_REUSE_MAX" not in globals():
    CELERY_DB_REUSE_MAX = {reuse}
"""

# Run in `manage.py shell`; parameters come in through the environment.
PREPARE = """
import json, os
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import transaction
from teams.services import team_create
from webhooks import services
import config.settings
call_command("migrate", verbosity=0)
team = team_create(name="bench", owner=User.objects.create(username="bench"))
url, secret = os.environ["BENCH_URL"], os.environ["BENCH_SECRET"]
services.subscription_create(team=team, url=url, events=["post.published"], secret=secret)
with transaction.atomic():
    for n in range(int(os.environ["BENCH_EVENTS"])):
        services.emit(team=team, event_type="post.published", data={"publish_id": f"bench-{n}"})
print(json.dumps([settings.CELERY_DB_REUSE_MAX, hasattr(config.settings, "CELERY_DB_REUSE_MAX")]))
"""

# A plain keep-alive client for the ceiling: the same signed bodies, one POST at a time.
CLIENT = """
import json, sys, requests
url, path = sys.argv[1], sys.argv[2]
with open(path) as requests_file, requests.Session() as session:
    for line in requests_file:
        headers, body = json.loads(line)
        response = session.post(url, data=body.encode(), headers=headers, timeout=10)
        response.raise_for_status()
"""


# --- the receiver ----------------------------------------------------------------------------


@dataclass
class Phase:
    """What the receiver took in during one phase: arrival times and counts by webhook-id."""

    arrivals: list[float] = field(default_factory=list)
    ids: Counter[str] = field(default_factory=Counter)
    connections: int = 0
    bad_signatures: int = 0

    def rate(self) -> float:
        span = self.arrivals[-1] - self.arrivals[0] if len(self.arrivals) > 1 else 0.0
        return (len(self.arrivals) - 1) / span if span > 0 else 0.0


class Receiver(ThreadingHTTPServer):
    """A webhook receiver on 127.0.0.1 that checks each X-Service-Signature and answers 204."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, secret: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.secret = secret.encode()
        self.lock = threading.Lock()
        self.phases: dict[str, Phase] = {}
        self.phase = Phase()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hook"

    def begin(self, name: str) -> Phase:
        with self.lock:
            self.phase = self.phases[name] = Phase()
        return self.phase

    def count(self) -> int:
        with self.lock:
            return len(self.phase.arrivals)

    def record(self, headers: Any, body: bytes) -> None:
        expected = "sha256=" + hmac.new(self.secret, body, hashlib.sha256).hexdigest()
        valid = hmac.compare_digest(expected, headers.get("X-Service-Signature", ""))
        with self.lock:
            self.phase.arrivals.append(time.monotonic())
            self.phase.ids[headers.get("webhook-id", "")] += 1
            self.phase.bad_signatures += not valid

    def connected(self) -> None:
        with self.lock:
            self.phase.connections += 1


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real receivers
    server: Receiver

    def setup(self) -> None:
        super().setup()
        self.server.connected()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.record(self.headers, body)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def _receiver(secret: str) -> Iterator[Receiver]:
    server = Receiver(secret)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


# --- scratch database, Redis, processes ------------------------------------------------------


@contextlib.contextmanager
def _database() -> Iterator[str]:
    """The URL of a scratch PostgreSQL database, dropped afterwards."""
    given = urlsplit(os.environ.get("DATABASE_URL", ""))
    if given.scheme not in {"postgres", "postgresql", "pgsql"}:
        given = urlsplit("postgres://postgres@127.0.0.1:5432/postgres")
    with postgres_database(urlunsplit(given), f"bench_webhooks_{secrets.token_hex(4)}") as url:
        yield url


@contextlib.contextmanager
def _redis() -> Iterator[str]:
    """The URL of Redis database REDIS_DB, flushed before and after."""
    import redis

    given = urlsplit(os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    url = urlunsplit(given._replace(path=f"/{REDIS_DB}"))
    client = redis.Redis.from_url(url)
    client.flushdb()
    try:
        yield url
    finally:
        client.flushdb()
        client.close()


@dataclass
class Worker:
    """One `celery worker -Q webhooks -c 1` process in its own session, logging to a file."""

    env: dict[str, str]
    log_path: Path
    proc: subprocess.Popen[bytes] | None = None
    log: IO[bytes] | None = None

    def start(self) -> None:
        self.log = self.log_path.open("wb")
        argv = [str(ROOT / ".venv/bin/celery"), "-A", "config", "worker", "-Q", "webhooks", "-c", "1"]
        argv += ["-n", "bench-webhooks@%h", "--without-gossip", "--without-mingle", "--loglevel", "INFO"]
        self.proc = subprocess.Popen(  # noqa: S603
            argv, cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def lines(self) -> list[str]:
        return self.log_path.read_text(errors="replace").splitlines() if self.log_path.exists() else []

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(" ready." in line for line in self.lines()):
            if self.proc is None or self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the worker did not start:\n" + "\n".join(self.lines()[-20:]))
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.terminate()  # a warm shutdown
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)  # its own session: the group is its process id
                self.proc.wait()
            with contextlib.suppress(ProcessLookupError):  # a pool child left behind
                os.killpg(self.proc.pid, signal.SIGKILL)
        if self.log is not None:
            self.log.close()


def _environment(scratch: Path, database_url: str, redis_url: str) -> dict[str, str]:
    (scratch / "bench_webhooks_settings.py").write_text(SETTINGS.format(reuse=DB_REUSE_MAX))
    path = os.pathsep.join(filter(None, [str(scratch), os.environ.get("PYTHONPATH", "")]))
    return {
        **os.environ,
        "APP_ENV": "development",
        "DEBUG": "false",
        "LOG_LEVEL": "INFO",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "SSRF_ALLOW_PRIVATE": "1",  # the receiver is on loopback, as in the webhook tests
        "DJANGO_SETTINGS_MODULE": "bench_webhooks_settings",
        "PYTHONPATH": path,
        "PYTHONUNBUFFERED": "1",
    }


def _run(argv: list[str], env: dict[str, str], what: str) -> str:
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)  # noqa: S603
    if done.returncode:
        raise RuntimeError(f"{what} failed:\n{done.stderr[-3000:]}")
    return done.stdout


# --- checks ----------------------------------------------------------------------------------


def _database_state(database_url: str) -> tuple[dict[str, int], int, set[str]]:
    """(deliveries by state, attempts recorded, event ids)."""
    import psycopg

    with psycopg.connect(database_url) as conn:
        rows = conn.execute("SELECT state, count(*) FROM webhooks_delivery GROUP BY state").fetchall()
        states: dict[str, int] = {str(state): int(count) for state, count in rows}
        row = conn.execute("SELECT count(*) FROM webhooks_deliveryattempt").fetchone()
        events = {str(r[0]) for r in conn.execute("SELECT id FROM webhooks_event").fetchall()}
    return states, int(row[0]) if row else 0, events


def _check(phase: Phase, events: int, database_url: str, worker: Worker) -> None:
    problems = []
    states, attempts, event_ids = _database_state(database_url)
    if states != {"succeeded": events} or attempts != events:
        problems.append(f"deliveries by state {states}, {attempts} attempts, for {events} events")
    if set(phase.ids) != event_ids or len(phase.arrivals) != events:
        problems.append(f"the receiver got {len(phase.arrivals)} POSTs for {len(phase.ids)} of {events} events")
    if twice := [i for i, n in phase.ids.items() if n > 1]:
        problems.append(f"{len(twice)} events arrived more than once")
    if phase.bad_signatures:
        problems.append(f"{phase.bad_signatures} bad signatures")
    if logged := [line for line in worker.lines() if LOG_PROBLEM.search(line)]:
        problems.append("the worker logged:\n" + "\n".join(logged[:8]))
    if problems:
        raise RuntimeError("broken run: " + "; ".join(problems))


def _wait_for(receiver: Receiver, count: int, timeout: float, worker: Worker | None = None) -> None:
    deadline = time.monotonic() + timeout
    while receiver.count() < count and time.monotonic() < deadline:
        if worker is not None and worker.proc is not None and worker.proc.poll() is not None:
            break
        time.sleep(0.05)


# --- the ceiling -----------------------------------------------------------------------------


def _signed_requests(path: Path, secret: str, count: int) -> None:
    """`count` bodies and headers as the worker signs them, one JSON line each."""
    now = int(time.time())
    with path.open("w") as out:
        for n in range(count):
            event_id = str(uuid.uuid4())
            raw = signing.body(
                {
                    "id": event_id,
                    "type": "post.published",
                    "created_at": time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(now)),
                    "team_id": str(uuid.uuid4()),
                    "data": {"publish_id": f"bench-{n}"},
                }
            )
            headers = signing.headers([secret], event_id, now, raw)
            out.write(json.dumps([headers, raw.decode()]) + "\n")


def _ceiling(receiver: Receiver, scratch: Path, secret: str, count: int, env: dict[str, str]) -> Phase:
    bodies = scratch / "signed.jsonl"
    _signed_requests(bodies, secret, count)
    phase = receiver.begin("ceiling")
    _run([sys.executable, "-c", CLIENT, receiver.url, str(bodies)], env, "the ceiling client")
    if len(phase.arrivals) != count or phase.bad_signatures or max(phase.ids.values(), default=1) > 1:
        raise RuntimeError(f"broken run: the ceiling client's {count} POSTs arrived as {len(phase.arrivals)}")
    return phase


# --- measure ---------------------------------------------------------------------------------


def _deliveries(events: int, scratch: Path, database_url: str, redis_url: str) -> Figure:
    secret, started = signing.new_secret(), time.monotonic()
    env = _environment(scratch, database_url, redis_url)
    with _receiver(secret) as receiver:
        phase = receiver.begin("worker")
        worker = Worker(env, scratch / "worker.log")
        try:
            worker.start()  # starts while the events are emitted; it waits for the first message
            prepare_env = {**env, "BENCH_URL": receiver.url, "BENCH_SECRET": secret, "BENCH_EVENTS": str(events)}
            output = _run([sys.executable, "manage.py", "shell", "-v0", "-c", PREPARE], prepare_env, "emitting")
            reuse, reuse_from_settings = json.loads(output.strip().splitlines()[-1])
            emitted = time.monotonic()
            worker.wait_ready()
            _wait_for(receiver, events, 30 + events / 50, worker)  # a broken run when slower than 50/s
        finally:
            worker.stop()
        _check(phase, events, database_url, worker)
        delivered = time.monotonic()
        ceiling = _ceiling(receiver, scratch, secret, events, env)
    value, top = phase.rate(), ceiling.rate()
    tasks = sorted(float(m[1]) for line in worker.lines() if (m := TASK_TIME.search(line)))
    extra = {
        "events": events,
        "worker_tcp_connections": phase.connections,
        "ceiling_tcp_connections": ceiling.connections,
        "deliver_task_p50_ms": round(tasks[len(tasks) // 2] * 1000, 2) if tasks else None,
        "celery_db_reuse_max": reuse,
        "celery_db_reuse_max_from": "config.settings" if reuse_from_settings else "this benchmark",
        "seconds": {
            "migrate_and_emit": round(emitted - started, 1),
            "deliver": round(delivered - emitted, 1),
            "ceiling": round(time.monotonic() - delivered, 1),
        },
        "machine": machine(),
    }
    return Figure(NAME, round(value, 1), "/s", GOAL, value >= TARGET, round(top, 1), round(value / top, 3), extra)


def run(events: int) -> Figure:
    """Deliver `events` events with one worker process and measure the receiver's own rate."""
    with (
        tempfile.TemporaryDirectory(prefix="bench-webhooks-") as folder,
        _database() as database_url,
        _redis() as redis_url,
    ):
        return _deliveries(events, Path(folder), database_url, redis_url)


def measure(quick: bool) -> list[Figure]:
    """Webhook deliveries per second from one worker process, beside the receiver's own rate."""
    return [run(EVENTS[quick])]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"{EVENTS[True]} events instead of {EVENTS[False]}")
    parser.add_argument("--events", type=int, help="this many events instead")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a plain `kill` still cleans up
    figure = run(args.events or EVENTS[args.quick])
    print(json.dumps(figure.as_dict(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
