"""The whole service as `make run` starts it, each process from its Procfile line, on a scratch
PostgreSQL database and a private Redis server: web (gunicorn), a Celery worker per lane, beat
and the platform sandbox. Plus a webhook receiver in the test process.

Timings are shortened so a run of minutes covers what production spreads over hours: beat ticks
every second, the platforms' read timeout is 2 s, a delivery's time limit 25 s, webhook retries
follow after seconds. The
private Redis server (its own port, no persistence) is the broker, cache and rate-limit store,
so a long run never touches a Redis another process relies on, and a fault suite may stop it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests

from bench.common import (
    ROOT,
    Stack,
    free_port,
    http_ok,
    postgres_database,
    procfile_command,
    procfile_processes,
    procfile_workers,
    replace_option,
    wait_for,
)
from webhooks.models import SUBSCRIBABLE_EVENTS

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres"
PLATFORM_TIMEOUT_SECONDS = 2
WEBHOOK_RETRY_DELAYS = "1,1,2,2,3"  # six attempts, as in production, seconds apart
# Every platform answers a second after it did its work, as real platforms do (0.3-2 s): the
# engine is judged at their pace, not at a stand-in's.
PLATFORM_LATENCY_SECONDS = 1.0
LOG_ERROR = re.compile(r"\b(ERROR|CRITICAL)\b|Traceback")

# Run in `manage.py shell`: one more team key per entry of LONG_KEYS ([team id, role]), so each
# simulated client has its own rate-limit budget, as each real integration would.
KEYS_SCRIPT = """
import json, os
from teams import services
from teams.models import SCOPES, Membership
keys = []
for team_id, role in json.loads(os.environ["LONG_KEYS"]):
    member = Membership.objects.select_related("team", "user").filter(team_id=team_id, role=role).first()
    keys.append(services.api_key_create(user=member.user, name="long run", scopes=SCOPES, team=member.team)[1])
print(json.dumps(keys))
"""


class RedisServer:
    """A redis-server of this run alone on a free port, without persistence, which a fault
    suite may stop and start again on the same port (coming back empty, as such a server does)."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        with (self.folder / "redis.log").open("ab") as log:
            self.proc = subprocess.Popen(  # noqa: S603
                argv, cwd=self.folder, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + 20
        while not _redis_answers(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start: {(self.folder / 'redis.log').read_text()[-2000:]}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


@contextlib.contextmanager
def private_redis(folder: Path) -> Iterator[RedisServer]:
    server = RedisServer(folder)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@dataclass
class Arrival:
    webhook_id: str
    type: str
    team: str  # the slug in the receiver's path
    status: int  # what the receiver answered
    at: float = 0.0  # time.time() of arrival


@dataclass
class WebhookReceiver:
    """Collects every webhook POST (checking the service's signature) and answers 503 to the
    first arrival of one event in FLAKY_ONE_IN, so retries happen under load too; and 503 to
    everything for the teams in `down` (a receiver that is down behind its proxy)."""

    FLAKY_ONE_IN = 8

    secrets: dict[str, str] = field(default_factory=dict)  # team slug -> subscription secret
    arrivals: list[Arrival] = field(default_factory=list)
    bad_signatures: int = 0
    down: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None

    def url(self, slug: str) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_port}/hooks/{slug}"

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                self.send_response(receiver.receive(self.path.rsplit("/", 1)[-1], self.headers, body))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def receive(self, slug: str, headers: Any, body: bytes) -> int:
        secret = self.secrets.get(slug, "")
        expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        webhook_id = headers.get("webhook-id", "")
        with self.lock:
            if not hmac.compare_digest(expected, headers.get("X-Service-Signature", "")):
                self.bad_signatures += 1
                return 401
            first = not any(a.webhook_id == webhook_id for a in self.arrivals)
            flaky = first and int(hashlib.sha256(webhook_id.encode()).hexdigest(), 16) % self.FLAKY_ONE_IN == 0
            status = 503 if flaky or slug in self.down else 200
            self.arrivals.append(Arrival(webhook_id, json.loads(body).get("type", ""), slug, status, time.time()))
        return status

    def received(self) -> dict[str, list[Arrival]]:
        """Arrivals by webhook-id (the event id)."""
        by_id: dict[str, list[Arrival]] = defaultdict(list)
        with self.lock:
            for arrival in self.arrivals:
                by_id[arrival.webhook_id].append(arrival)
        return by_id


@dataclass
class LiveStack:
    url: str
    sandbox_url: str
    database_url: str
    seed: dict[str, Any]
    keys: dict[str, list[str]]  # client role -> its own keys
    subscriptions: dict[str, str]  # team slug -> id of the subscription of the receiver
    receiver: WebhookReceiver
    processes: Stack
    redis: RedisServer
    folder: Path
    web_port: int
    keep_logs: bool = True  # a test clears it once its checks have passed

    def kill(self, name: str) -> None:
        """SIGKILL the process `name` and everything it started, as the kernel's OOM killer would."""
        proc = self.processes.procs[name]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def stop(self, name: str) -> None:
        """Stop the process `name` as its supervisor would (SIGTERM, then SIGKILL after 30 s)."""
        proc = self.processes.procs[name]
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill(name)

    def start(self, name: str) -> None:
        """Start the process `name` again from its Procfile line, as its supervisor would."""
        _start_process(self.processes, name, self.folder, self.web_port, again=True)

    def log_errors(self) -> list[str]:
        """Lines of the processes' logs that report an error or a traceback."""
        return [
            f"{name}: {line}"
            for name in self.processes.procs
            for line in self.processes.log_lines(name)
            if LOG_ERROR.search(line)
        ]

    def sandbox_posts(self) -> list[dict[str, Any]]:
        posts: list[dict[str, Any]] = requests.get(f"{self.sandbox_url}/_sandbox/posts", timeout=30).json()["posts"]
        return posts


def _scratch_server_url() -> str:
    given = urlsplit(os.environ.get("DATABASE_URL", ""))
    if given.scheme not in ("postgres", "postgresql", "pgsql"):
        return DEFAULT_DATABASE_URL
    return urlunsplit(given)


def _database_name() -> str:
    stem = urlsplit(_scratch_server_url()).path.strip("/") or "long"
    return f"{stem}_long_{secrets.token_hex(4)}"[:63]


def _env(folder: Path, database_url: str, redis_url: str, web_port: int, sandbox_port: int) -> dict[str, str]:
    return {
        **os.environ,
        "APP_ENV": "development",
        "DEBUG": "false",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "PORT": str(web_port),
        "WEB_PORT": str(web_port),
        "PUBLIC_BASE_URL": f"http://127.0.0.1:{web_port}",
        "SANDBOX_PORT": str(sandbox_port),
        "SANDBOX_URL": f"http://127.0.0.1:{sandbox_port}",
        "SCHEDULER_TICK_SECONDS": "1",
        "RECONCILE_SECONDS": "1",
        "WEBHOOK_SWEEP_SECONDS": "1",
        "WEBHOOK_RETRY_DELAYS": WEBHOOK_RETRY_DELAYS,
        "PLATFORM_TIMEOUT_SECONDS": str(PLATFORM_TIMEOUT_SECONDS),
        # A delivery ends within 25 s, so one still sending after 30 s lost its worker; a job
        # the broker took and no worker claimed within 10 s was lost with the broker's queue.
        "DISPATCH_SOFT_TIME_LIMIT": "20",
        "DISPATCH_TIME_LIMIT": "25",
        "DISPATCH_STALE_SECONDS": "30",
        "DISPATCH_RELAY_AFTER_SECONDS": "10",
        # The sandbox shows a post the moment it makes it: a read-back that misses it for a
        # minute is evidence enough (a refusal that came after the timeout made no post).
        "RECONCILE_ABSENT_AFTER_SECONDS": "60",
        # A reconcile run killed mid-check (the worker faults) leaves its targets leased; a short
        # lease lets the next run read them back within the suites' drain window.
        "RECONCILE_CHECK_LEASE_SECONDS": "30",
        "SSRF_ALLOW_PRIVATE": "1",  # the webhook receiver listens on loopback
        # The load sends about a hundred posts in 90 s through acme's one X account, more than
        # X allows in 15 minutes: paced (as the service rightly would), they would wait past the
        # drain window. Pacing has suites of its own (tests/publishing/test_pacing.py).
        "PACE_ACCOUNTS": "false",
        "BROKER_DIR": str(folder / "broker"),
        "PYTHONUNBUFFERED": "1",
        "LOG_EVERY_TASK": "1",  # the logs a failed run leaves tell what each task did
    }


def _start_processes(stack: Stack, folder: Path, web_port: int) -> None:
    """Every process of the Procfile, as honcho would start it."""
    for name in procfile_processes():
        _start_process(stack, name, folder, web_port)


def _start_process(stack: Stack, name: str, folder: Path, web_port: int, *, again: bool = False) -> None:
    argv = procfile_command(name, WEB_PORT=str(web_port))
    if name == "beat":  # its schedule file in the run's folder, not in var/
        argv = replace_option(argv, "--schedule", str(folder / "celerybeat-schedule"))
    stack.start(name, [str(ROOT / argv[0]) if argv[0].startswith(".venv/") else argv[0], *argv[1:]], again=again)


def _logged(stack: Stack, name: str, text: str) -> Any:
    return lambda: any(text in line for line in stack.log_lines(name))


def _wait_ready(stack: Stack, web_port: int, sandbox_port: int) -> None:
    wait_for(stack, "sandbox", lambda: http_ok(sandbox_port, "/_sandbox/posts"))
    wait_for(stack, "web server", lambda: http_ok(web_port, "/healthz"))
    for name in procfile_workers():
        wait_for(stack, name, _logged(stack, name, " ready."))
    wait_for(stack, "beat", _logged(stack, "beat", "is starting."))


def _subscribe(url: str, key: str, receiver_url: str) -> tuple[str, str]:
    """The new subscription's id and secret."""
    answer = requests.post(
        f"{url}/api/v1/webhooks",
        json={"url": receiver_url, "events": list(SUBSCRIBABLE_EVENTS)},
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )
    assert answer.status_code == 201, answer.text
    data = answer.json()["data"]
    return str(data["id"]), str(data["secret"])


# The keys the load's clients get: client -> (team slug, membership role, how many keys).
CLIENT_KEYS = {
    "acme": ("acme", "owner", 6),
    "other": ("other", "owner", 2),
    "review_member": ("review", "member", 3),
    "review_approver": ("review", "admin", 2),
}


def _client_keys(stack: Stack, seed: dict[str, Any]) -> dict[str, list[str]]:
    spec = [[seed["teams"][slug]["id"], role] for slug, role, n in CLIENT_KEYS.values() for _ in range(n)]
    made = iter(stack.shell(KEYS_SCRIPT, LONG_KEYS=json.dumps(spec)))
    return {client: [next(made) for _ in range(n)] for client, (_, _, n) in CLIENT_KEYS.items()}


@contextlib.contextmanager
def live_stack(**settings: str) -> Iterator[LiveStack]:
    """Start everything (with `settings` added to the processes' environment), subscribe the
    receiver to every event of three teams, yield; stop it all and drop the database. The logs
    are kept (and their folder printed) unless the test cleared `keep_logs`."""
    folder = Path(tempfile.mkdtemp(prefix="long-run-"))
    (folder / "logs").mkdir()
    web_port, sandbox_port = free_port(), free_port()
    receiver = WebhookReceiver()
    receiver.start()
    failed = True
    try:
        with (
            private_redis(folder) as redis,
            postgres_database(_scratch_server_url(), _database_name()) as database_url,
        ):
            env = {**_env(folder, database_url, redis.url, web_port, sandbox_port), **settings}
            stack = Stack(logs=folder / "logs", env=env)
            try:
                stack.manage("migrate", "-v0")
                seed = json.loads(stack.manage("seed_demo", "--fresh", "--json"))
                keys = _client_keys(stack, seed)
                _start_processes(stack, folder, web_port)
                _wait_ready(stack, web_port, sandbox_port)
                latency = {"seconds": PLATFORM_LATENCY_SECONDS}
                requests.post(f"http://127.0.0.1:{sandbox_port}/_sandbox/latency", json=latency, timeout=10)
                url = f"http://127.0.0.1:{web_port}"
                subscriptions = {}
                for slug, key_name in (("acme", "acme_owner"), ("review", "review_owner"), ("other", "other_owner")):
                    subscriptions[slug], receiver.secrets[slug] = _subscribe(
                        url, seed["keys"][key_name], receiver.url(slug)
                    )
                running = LiveStack(
                    url=url,
                    sandbox_url=f"http://127.0.0.1:{sandbox_port}",
                    database_url=database_url,
                    seed=seed,
                    keys=keys,
                    subscriptions=subscriptions,
                    receiver=receiver,
                    processes=stack,
                    redis=redis,
                    folder=folder,
                    web_port=web_port,
                )
                yield running
                failed = running.keep_logs
            finally:
                stack.stop()
    finally:
        receiver.stop()
        if failed:
            print(f"logs kept in {folder / 'logs'}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
