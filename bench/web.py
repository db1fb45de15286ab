"""The web-tier figures: the service's publish endpoints beside a bare DRF app on the same rows.

Two servers run side by side, each as the Procfile's `web` line starts the service (gunicorn,
2 workers x 4 threads, access log to a file): the service (`config.wsgi`) and its ceiling, the
bare app of `bench/ceiling` (no middleware, authentication, permissions or throttles) writing
and reading the same tables of the same scratch PostgreSQL database. No Celery worker runs:
the delivery messages both push pile up in a scratch Redis database (number 12, emptied
before and after).

For POST /api/v1/publishes (3 targets), GET /api/v1/publishes/{id} and GET /api/v1/publishes
(a page of 20 with targets), each server's saturation rate is measured with the same number of
keep-alive connections sending back to back, in rounds that alternate which server goes
first, so that noise from the rest of the machine hits both; the figure is the median round.
POST is then driven at a constant arrival rate of 70% of the service's own saturation rate
(open model, latency from each request's due time), for its p99, and in full runs the ceiling
at the same rate, whose p99 is the figure's ceiling; as wrk2 does, the first
seconds at that rate (connections opening, the server settling after the saturation runs)
only warm up and are not counted. While both servers warm up,
the SQL statements of one list page at page sizes 5 and 20, one create and one read are
counted through Django's test client against the same database. Each run also reports the
time gunicorn logged for its requests, beside the latency the client saw.

The create limit (30 a minute per key) and the read limit (120) are fixed in settings, so the
requests rotate over team keys: each key is filled up to its limit of the current minute
before the next one is taken, and no request is ever throttled. Any answer but the expected
status makes the run broken (RuntimeError), as does a server that does not start.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench import loadgen
from bench.common import (
    DEFAULT_DATABASE_URL,
    POSTGRES_SCHEMES,
    Figure,
    Stack,
    free_port,
    http_ok,
    postgres_database,
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

# Run with `manage.py shell -c`: migrate, seed the demo data, create the bench's team keys.
SEED_SCRIPT = """
import json, os
from django.core.management import call_command
from django.db import transaction
call_command("migrate", interactive=False, verbosity=0)
from teams import demo, keys
from teams.models import SCOPES, ApiKey, ApiKeyKind
data = demo.seed(fresh=True)
team, owner = data.teams["acme"], data.users["owner"]
made = [keys.generate() for _ in range(int(os.environ["BENCH_KEYS"]))]
with transaction.atomic():
    ApiKey.objects.bulk_create(
        ApiKey(name=f"bench web {n}", user=owner, kind=ApiKeyKind.TEAM, team=team, prefix=k.prefix,
               secret_hash=k.secret_hash, scopes=list(SCOPES))
        for n, k in enumerate(made)
    )
seed = data.as_json()
print(json.dumps({"team": seed["teams"]["acme"]["id"], "accounts": seed["accounts"]["acme"],
                  "keys": [k.plaintext for k in made]}))
"""

# Run with `manage.py shell -c` under the service's or the ceiling's settings: the SQL
# statements of one list page at page sizes 5 and 20, one create and one read.
QUERIES_SCRIPT = """
import json, os
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
headers = {"Authorization": "Bearer " + os.environ["BENCH_KEY"]} if os.environ.get("BENCH_KEY") else {}
client, extra = Client(headers=headers), os.environ.get("BENCH_QUERY", "")
def count(method, path, expect, **kwargs):
    with CaptureQueriesContext(connection) as queries:
        answer = getattr(client, method)(path, **kwargs)
    if answer.status_code != expect:
        raise SystemExit(f"{method} {path} answered {answer.status_code}: {answer.content[:500]!r}")
    return len(queries), answer
statements = []
def spy(execute, sql, params, many, context):  # "T" inside a transaction, "A" autocommitted
    where = "T" if context["connection"].in_atomic_block else "A"
    statements.append(where + " " + " ".join(sql.split())[:90])
    return execute(sql, params, many, context)
body = os.environ["BENCH_BODY"]
for _ in range(int(os.environ["BENCH_FILL"])):  # more publishes than the largest page counted
    count("post", "/api/v1/publishes", 201, data=body, content_type="application/json")
sep = "&" if extra else "?"
page5, _ = count("get", f"/api/v1/publishes{extra}{sep}page_size=5", 200)
page20, _ = count("get", f"/api/v1/publishes{extra}{sep}page_size=20", 200)
with connection.execute_wrapper(spy):
    create, answer = count("post", "/api/v1/publishes", 201, data=body, content_type="application/json")
publish_id = answer.json()["data"]["id"]
read, _ = count("get", f"/api/v1/publishes/{publish_id}", 200)
writes = [s for s in statements if s.split()[1] in ("INSERT", "UPDATE", "DELETE")]
print(json.dumps({"page_5": page5, "page_20": page20, "create": create, "read": read, "create_sql": statements,
                  "create_autocommitted_writes": sum(s.startswith("A") for s in writes)}))
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
        raise RuntimeError(f"all {len(self.keys)} bench keys are at their limit this minute; raise bench.web.KEYS")


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


# --- set-up ----------------------------------------------------------------------------------


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


def _body(seed: Seed, n: int, *, ceiling: bool) -> bytes:
    payload: dict[str, Any] = {
        "content": f"Benchmark web publish {n}",
        "targets": [{"account_id": a} for a in seed.accounts],
        "publish_mode": "immediate",
    }
    if ceiling:
        payload["team_id"] = seed.team
    return json.dumps(payload).encode()


def _requests(server: Server, seed: Seed, ids: list[str]) -> None:
    """Set the POST, GET-by-id (over `ids`, filled later) and GET-page requests of `server`."""
    server.requests = _service_requests(seed, ids) if server.name == "service" else _ceiling_requests(seed, ids)


def _service_requests(seed: Seed, ids: list[str]) -> dict[str, loadgen.Source]:
    """The service's requests, each with a key of a KeyRing (the first key is kept apart)."""
    creates, reads = KeyRing(seed.keys[1:], LIMITS["create"]), KeyRing(seed.keys[1:], LIMITS["read"])

    def auth(ring: KeyRing) -> dict[str, str]:
        return {"Authorization": f"Bearer {ring.take()}"}

    return {
        POST: lambda n: ("POST", "/api/v1/publishes", {**auth(creates), **JSON}, _body(seed, n, ceiling=False)),
        GET_ONE: lambda n: ("GET", f"/api/v1/publishes/{ids[n % len(ids)]}", auth(reads), b""),
        GET_PAGE: lambda n: ("GET", "/api/v1/publishes", auth(reads), b""),
    }


def _ceiling_requests(seed: Seed, ids: list[str]) -> dict[str, loadgen.Source]:
    """The ceiling's requests: no key; the team travels in the body or the query."""
    page = f"/api/v1/publishes?team_id={seed.team}"
    return {
        POST: lambda n: ("POST", "/api/v1/publishes", JSON, _body(seed, n, ceiling=True)),
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
def _scratch_redis() -> Iterator[str]:
    url = redis_url(REDIS_DB)
    _flush_redis(url)
    try:
        yield url
    finally:
        _flush_redis(url)


def _database_server() -> str:
    url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    if urlsplit(url).scheme not in POSTGRES_SCHEMES:
        raise RuntimeError(f"the web figures need PostgreSQL; DATABASE_URL is {urlsplit(url).scheme}")
    return url


# --- measuring -------------------------------------------------------------------------------


EXPECTED = {POST: frozenset({201}), GET_ONE: frozenset({200}), GET_PAGE: frozenset({200})}


def _checked(server: Server, what: str, result: loadgen.Result, allow_none: bool = False) -> loadgen.Result:
    """`result`, or a RuntimeError when a request failed or was answered unexpectedly (or, unless
    `allow_none`, when no answer came at all)."""
    problems = result.problems(EXPECTED[what])
    if problems or not (result.count or allow_none):
        detail = "; ".join(problems) or "no answer at all"
        raise RuntimeError(f"{server.name} {what}: {detail}")
    for body in result.kept[:5]:
        _check_body(server, what, body)
    return result


def _check_body(server: Server, what: str, body: bytes) -> None:
    """RuntimeError unless `body` holds the publish (or the page of 20) with its 3 targets."""
    try:
        answer = json.loads(body)
        if what == GET_PAGE:
            items = answer["data"] if server.name == "service" else answer["results"]
            ok = len(items) == 20 and all(len(p["targets"]) == len(TARGET_PLATFORMS) for p in items)
        else:
            ok = len(answer["data"]["targets"]) == len(TARGET_PLATFORMS)
    except (ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise RuntimeError(f"{server.name} {what} answered an unexpected body: {body[:500]!r}")


def _saturate(server: Server, what: str, plan: Plan, keep: int = 5) -> loadgen.Result:
    offset = server.log_offset()
    result = loadgen.closed(
        server.port,
        server.requests[what],
        connections=CONNECTIONS,
        duration=plan.window,
        warmup=plan.warmup,
        expected=EXPECTED[what],
        keep=keep,
    )
    _checked(server, what, result)
    result.server_ms = server.server_ms(offset)
    _say(
        f"{server.name:8} {what}: {result.rate:.1f} req/s, p50 {_ms(result, 50)}, p99 {_ms(result, 99)}; "
        f"in the server p50 {statistics.median(result.server_ms or [math.nan]):.0f} ms; "
        f"load generator CPU {result.cpu_seconds / (plan.window + plan.warmup):.0%}"
    )
    return result


def _rounds(servers: list[Server], what: str, plan: Plan, keep: int = 5) -> dict[str, list[loadgen.Result]]:
    """Saturation runs of each server, alternating which goes first from round to round."""
    runs: dict[str, list[loadgen.Result]] = {s.name: [] for s in servers}
    for n in range(plan.rounds):
        for server in servers if n % 2 == 0 else servers[::-1]:
            runs[server.name].append(_saturate(server, what, plan, keep))
    return runs


def _ids(runs: dict[str, list[loadgen.Result]]) -> list[str]:
    return [json.loads(body)["data"]["id"] for results in runs.values() for r in results for body in r.kept]


def _warm_up(servers: list[Server], ids: list[str]) -> None:
    """Both servers answer each endpoint until every web thread has connected to the database
    and imported what it needs: short runs until they give WARM_ANSWERS answers."""
    for what in (POST, GET_ONE, GET_PAGE):
        for server in servers:
            results = _warm(server, what)
            if what == POST:
                ids.extend(_ids({server.name: results}))


def _warm(server: Server, what: str, budget: float = 30.0) -> list[loadgen.Result]:
    brief = Plan(window=0.5, warmup=0.0, rounds=1, open_seconds=0, open_warmup=0, ceiling_open=False)
    results: list[loadgen.Result] = []
    deadline = time.monotonic() + budget
    while sum(r.count for r in results) < WARM_ANSWERS:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{server.name} {what}: {sum(r.count for r in results)} answers in {budget:.0f} s")
        result = loadgen.closed(
            server.port, server.requests[what], connections=CONNECTIONS, duration=brief.window, keep=20
        )
        results.append(_checked(server, what, result, allow_none=True))
    return results


def _open(server: Server, rate: float, plan: Plan) -> loadgen.Result:
    offset = server.log_offset()
    duration = plan.open_warmup + plan.open_seconds
    whole = loadgen.open_model(server.port, server.requests[POST], rate=rate, duration=duration)
    _checked(server, POST, whole)
    whole.server_ms = server.server_ms(offset)
    result = whole.after(plan.open_warmup)  # as wrk2 does, the first seconds only warm up
    _say(
        f"{server.name:8} {POST} at {rate:.1f}/s (open model): p50 {_ms(result, 50)}, p99 {_ms(result, 99)}, "
        f"max {max(result.latencies) * 1000:.0f} ms, {result.connections} connections; "
        f"in the server p50 {statistics.median(result.server_ms or [math.nan]):.0f} ms; p99 by {SLICE_SECONDS:.0f} s: "
        + " ".join(f"{part['p99_ms']:.0f}" for part in result.slices(SLICE_SECONDS))
    )
    return result


def _count_queries(stack: Stack, server: Server, seed: Seed) -> dict[str, Any]:
    """SQL statements per request of `server`, counted in a `manage.py shell` under its settings."""
    service = server.name == "service"
    extra = {
        "DJANGO_SETTINGS_MODULE": server.env["DJANGO_SETTINGS_MODULE"],
        "BENCH_KEY": seed.keys[0] if service else "",  # the key no KeyRing hands out
        "BENCH_QUERY": "" if service else f"?team_id={seed.team}",
        "BENCH_BODY": _body(seed, 0, ceiling=not service).decode(),
        "BENCH_FILL": str(PAGE_FILL),
    }
    return dict(stack.shell(QUERIES_SCRIPT, **extra))


# --- figures ---------------------------------------------------------------------------------


def _ms(result: loadgen.Result, q: float) -> str:
    return f"{result.percentile(q) * 1000:.1f} ms"


def _say(line: str) -> None:
    print(f"web: {line}", file=sys.stderr, flush=True)


def _median_rate(results: list[loadgen.Result]) -> float:
    return float(statistics.median(r.rate for r in results))


def _throughput(what: str, runs: dict[str, list[loadgen.Result]], goal: float, extra: dict[str, Any]) -> Figure:
    value, ceiling = _median_rate(runs["service"]), _median_rate(runs["ceiling"])
    ratio = value / ceiling if ceiling else math.nan
    details = {
        side: {
            "rounds_req_s": [round(r.rate, 1) for r in results],
            "p50_ms": round(statistics.median(r.percentile(50) for r in results) * 1000, 1),
            "p99_ms": round(statistics.median(r.percentile(99) for r in results) * 1000, 1),
            "server_p50_ms": statistics.median(t for r in results for t in r.server_ms or [math.nan]),
            "loadgen_cpu_share": round(sum(r.cpu_seconds for r in results) / sum(r.duration for r in results), 3),
        }
        for side, results in runs.items()
    }
    return Figure(
        name=what,
        value=round(value, 1),
        unit="req/s",
        goal=f">= {goal} x ceiling",
        met=ratio >= goal,
        ceiling=round(ceiling, 1),
        ratio=round(ratio, 3),
        extra={"connections": CONNECTIONS, **details, **extra},
    )


def _latency(service: loadgen.Result, ceiling: loadgen.Result | None, saturation: float) -> Figure:
    """The service's POST p99 at the open-model rate, beside the bare app's p99 at the same
    rate (full runs): at one arrival rate both load the machine alike, so the ceiling's tail
    shows how much of the service's is the machine's."""
    p99 = service.percentile(99) * 1000
    extra: dict[str, Any] = {
        "saturation_req_s": round(saturation, 1),
        **service.summary(),
        "by_slice": service.slices(SLICE_SECONDS),
    }
    ceiling_p99 = None
    if ceiling is not None:
        extra["ceiling_at_same_rate"] = {**ceiling.summary(), "by_slice": ceiling.slices(SLICE_SECONDS)}
        ceiling_p99 = ceiling.percentile(99) * 1000
    return Figure(
        name=f"POST /api/v1/publishes p99 at {OPEN_FRACTION:.0%} of saturation",
        value=round(p99, 1),
        unit="ms",
        goal=f"<= {P99_GOAL_MS:.0f} ms (open model)",
        met=p99 <= P99_GOAL_MS,
        ceiling=None if ceiling_p99 is None else round(ceiling_p99, 1),
        ratio=None if not ceiling_p99 else round(p99 / ceiling_p99, 3),
        extra=extra,
    )


def _query_figure(queries: dict[str, dict[str, Any]]) -> Figure:
    service = queries["service"]
    return Figure(
        name="GET /api/v1/publishes SQL per page",
        value=service["page_20"],
        unit="queries",
        goal="same at page_size 5 and 20",
        met=service["page_5"] == service["page_20"],
        extra={side: {k: queries[side][k] for k in ("page_5", "page_20")} for side in queries},
    )


def _create_sql(queries: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """SQL of one create on each side ("T" inside a transaction, "A" autocommitted)."""
    return {
        "sql_per_create": {side: q["create"] for side, q in queries.items()},
        "autocommitted_writes_per_create": {side: q["create_autocommitted_writes"] for side, q in queries.items()},
        "create_sql": {side: q["create_sql"] for side, q in queries.items()},
    }


# --- the run ---------------------------------------------------------------------------------


def _environment(database_url: str, redis: str, tag: str) -> dict[str, str]:
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


def _set_up(stack: Stack) -> tuple[list[Server], Seed]:
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


def _warm_up_and_count(stack: Stack, servers: list[Server], seed: Seed, ids: list[str]) -> dict[str, dict[str, Any]]:
    """Warm both servers up while the SQL statements per request are counted beside them."""
    with ThreadPoolExecutor(len(servers)) as pool:
        counting = {s.name: pool.submit(_count_queries, stack, s, seed) for s in servers}
        _warm_up(servers, ids)
        queries = {name: future.result() for name, future in counting.items()}
    counts = {side: {k: v for k, v in q.items() if isinstance(v, int)} for side, q in queries.items()}
    _say(f"SQL statements per request (BEGIN, COMMIT included): {counts}")
    return queries


def _measure(stack: Stack, plan: Plan) -> list[Figure]:
    started = time.monotonic()
    servers, seed = _set_up(stack)
    _say(f"both servers up, database seeded ({time.monotonic() - started:.0f} s)")
    ids: list[str] = []
    for server in servers:
        _requests(server, seed, ids)
    queries = _warm_up_and_count(stack, servers, seed, ids)
    _say(f"warmed up ({time.monotonic() - started:.0f} s)")

    posts = _rounds(servers, POST, plan, keep=KEPT_IDS // (2 * plan.rounds))
    ids[:] = _ids(posts) or ids
    saturation = _median_rate(posts["service"])
    rate = OPEN_FRACTION * saturation
    open_service = _open(servers[0], rate, plan)
    open_ceiling = _open(servers[1], rate, plan) if plan.ceiling_open else None
    reads = _rounds(servers, GET_ONE, plan)
    pages = _rounds(servers, GET_PAGE, plan)
    stack.check_alive()
    return [
        _throughput(POST, posts, 0.5, _create_sql(queries)),
        _latency(open_service, open_ceiling, saturation),
        _throughput(GET_ONE, reads, 0.7, {"sql_per_read": {k: v["read"] for k, v in queries.items()}}),
        _throughput(GET_PAGE, pages, 0.25, {"page_size": 20}),
        _query_figure(queries),
    ]


def measure(quick: bool) -> list[Figure]:
    """The web-tier figures; a RuntimeError when the run is broken. Logs are kept on failure."""
    plan = QUICK if quick else FULL
    scratch = Path(tempfile.mkdtemp(prefix="bench-web-"))
    (scratch / "logs").mkdir()
    tag = secrets.token_hex(4)
    ok = False
    started = time.monotonic()
    try:
        with _scratch_redis() as redis, postgres_database(_database_server(), f"bench_web_{tag}") as database:
            stack = Stack(logs=scratch / "logs", env=_environment(database, redis, tag))
            try:
                figures = _measure(stack, plan)
            finally:
                stack.stop()
        ok = True
        _say(f"done in {time.monotonic() - started:.0f} s")
        return figures
    finally:
        if ok:
            subprocess.run(["/bin/rm", "-rf", str(scratch)], check=False)  # noqa: S603
        else:
            _say(f"logs kept in {scratch / 'logs'}")
