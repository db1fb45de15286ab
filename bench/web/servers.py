"""The two servers the web figures compare, the requests each is sent, and the run's settings.

Both run as the Procfile's `web` line starts the service: the service (`config.wsgi`) and its
ceiling (`bench.ceiling.wsgi`), on one scratch PostgreSQL database seeded with the demo data and
KEYS team keys, and one scratch Redis database (REDIS_DB) where their delivery messages pile up.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench import loadgen
from bench.common import (
    DEFAULT_DATABASE_URL,
    POSTGRES_SCHEMES,
    Stack,
    free_port,
    http_ok,
    procfile_command,
    redis_url,
    replace_option,
    wait_for,
)

REDIS_DB = 12
# Keep-alive connections of every saturation run, service and ceiling alike. Each stays with
# the worker process that accepted it; with 8 of them one of the two workers held 6 or more
# in about a round in four and the round measured that worker alone.
CONNECTIONS = 32
OPEN_FRACTION = 0.7  # of the service's own POST saturation rate
P99_GOAL_MS = 50.0
LIMITS = {"create": 30, "read": 120}  # settings.RATE_LIMITS per key and minute, not configurable
KEYS = 1000
TARGET_PLATFORMS = ("x", "bluesky", "linkedin")  # text-only posts, no required settings
PAGE_FILL = 21  # publishes each SQL count creates first: one more than the largest page counted
WARM_ANSWERS = 2 * CONNECTIONS  # answers of each endpoint and server before measuring
SLICE_SECONDS = 2.0  # the open-model run's latencies are also reported per slice of this length
KEPT_IDS = 300  # publish ids kept from the POST runs, read back by GET /publishes/{id}
CEILING_APP = "bench.ceiling.wsgi"
ACCESS_TIME = re.compile(rb'" [0-9]{3} \S+ ([0-9]+)ms "')  # %(s)s %(b)s %(M)sms of the Procfile's log format
JSON = {"Content-Type": "application/json"}
POST, GET_ONE, GET_PAGE = "POST /api/v1/publishes (3 targets)", "GET /api/v1/publishes/{id}", "GET /api/v1/publishes"


@dataclass(frozen=True)
class Plan:
    """How long each part runs."""

    window: float  # seconds counted in each saturation run
    warmup: float  # seconds before the count starts in each saturation run
    rounds: int  # saturation runs per server and endpoint
    open_seconds: float  # the open-model POST run, counted
    open_warmup: float  # seconds at the same rate before the count starts (not counted)
    ceiling_open: bool  # also drive the ceiling at the same arrival rate


QUICK = Plan(window=2.5, warmup=0.5, rounds=1, open_seconds=4.0, open_warmup=1.0, ceiling_open=False)
FULL = Plan(window=4.5, warmup=0.5, rounds=4, open_seconds=20.0, open_warmup=5.0, ceiling_open=True)

# Run with `manage.py shell -c`: migrate, seed the demo data (through `seed_demo`, whose JSON is
# the demo set's contract), create the bench's team keys for the owner of team `acme`.
SEED_SCRIPT = """
import io, json, os
from django.core.management import call_command
from django.db import transaction
call_command("migrate", interactive=False, verbosity=0)
from teams import keys
from teams.models import SCOPES, ApiKey, ApiKeyKind, Membership, Role
out = io.StringIO()
call_command("seed_demo", "--fresh", "--json", stdout=out)
seed = json.loads(out.getvalue())
owner = Membership.objects.select_related("team", "user").get(team_id=seed["teams"]["acme"]["id"], role=Role.OWNER)
made = [keys.generate() for _ in range(int(os.environ["BENCH_KEYS"]))]
with transaction.atomic():
    ApiKey.objects.bulk_create(
        ApiKey(name=f"bench web {n}", user=owner.user, kind=ApiKeyKind.TEAM, team=owner.team, prefix=k.prefix,
               secret_hash=k.secret_hash, scopes=list(SCOPES))
        for n, k in enumerate(made)
    )
print(json.dumps({"team": seed["teams"]["acme"]["id"], "accounts": seed["accounts"]["acme"],
                  "keys": [k.plaintext for k in made]}))
"""


class KeyRing:
    """Hands out API keys so that none goes over `limit` requests in a minute window of the
    service's rate limiter (`int(time // 60)`). A key is used until it is full for the current
    window, then the next one is taken. A request sent in the last `spill` seconds of a window
    may be counted in the next one, so it counts against both."""

    def __init__(self, keys: list[str], limit: int, spill: float = 10.0) -> None:
        self.keys, self.limit, self.spill = keys, limit, spill
        self.used: Counter[tuple[int, int]] = Counter()
        self.at = 0

    def take(self) -> str:
        now = time.time()
        window = int(now // 60)
        windows = (window, window + 1) if now % 60 >= 60 - self.spill else (window,)
        for _ in range(len(self.keys)):
            if all(self.used[self.at, w] < self.limit for w in windows):
                for w in windows:
                    self.used[self.at, w] += 1
                return self.keys[self.at]
            self.at = (self.at + 1) % len(self.keys)
        raise RuntimeError(
            f"all {len(self.keys)} bench keys are at their limit this minute; raise bench.web.servers.KEYS"
        )


@dataclass
class Server:
    """One of the two gunicorn servers and the requests it is sent."""

    name: str  # "service" or "ceiling"
    app: str
    env: dict[str, str]
    port: int = 0
    requests: dict[str, loadgen.Source] = field(default_factory=dict)
    access_log: Path = Path("/dev/null")

    def log_offset(self) -> int:
        return self.access_log.stat().st_size if self.access_log.exists() else 0

    def server_ms(self, offset: int) -> list[float]:
        """Request times gunicorn logged from byte `offset` of the access log on."""
        with self.access_log.open("rb") as log:
            log.seek(offset)
            return [float(m) for m in ACCESS_TIME.findall(log.read())]


@dataclass
class Seed:
    team: str
    accounts: list[str]
    keys: list[str]


def _gunicorn(server: Server) -> list[str]:
    """The Procfile's web command, for `server`'s app and port, its access log to a file."""
    argv = [server.app if arg == "config.wsgi" else arg for arg in procfile_command("web", WEB_PORT=str(server.port))]
    return replace_option(argv, "--access-logfile", str(server.access_log))


def _start(stack: Stack, server: Server) -> None:
    server.port = free_port()
    server.access_log = stack.logs / f"{server.name}-access.log"
    stack.start(server.name, _gunicorn(server), env={**server.env, "PORT": str(server.port)})


def _await_server(stack: Stack, server: Server, tries: int = 3) -> None:
    """Wait until `server` answers /healthz; start it again on another port when the one it was
    given was taken meanwhile."""
    for attempt in range(tries):
        try:
            wait_for(stack, f"{server.name} server", lambda: http_ok(server.port, "/healthz"), timeout=60)
            return
        except RuntimeError:
            if attempt == tries - 1 or "Connection in use" not in stack.tail(server.name, 50):
                raise
            stack.procs.pop(server.name).wait()
            _start(stack, server)


def _seed(stack: Stack) -> Seed:
    raw = stack.shell(SEED_SCRIPT, BENCH_KEYS=str(KEYS))
    accounts = [raw["accounts"][p] for p in TARGET_PLATFORMS]
    return Seed(team=raw["team"], accounts=accounts, keys=raw["keys"])


def publish_body(seed: Seed, n: int, *, ceiling: bool) -> bytes:
    payload: dict[str, Any] = {
        "content": f"Benchmark web publish {n}",
        "targets": [{"account_id": a} for a in seed.accounts],
        "publish_mode": "immediate",
    }
    if ceiling:
        payload["team_id"] = seed.team
    return json.dumps(payload).encode()


def set_requests(server: Server, seed: Seed, ids: list[str]) -> None:
    """Set the POST, GET-by-id (over `ids`, filled later) and GET-page requests of `server`."""
    server.requests = _service_requests(seed, ids) if server.name == "service" else _ceiling_requests(seed, ids)


def _service_requests(seed: Seed, ids: list[str]) -> dict[str, loadgen.Source]:
    """The service's requests, each with a key of a KeyRing (the first key is kept apart)."""
    creates, reads = KeyRing(seed.keys[1:], LIMITS["create"]), KeyRing(seed.keys[1:], LIMITS["read"])

    def auth(ring: KeyRing) -> dict[str, str]:
        return {"Authorization": f"Bearer {ring.take()}"}

    return {
        POST: lambda n: ("POST", "/api/v1/publishes", {**auth(creates), **JSON}, publish_body(seed, n, ceiling=False)),
        GET_ONE: lambda n: ("GET", f"/api/v1/publishes/{ids[n % len(ids)]}", auth(reads), b""),
        GET_PAGE: lambda n: ("GET", "/api/v1/publishes", auth(reads), b""),
    }


def _ceiling_requests(seed: Seed, ids: list[str]) -> dict[str, loadgen.Source]:
    """The ceiling's requests: no key; the team travels in the body or the query."""
    page = f"/api/v1/publishes?team_id={seed.team}"
    return {
        POST: lambda n: ("POST", "/api/v1/publishes", JSON, publish_body(seed, n, ceiling=True)),
        GET_ONE: lambda n: ("GET", f"/api/v1/publishes/{ids[n % len(ids)]}", {}, b""),
        GET_PAGE: lambda n: ("GET", page, {}, b""),
    }


def _flush_redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=10)
    try:
        client.flushdb()
    finally:
        client.close()


@contextlib.contextmanager
def scratch_redis() -> Iterator[str]:
    url = redis_url(REDIS_DB)
    _flush_redis(url)
    try:
        yield url
    finally:
        _flush_redis(url)


def database_server() -> str:
    url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    if urlsplit(url).scheme not in POSTGRES_SCHEMES:
        raise RuntimeError(f"the web figures need PostgreSQL; DATABASE_URL is {urlsplit(url).scheme}")
    return url


def environment(database_url: str, redis: str, tag: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"GUNICORN_CMD_ARGS", "WEB_CONCURRENCY"}}
    return {
        **env,
        "APP_ENV": "development",
        "DEBUG": "false",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis,
        "RATE_LIMIT_KEY_PREFIX": f"bench-web-{tag}",
        "PYTHONUNBUFFERED": "1",
    }


def set_up(stack: Stack) -> tuple[list[Server], Seed]:
    """Both servers started (importing Django while the database is migrated and seeded)."""
    servers = [
        Server("service", "config.wsgi", {**stack.env, "DJANGO_SETTINGS_MODULE": "config.settings"}),
        Server("ceiling", CEILING_APP, {**stack.env, "DJANGO_SETTINGS_MODULE": "bench.ceiling.settings"}),
    ]
    for server in servers:
        _start(stack, server)
    seed = _seed(stack)
    for server in servers:
        _await_server(stack, server)
    return servers, seed


def say(line: str) -> None:
    print(f"web: {line}", file=sys.stderr, flush=True)
