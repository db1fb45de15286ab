"""The worker side of publishing (issue #12): four figures, each measured on its own processes.

1. **create → published at a constant arrival rate.** The stack as the Procfile runs it (gunicorn
   2x4 threads, the `dispatch` worker, the `worker` line with one prefork process for the other
   queues, beat, the sandbox): two worker processes.
   Creates (X and Bluesky targets) are sent at RATE a second on a fixed timetable (an open
   model: a slow answer does not slow the arrivals), each on its own API key's budget. The
   figure is the p99 from a create's scheduled arrival to its last target's `published_at`; the
   backlog (publishes created and not final) is sampled every half second and must stay flat.
2. **dispatch claims per worker process.** Pending jobs are handed to the broker first, then one
   worker process (the Procfile's `dispatch` line: threads) drains them against the sandbox,
   which answers at once: delivered jobs per second between the first claim and the last
   answer recorded. PostgreSQL's `pg_stat_database.sessions` for the scratch database, read
   before and after, says how many connections were opened meanwhile; the CPU time of the
   worker, its PostgreSQL backend and the sandbox says what one delivery costs each.
3. **outbox relay.** RELAY jobs are written pending and never handed over; one process calls the
   relay as beat does. The figure counts beat's relay interval for each call beyond the first.
4. **scheduled release.** RELEASE scheduled publishes are all made due at the same moment while a
   worker (2 processes, `default` queue) runs. The bench sends beat's `publishing.release_due`
   task on beat's timetable, with a tick just before the due time (the phase where beat alone
   would release them a whole SCHEDULER_TICK_SECONDS late): that tick finds nothing due yet and
   arms a run for the due moment, as it does for anything due before the next tick. Lateness
   is the moment a publish's job reached the broker minus its due time. Deliveries are not
   consumed during this figure.

A run is broken (RuntimeError) on any create answered other than 201, a publish not published,
a sandbox post missing or sent twice, a job delivered twice or a message count that does not
match. It uses its own PostgreSQL database (`bench_workers_<hex>`, beside DATABASE_URL's server,
dropped at the end) and Redis database 13 (flushed before and after).

QUICK (CI) uses smaller counts, named in each figure and marked `quick` in its extras.

    .venv/bin/python -m bench.workers [--quick] [--only claims|rate|relay|release ...]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

from bench.common import Figure, machine, procfile_command, replace_option
from bench.publish_throughput import (
    BIN,
    CREATES_PER_KEY,
    ROOT,
    Create,
    Stack,
    _create,
    _database,
    _free_port,
    _http_ok,
    _pct,
    _sandbox_posts,
    _wait,
)

REDIS_DB = 13
FINAL = ("published", "failed", "partial")
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
WEB = ["--workers", "2", "--threads", "4", "--timeout", "60", "--no-control-socket"]  # the Procfile's web line
WORKER = ["--without-gossip", "--without-mingle", "--loglevel", "INFO"]


@dataclass(frozen=True)
class Sizes:
    rate: float  # creates a second in the open-model figure
    rate_seconds: float  # how long creates arrive
    claims: int  # jobs drained by one worker process
    claims_cap: float  # seconds the drain may take before it is cut short
    relay: int  # pending jobs the relay hands over
    release: int  # scheduled publishes due in the same second
    release_cap: float  # seconds after the due time the release may take before it is cut short


FULL = Sizes(rate=20, rate_seconds=60, claims=3000, claims_cap=30, relay=10_000, release=10_000, release_cap=60)
QUICK = Sizes(rate=20, rate_seconds=4, claims=400, claims_cap=2.5, relay=1000, release=1000, release_cap=15)


# --- a Django process the benchmark talks to -------------------------------------------------

# Runs in `manage.py shell`: one JSON request a line on stdin, one answer a line on stdout.
HELPER = r'''
import datetime as dt, json, sys, time, traceback
from django.conf import settings
from django.db.models import Count
from django.utils import timezone
from accounts.models import SocialAccount
from publishing import dispatch
from publishing.models import DeliveryAttempt, DeliveryJob, Publish, ScheduledRelease, Target
from teams.models import Team

CHUNK = 2000

def _rows(tag, n, accounts, state, due=None):
    """n publishes of one target each (accounts taken in turn), written in bulk."""
    team = SocialAccount.objects.get(pk=accounts[0]).team
    owned = {str(a.pk): a for a in SocialAccount.objects.filter(pk__in=accounts)}
    now = timezone.now()
    made = []
    for start in range(0, n, CHUNK):
        publishes, targets, extra = [], [], []
        for i in range(start, min(n, start + CHUNK)):
            account = owned[accounts[i % len(accounts)]]
            publish = Publish(
                team=team, content=f"Bench {tag}: {i}", confirmed=True,
                publish_mode="scheduled" if state == "scheduled" else "immediate",
                status="scheduled" if state == "scheduled" else "publishing",
                scheduled_at=due, released_at=None if state == "scheduled" else now,
            )
            publishes.append(publish)
            targets.append(Target(
                publish=publish, account=account, platform=account.platform, state=state,
                attempt_count=0 if state == "scheduled" else 1,
            ))
        Publish.objects.bulk_create(publishes)
        Target.objects.bulk_create(targets)
        if state == "scheduled":
            ScheduledRelease.objects.bulk_create([ScheduledRelease(publish=p, due_at=due) for p in publishes])
        else:
            claimable = now - dt.timedelta(seconds=1)
            jobs = [
                DeliveryJob(target=t, number=1, dispatch_id=f"deliver:{t.pk}:1", not_before=claimable) for t in targets
            ]
            made += [str(j.pk) for j in DeliveryJob.objects.bulk_create(jobs)]
    return made

def seed():
    import io
    from django.core.management import call_command
    out = io.StringIO()
    call_command("seed_demo", "--fresh", "--json", stdout=out)
    return json.loads(out.getvalue())

def make_keys(team, n):
    from teams import services
    from teams.models import SCOPES, Membership, Role
    owner = Membership.objects.select_related("team", "user").get(team_id=team, role=Role.OWNER)
    return [
        services.api_key_create(user=owner.user, name=f"bench {k}", scopes=SCOPES, team=owner.team)[1]
        for k in range(n)
    ]

def make_jobs(tag, n, accounts, enqueue):
    ids = _rows(tag, n, accounts, "queued")
    started = time.perf_counter()
    if enqueue:
        for start in range(0, len(ids), 500):
            dispatch.send_jobs(ids[start:start + 500])
    return {"jobs": len(ids), "enqueue_seconds": time.perf_counter() - started}

def make_scheduled(tag, n, accounts):
    far = timezone.now() + dt.timedelta(days=1)
    _rows(tag, n, accounts, "scheduled", due=far)
    return n

def settle_leftovers():
    return DeliveryJob.objects.exclude(state="done").update(state="done")

def tick_seconds():
    return float(settings.SCHEDULER_TICK_SECONDS)

def tick():
    from publishing.tasks import release_due
    release_due.delay()

def set_due(tag, at):
    due = dt.datetime.fromtimestamp(at, dt.timezone.utc)
    Publish.objects.filter(content__startswith=f"Bench {tag}: ").update(scheduled_at=due)
    return ScheduledRelease.objects.filter(publish__content__startswith=f"Bench {tag}: ").update(due_at=due)

def relay_drain(tag, max_calls):
    jobs = DeliveryJob.objects.filter(target__publish__content__startswith=f"Bench {tag}: ")
    calls, seconds = [], []
    while len(calls) < max_calls and jobs.filter(enqueued_at__isnull=True).exists():
        started = time.perf_counter()
        calls.append(dispatch.relay())
        seconds.append(time.perf_counter() - started)
    return {"calls": calls, "seconds": seconds, "left": jobs.filter(enqueued_at__isnull=True).count(),
            "interval": float(settings.CELERY_BEAT_SCHEDULE["publishing-relay"]["schedule"])}

def claims_report(tag):
    jobs = DeliveryJob.objects.filter(target__publish__content__startswith=f"Bench {tag}: ")
    attempts = DeliveryAttempt.objects.filter(target__publish__content__startswith=f"Bench {tag}: ")
    stamp = lambda m: None if m is None else m.timestamp()
    claimed = sorted(stamp(c) for c in jobs.exclude(claimed_at=None).values_list("claimed_at", flat=True))
    finished = sorted(stamp(f) for f in attempts.exclude(finished_at=None).values_list("finished_at", flat=True))
    return {
        "jobs": dict(jobs.values_list("state").annotate(n=Count("id")).values_list("state", "n")),
        "runs_over_one": jobs.filter(runs__gt=1).count(),
        "attempts": attempts.count(),
        "published": Target.objects.filter(publish__content__startswith=f"Bench {tag}: ", state="published").count(),
        "claimed": claimed, "finished": finished,
    }

def release_report(tag):
    stamp = lambda m: None if m is None else m.timestamp()
    publishes = Publish.objects.filter(content__startswith=f"Bench {tag}: ")
    jobs = DeliveryJob.objects.filter(target__publish__in=publishes)
    handed = {str(p): stamp(e) for p, e in jobs.values_list("target__publish_id", "enqueued_at")}
    released = {str(p): stamp(r) for p, r in publishes.values_list("id", "released_at")}
    due = {str(p): stamp(d) for p, d in publishes.values_list("id", "scheduled_at")}
    return {"due": due, "released": released, "handed": handed,
            "waiting": ScheduledRelease.objects.filter(publish__in=publishes).count(),
            "jobs": DeliveryJob.objects.filter(target__publish__in=publishes).count(),
            "tick": float(settings.SCHEDULER_TICK_SECONDS)}

def watch(ids, wait):
    deadline = time.monotonic() + wait
    while Publish.objects.filter(pk__in=ids).exclude(status__in=FINAL).exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    stamp = lambda m: None if m is None else m.timestamp()
    rows = {str(p.pk): {"status": p.status, "targets": []} for p in Publish.objects.filter(pk__in=ids)}
    for t in Target.objects.filter(publish_id__in=ids).prefetch_related("attempts"):
        rows[str(t.publish_id)]["targets"].append({
            "platform": t.platform, "state": t.state, "published_at": stamp(t.published_at),
            "error": f"{t.error_code} {t.error_message}".strip(), "attempts": t.attempts.count(),
        })
    return rows

FINAL = ("published", "failed", "partial")
CALLS = {
    f.__name__: f
    for f in (
        seed, make_keys, make_jobs, make_scheduled, settle_leftovers, tick_seconds, tick, set_due, relay_drain,
        claims_report, release_report, watch,
    )
}
for line in sys.stdin:
    request = json.loads(line)
    try:
        answer = {"ok": CALLS[request["call"]](**request["args"])}
    except Exception:
        answer = {"error": traceback.format_exc()}
    sys.stdout.write("@@" + json.dumps(answer) + "\n")
    sys.stdout.flush()
'''


class Helper:
    """A `manage.py shell` process on the scratch database that answers the calls of HELPER."""

    def __init__(self, env: dict[str, str], log: IO[bytes]) -> None:
        self.log = log
        self.proc = subprocess.Popen(  # noqa: S603 - our own interpreter running our own code
            [sys.executable, "manage.py", "shell", "-v0", "-c", HELPER],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            start_new_session=True,
        )

    def __call__(self, call: str, **args: Any) -> Any:
        assert self.proc.stdin is not None  # pipes were asked for
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"call": call, "args": args}) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the helper process exited during {call}")
            if line.startswith("@@"):
                answer = json.loads(line[2:])
                if "error" in answer:
                    raise RuntimeError(f"helper call {call} failed:\n{answer['error']}")
                return answer["ok"]

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


# --- the run's environment --------------------------------------------------------------------


@dataclass
class Run:
    """What every figure shares: the environment of the processes, the scratch database, the
    sandbox, the demo team's accounts and the logs folder."""

    env: dict[str, str]
    database_url: str
    logs: Path
    helper: Helper
    accounts: list[str]  # X, Bluesky
    team: str
    demo_key: str
    sandbox_port: int
    sandbox_pid: int
    redis: Any
    db: psycopg.Connection[Any]  # opened once: polling it opens no session during a figure

    def stack(self) -> Stack:
        return Stack(logs=self.logs, env=self.env)

    def flush_broker(self) -> None:
        self.redis.flushdb()

    def queued(self, queue: str = "dispatch") -> int:
        return int(self.redis.llen(queue))

    def sql(self, query: str, *params: Any) -> Any:
        return self.db.execute(query, params).fetchone()


def _psycopg_url(url: str) -> str:
    return urlunsplit(urlsplit(url)._replace(scheme="postgresql"))


def _redis_url(db: int) -> str:
    given = urlsplit(os.environ.get("REDIS_URL") or DEFAULT_REDIS)
    return urlunsplit(given._replace(path=f"/{db}"))


@contextlib.contextmanager
def _scratch_database(folder: str) -> Iterator[str]:
    """A `bench_workers_<hex>` database on DATABASE_URL's PostgreSQL server, dropped at the end."""
    given = urlsplit(os.environ.get("DATABASE_URL") or DEFAULT_DATABASE)
    if given.scheme not in {"postgres", "postgresql", "pgsql"}:
        given = urlsplit(DEFAULT_DATABASE)
    saved = os.environ.get("DATABASE_URL")
    # _database names the scratch database after DATABASE_URL's: point it at bench_workers.
    os.environ["DATABASE_URL"] = urlunsplit(given._replace(path="/bench_workers"))
    try:
        with _database(folder) as (url, _):
            _restore("DATABASE_URL", saved)
            yield url
    finally:
        _restore("DATABASE_URL", saved)


def _restore(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


@contextlib.contextmanager
def _run() -> Iterator[Run]:
    import redis

    folder = tempfile.mkdtemp(prefix="bench-workers-")
    logs = Path(folder)
    broker = redis.Redis.from_url(_redis_url(REDIS_DB))
    broker.flushdb()
    sandbox_port = _free_port()
    try:
        with _scratch_database(folder) as database_url:
            env = {
                **os.environ,
                "APP_ENV": "development",
                "DEBUG": "false",
                "DATABASE_URL": database_url,
                "REDIS_URL": _redis_url(REDIS_DB),
                "SANDBOX_PORT": str(sandbox_port),
                "SANDBOX_URL": f"http://127.0.0.1:{sandbox_port}",
                "RATE_LIMIT_KEY_PREFIX": f"bench-workers-{secrets.token_hex(3)}",
                "PYTHONPATH": str(ROOT),
                "PYTHONUNBUFFERED": "1",
            }
            base = Stack(logs=logs, env=env)
            base.start("sandbox", [sys.executable, "-m", "sandbox"])
            helper = Helper(env, (logs / "helper.log").open("wb"))  # starts up while migrate runs
            base.manage("migrate", "-v0")
            seed = helper("seed")
            db = psycopg.connect(_psycopg_url(database_url), autocommit=True)
            try:
                _wait(base, "sandbox", lambda: _http_ok(sandbox_port, "/_sandbox/posts"))
                yield Run(
                    env=env,
                    database_url=database_url,
                    logs=logs,
                    helper=helper,
                    accounts=[seed["accounts"]["acme"]["x"], seed["accounts"]["acme"]["bluesky"]],
                    team=seed["teams"]["acme"]["id"],
                    demo_key=seed["keys"]["acme_owner"],
                    sandbox_port=sandbox_port,
                    sandbox_pid=base.procs["sandbox"].pid,
                    redis=broker,
                    db=db,
                )
            finally:
                db.close()
                helper.close()
                base.stop()
    except BaseException:
        print(f"bench.workers: logs kept in {folder}", file=sys.stderr)
        raise
    else:
        subprocess.run(["/bin/rm", "-rf", folder], check=False)  # noqa: S603
    finally:
        broker.flushdb()


def _celery(stack: Stack, name: str, *args: str) -> None:
    stack.start(name, [str(BIN / "celery"), "-A", "config", *args])


def _procfile_worker(process: str) -> list[str]:
    """The Procfile's command line of a Celery worker process, with this virtualenv's celery
    and the environment's DISPATCH_THREADS, as honcho would start it."""
    threads = os.environ.get("DISPATCH_THREADS")
    argv = procfile_command(process, **({"DISPATCH_THREADS": threads} if threads else {}))
    return [str(BIN / "celery"), *argv[1:]]


def _worker_ready(stack: Stack, name: str) -> None:
    _wait(stack, name, lambda: any(" ready." in line for line in stack.log_lines(name)))


def _posts(run: Run, tag: str) -> list[dict[str, Any]]:
    return [p for p in _sandbox_posts(run.sandbox_port) if p["text"].startswith(f"Bench {tag}: ")]


def _check_posts(run: Run, tag: str, published: int) -> int:
    """The sandbox holds exactly one post for each published target; raise otherwise."""
    posts = _posts(run, tag)
    copies = Counter((p["platform"], p["text"]) for p in posts)
    if len(posts) != published or max(copies.values(), default=1) > 1:
        raise RuntimeError(f"the sandbox holds {len(posts)} posts ({len(copies)} distinct) for {published} published")
    return len(posts)


# --- figure: claims per worker process --------------------------------------------------------


def _sessions(run: Run) -> int:
    row = run.sql("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
    return int(row[0])


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process and its children still alive, from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total, pids = 0.0, [pid]
    with contextlib.suppress(OSError):
        pids += [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    for one in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{one}/stat").read_text().rpartition(")")[2].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def _worker_backends(run: Run, since: float) -> list[int]:
    """PostgreSQL backends of the scratch database opened after `since` (the worker's)."""
    rows = run.db.execute(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_start > to_timestamp(%s)",
        (since,),
    ).fetchall()
    return [int(row[0]) for row in rows]


def claims(run: Run, sizes: Sizes) -> Figure:
    tag = f"claims {secrets.token_hex(3)}"
    run.flush_broker()
    made = run.helper("make_jobs", tag=tag, n=sizes.claims, accounts=run.accounts, enqueue=True)
    if run.queued() != sizes.claims:
        raise RuntimeError(f"{run.queued()} messages queued for {sizes.claims} jobs")
    before = _sessions(run)  # counted when a session starts: nothing pending from the helper's
    stack = run.stack()
    cpu: dict[str, float] = {}
    last: dict[str, float] = {}
    try:
        launched = time.time()
        stack.start("claims", _procfile_worker("dispatch"))
        deadline = time.monotonic() + 30 + sizes.claims_cap
        done = 0
        while time.monotonic() < deadline and done < sizes.claims:
            stack.check_alive()
            time.sleep(0.25)
            done, started = run.sql(
                "SELECT count(*) FILTER (WHERE j.state = 'done'), min(j.claimed_at) FROM publishing_deliveryjob j "
                "JOIN publishing_target t ON t.id = j.target_id JOIN publishing_publish p ON p.id = t.publish_id "
                "WHERE p.content LIKE %s",
                f"Bench {tag}: %",
            )
            # CPU is counted from the first delivery on: the worker's start-up is not a task's.
            sample = _cpu_sample(run, stack, launched, done)
            cpu = cpu or (sample if done else {})
            if started is not None and time.time() - started.timestamp() > sizes.claims_cap:
                break
        last = _cpu_sample(run, stack, launched, done)
    finally:
        stack.stop()
    time.sleep(0.5)  # the worker's backends exit, flushing what they counted
    opened = _sessions(run) - before
    report = run.helper("claims_report", tag=tag)
    finished, claimed = report["finished"], report["claimed"]
    if report["runs_over_one"] or report["attempts"] != len(claimed) or not finished:
        raise RuntimeError(
            f"claims run broken: { ({k: v for k, v in report.items() if k not in ('claimed', 'finished')}) }"
        )
    _check_posts(run, tag, report["published"])
    span = finished[-1] - claimed[0]
    rate = len(finished) / span if span > 0 else float("nan")
    return Figure(
        name="dispatch claims per worker process (sandbox answering at once)",
        value=round(rate, 1),
        unit="/s",
        goal=">= 150/s, no new DB connection per task",
        met=rate >= 150 and opened < len(finished) / 10,
        extra={
            "delivered": len(finished),
            "preloaded_jobs": made["jobs"],
            "seconds": round(span, 2),
            "pg_sessions_opened": opened,
            "pg_sessions_note": "pg_stat_database.sessions delta while the dispatch worker process ran",
            "cut_short": len(finished) < sizes.claims,
            **_cpu_per_delivery(cpu, last),
            "quick": sizes is QUICK,
        },
    )


def _cpu_sample(run: Run, stack: Stack, launched: float, done: int) -> dict[str, float]:
    return {
        "done": float(done),
        "worker": _cpu_seconds(stack.procs["claims"].pid),
        "postgres": sum(_cpu_seconds(pid) for pid in _worker_backends(run, launched)),
        "sandbox": _cpu_seconds(run.sandbox_pid),
    }


def _cpu_per_delivery(first: dict[str, float], last: dict[str, float]) -> dict[str, Any]:
    """CPU milliseconds a delivery cost each process, between two samples. The PostgreSQL
    figure counts only backends alive at both samples (a connection per task escapes it)."""
    delivered = last.get("done", 0.0) - first.get("done", 0.0)
    if not first or delivered <= 0:
        return {}
    per = {k: round((last[k] - first[k]) / delivered * 1000, 2) for k in ("worker", "postgres", "sandbox")}
    return {
        "cpu_ms_per_delivery": per,
        "cpu_note": "worker = the dispatch worker process (its threads); one core spent only on it "
        f"would deliver about {1000 / per['worker']:.0f}/s"
        if per["worker"] > 0
        else "",
    }


# --- figure: create to published at a constant arrival rate ---------------------------------


def _start_stack(run: Run, stack: Stack, port: int) -> None:
    stack.start("web", [str(BIN / "gunicorn"), "config.wsgi", "--bind", f"127.0.0.1:{port}", *WEB])
    # Two worker processes: the dispatch worker's one, and one prefork process for the rest.
    stack.start("worker", replace_option(_procfile_worker("worker"), "--concurrency", "1"))
    stack.start("dispatch", _procfile_worker("dispatch"))
    _celery(stack, "beat", "beat", "--loglevel", "INFO", "--schedule", str(run.logs / "beat-schedule"))
    _wait(stack, "web server", lambda: _http_ok(port, "/healthz"))
    _worker_ready(stack, "worker")
    _worker_ready(stack, "dispatch")


def _payload(tag: str, n: int, accounts: list[str]) -> dict[str, Any]:
    return {
        "content": f"Bench {tag}: {n}",
        "targets": [{"account_id": a} for a in accounts],
        "publish_mode": "immediate",
    }


@dataclass(frozen=True)
class Arrivals:
    creates: list[Create]  # each `sent` is its scheduled moment: a late send counts as latency
    seconds: float  # from the first scheduled arrival to the last send
    lag: float  # the latest a create went out after its scheduled moment


def _open_model(port: int, keys: list[str], accounts: list[str], tag: str, rate: float, count: int) -> Arrivals:
    """Send `count` creates on a fixed timetable of `rate` a second, whatever their answers take."""
    started, wall = time.monotonic(), time.time()
    with ThreadPoolExecutor(max_workers=256) as pool:
        futures: list[Future[Create]] = []
        for n in range(count):
            pause = started + n / rate - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            futures.append(pool.submit(_create, port, keys[n % len(keys)], _payload(tag, n, accounts)))
        seconds = time.monotonic() - started
        done = [f.result() for f in futures]
    creates = [replace(c, sent=wall + n / rate) for n, c in enumerate(done)]
    lag = max((d.sent - c.sent for d, c in zip(done, creates, strict=True)), default=0.0)
    return Arrivals(creates, seconds, lag)


def _sampler(run: Run, tag: str, stop: threading.Event, samples: list[tuple[float, int]]) -> None:
    with psycopg.connect(_psycopg_url(run.database_url), autocommit=True) as conn:
        while not stop.is_set():
            row = conn.execute(
                "SELECT count(*) FROM publishing_publish WHERE content LIKE %s AND status <> ALL(%s)",
                (f"Bench {tag}: %", list(FINAL)),
            ).fetchone()
            samples.append((time.monotonic(), int(row[0]) if row else 0))
            stop.wait(0.5)


def _slope(points: list[tuple[float, int]]) -> float:
    """Least-squares slope of the backlog over time, in publishes a second."""
    if len(points) < 2:
        return 0.0
    mean_t = sum(t for t, _ in points) / len(points)
    mean_v = sum(v for _, v in points) / len(points)
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    return sum((t - mean_t) * (v - mean_v) for t, v in points) / spread if spread else 0.0


def create_to_published(run: Run, sizes: Sizes) -> Figure:
    tag = f"rate {secrets.token_hex(3)}"
    count = int(sizes.rate * sizes.rate_seconds)
    keys = run.helper("make_keys", team=run.team, n=math.ceil(count / CREATES_PER_KEY))
    run.flush_broker()
    port = _free_port()
    stack = run.stack()
    samples: list[tuple[float, int]] = []
    stop = threading.Event()
    try:
        _start_stack(run, stack, port)
        warm = [_create(port, run.demo_key, _payload(f"{tag} warm-up", n, run.accounts)) for n in range(2)]
        _published(run, warm, wait=30)
        sampler = threading.Thread(target=_sampler, args=(run, tag, stop, samples), daemon=True)
        sampler.start()
        begun = time.monotonic()
        arrivals = _open_model(port, keys, run.accounts, tag, sizes.rate, count)
        creates, sent_for = arrivals.creates, arrivals.seconds
        rows = _published(run, creates, wait=60 + 0.1 * count)  # a slow drain is slow, not broken
        stop.set()
        sampler.join()
        stack.check_alive()
        _quit(stack)  # everything is published: nothing in flight is worth a graceful stop
    finally:
        stop.set()
        stack.stop()
    latencies = [
        max(t["published_at"] for t in rows[c.publish_id]["targets"]) - c.sent for c in creates if c.publish_id
    ]
    posts = _check_posts(run, tag, sum(len(r["targets"]) for r in rows.values()))
    during = [(t, v) for t, v in samples if t - begun <= sent_for]
    steady = during[len(during) // 5 :]  # past the first fifth: the pipeline has filled
    slope = _slope(steady)
    p99 = _pct(latencies, 99)
    flat = slope <= 0.05 * sizes.rate
    return Figure(
        name=f"create -> published at {sizes.rate:g} publishes/s (2 targets, open model, 2 worker processes)",
        value=round(p99, 3),
        unit="s",
        goal="p99 <= 1.5 s, backlog flat",
        met=p99 <= 1.5 and flat,
        extra={
            "publishes": len(creates),
            "arrival_seconds": round(sent_for, 1),
            "p50_s": round(_pct(latencies, 50), 3),
            "p95_s": round(_pct(latencies, 95), 3),
            "max_s": round(max(latencies), 3),
            "create_call_p50_ms": round(_pct([c.seconds for c in creates], 50) * 1000, 1),
            "create_call_p99_ms": round(_pct([c.seconds for c in creates], 99) * 1000, 1),
            "backlog_slope_per_s": round(slope, 3),
            "backlog_max": max((v for _, v in during), default=0),
            "backlog_at_quarters": [during[int(q * (len(during) - 1))][1] for q in (0.25, 0.5, 0.75, 1.0)]
            if during
            else [],
            "latest_send_after_schedule_s": round(arrivals.lag, 3),
            "latency_note": "from each create's scheduled arrival to its last target's published_at",
            "sandbox_posts": posts,
            "quick": sizes is QUICK,
        },
    )


def _published(run: Run, creates: list[Create], *, wait: float) -> dict[str, Any]:
    """Every create answered 201 and its publish is published with one attempt a target; raise
    otherwise. The publishes' rows, read once they are final."""
    refused = [c for c in creates if c.status != 201]
    if refused:
        raise RuntimeError(
            f"{len(refused)} creates answered {dict(Counter(c.status for c in refused))}: {refused[0].body[:300]!r}"
        )
    rows: dict[str, Any] = run.helper("watch", ids=[c.publish_id for c in creates], wait=wait)
    bad = {
        pid: r for pid, r in rows.items() if r["status"] != "published" or any(t["attempts"] != 1 for t in r["targets"])
    }
    if bad or len(rows) != len(creates):
        first = next(iter(bad.items()), None)
        raise RuntimeError(f"{len(bad)} of {len(creates)} publishes not published once, e.g. {first}")
    return rows


# --- figure: relay ----------------------------------------------------------------------------


def relay(run: Run, sizes: Sizes) -> Figure:
    tag = f"relay {secrets.token_hex(3)}"
    run.helper("settle_leftovers")  # jobs an earlier figure left pending are not the relay's here
    run.flush_broker()
    run.helper("make_jobs", tag=tag, n=sizes.relay, accounts=run.accounts, enqueue=False)
    # The same bound as the release figure: a relay that needs more calls is cut short.
    drained = run.helper("relay_drain", tag=tag, max_calls=200)
    if drained["left"] or run.queued() != sizes.relay:
        raise RuntimeError(f"relay left {drained['left']} jobs; {run.queued()} messages for {sizes.relay} jobs")
    calls, seconds, interval = len(drained["calls"]), drained["seconds"], drained["interval"]
    # Beat calls the relay once an interval: each call beyond the first waits for the next one.
    at_cadence = (calls - 1) * interval + seconds[-1]
    run.flush_broker()
    return Figure(
        name=f"outbox relay: {sizes.relay:,} pending jobs drained by one process",
        value=round(at_cadence, 2),
        unit="s",
        goal="<= 10 s",
        met=at_cadence <= 10,
        extra={
            "relay_calls": calls,
            "relay_interval_s": interval,
            "work_seconds": round(sum(seconds), 2),
            "jobs_per_work_second": round(sizes.relay / sum(seconds), 1),
            "messages_queued": sizes.relay,
            "quick": sizes is QUICK,
        },
    )


# --- figure: scheduled release ----------------------------------------------------------------


def release(run: Run, sizes: Sizes) -> Figure:
    tag = f"release {secrets.token_hex(3)}"
    run.flush_broker()
    stack = run.stack()
    try:
        _celery(stack, "release-worker", "worker", "-Q", "default", "-c", "2", "-n", "release@%h", *WORKER)
        run.helper("make_scheduled", tag=tag, n=sizes.release, accounts=run.accounts)
        _worker_ready(stack, "release-worker")
        tick = float(run.helper("tick_seconds"))
        due = time.time() + 0.5
        run.helper("set_due", tag=tag, at=due)
        # A tick just before the due time finds nothing due yet (it arms a run for the due
        # moment); the next one comes a whole tick later. The bench sends beat's task on that
        # timetable.
        ticks = (due - 0.05 + tick * n for n in range(1000))
        deadline = due + sizes.release_cap
        while time.time() < deadline:
            _until(next(ticks), stack)
            run.helper("tick")
            if _released(run, tag, sizes.release, wait=min(tick, deadline - time.time()), stack=stack) >= sizes.release:
                break
        _quit(stack)  # whatever is still running changes nothing the figure reads
    finally:
        stack.stop()
    report = run.helper("release_report", tag=tag)
    handed = sorted(report["handed"][p] - due for p in report["due"] if report["handed"].get(p) is not None)
    messages = run.queued()
    # A relay racing a release may send a job twice (harmless: the claim is a compare-and-set).
    if report["jobs"] != len(report["handed"]) or messages < len(handed):
        raise RuntimeError(f"{report['jobs']} jobs for {len(report['handed'])} publishes, {messages} messages")
    run.flush_broker()
    if not handed:
        raise RuntimeError(f"nothing was released within {sizes.release_cap:g} s of the due time")
    released_all = len(handed) == sizes.release
    last = handed[-1] if handed else float("nan")
    p99 = _pct(handed, 99) if released_all else float("inf")
    tick = report["tick"]
    spread = last - handed[0] if handed else 0.0
    rate = (len(handed) - 1) / spread if spread > 0 else None
    extrapolated = handed[0] + sizes.release / rate if rate else last
    return Figure(
        name=f"scheduled release: {sizes.release:,} publishes due in the same second",
        value=round(last if released_all else extrapolated, 2),
        unit="s",
        goal=f"all released <= 15 s; lateness p99 <= tick + 1 s ({tick + 1:g} s)",
        met=released_all and last <= 15 and p99 <= tick + 1,
        extra={
            "released": len(handed),
            "still_waiting": report["waiting"],
            "lateness_first_s": round(min(handed, default=float("nan")), 2),
            "lateness_p50_s": round(_pct(handed, 50), 2),
            "lateness_p99_s": round(_pct(handed, 99), 2),
            "lateness_max_s": round(last, 2),
            "tick_s": tick,
            "released_per_s_after_first": None if rate is None else round(rate, 1),
            "all_released_in_time": released_all,
            "value_note": "the last lateness, or an extrapolation at the measured rate when cut short",
            "duplicate_messages": messages - len(handed),
            "lateness_note": "job handed to the broker minus due time; the first value is when the first run began",
            "quick": sizes is QUICK,
        },
    )


def _quit(stack: Stack) -> None:
    """SIGQUIT to the workers and the web server: Celery's cold shutdown and gunicorn's quick
    one, instead of waiting for a graceful stop (beat has no such handler: it gets Stack.stop's
    SIGTERM); Stack.stop() then reaps them all."""
    for name, proc in stack.procs.items():
        if "beat" not in name and proc.poll() is None:
            proc.send_signal(signal.SIGQUIT)


def _until(moment: float, stack: Stack) -> None:
    while (pause := moment - time.time()) > 0:
        stack.check_alive()
        time.sleep(min(pause, 0.5))


def _released(run: Run, tag: str, total: int, *, wait: float, stack: Stack) -> int:
    """Jobs of the tag's publishes handed to the broker, once all `total` are or `wait` is over."""
    deadline = time.time() + wait
    while True:
        stack.check_alive()
        row = run.sql(
            "SELECT count(*) FROM publishing_deliveryjob j JOIN publishing_target t ON t.id = j.target_id "
            "JOIN publishing_publish p ON p.id = t.publish_id WHERE p.content LIKE %s AND j.enqueued_at IS NOT NULL",
            f"Bench {tag}: %",
        )
        if int(row[0]) >= total or time.time() >= deadline:
            return int(row[0])
        time.sleep(0.25)


# --- entry points -----------------------------------------------------------------------------

FIGURES: dict[str, Callable[[Run, Sizes], Figure]] = {
    "claims": claims,
    "rate": create_to_published,
    "relay": relay,
    "release": release,
}


def _figures(quick: bool, only: list[str] | None) -> Iterator[Figure]:
    sizes = QUICK if quick else FULL
    started = time.monotonic()
    with _run() as run:
        print(f"bench.workers: set up in {time.monotonic() - started:.1f} s", file=sys.stderr)
        for name in only or FIGURES:
            begun = time.monotonic()
            figure = FIGURES[name](run, sizes)
            figure.extra["load_average"] = [round(load, 2) for load in os.getloadavg()]
            print(f"bench.workers: {name} took {time.monotonic() - begun:.1f} s", file=sys.stderr)
            yield figure


def measure(quick: bool, only: list[str] | None = None) -> list[Figure]:
    """The figures of issue #12; `quick` uses the smaller counts of QUICK (CI)."""
    return list(_figures(quick, only))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the smaller counts used in CI")
    parser.add_argument("--only", action="append", choices=sorted(FIGURES), help="measure only this figure")
    args = parser.parse_args()
    started = time.monotonic()
    print(json.dumps({"machine": machine()}), flush=True)
    for figure in _figures(args.quick, args.only):
        print(json.dumps(figure.as_dict()), flush=True)
    print(json.dumps({"seconds": round(time.monotonic() - started, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
