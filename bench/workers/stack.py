"""What every worker figure shares: the run's sizes, its scratch PostgreSQL and Redis databases,
the sandbox, the helper process, the demo team's accounts, and the Celery processes a figure
starts and stops.

The scratch database (`bench_workers_<hex>`) lives beside DATABASE_URL's on its PostgreSQL server
(the local default server when DATABASE_URL is not PostgreSQL) and is dropped at the end; Redis
database REDIS_DB is flushed before and after. The logs are kept when the run fails.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

from bench.common import (
    BIN,
    DEFAULT_DATABASE_URL,
    POSTGRES_SCHEMES,
    ROOT,
    Stack,
    free_port,
    http_ok,
    postgres_database,
    procfile_command,
    redis_url,
    wait_for,
)
from bench.publish_throughput import _sandbox_posts
from bench.workers.helper import Helper

REDIS_DB = 13


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


def psycopg_url(url: str) -> str:
    return urlunsplit(urlsplit(url)._replace(scheme="postgresql"))


def _database_server() -> str:
    """DATABASE_URL when it names a PostgreSQL server, else the local default one."""
    url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    return url if urlsplit(url).scheme in POSTGRES_SCHEMES else DEFAULT_DATABASE_URL


def _environment(database_url: str, sandbox_port: int) -> dict[str, str]:
    return {
        **os.environ,
        "APP_ENV": "development",
        "DEBUG": "false",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url(REDIS_DB),
        "SANDBOX_PORT": str(sandbox_port),
        "SANDBOX_URL": f"http://127.0.0.1:{sandbox_port}",
        "RATE_LIMIT_KEY_PREFIX": f"bench-workers-{secrets.token_hex(3)}",
        "PYTHONPATH": str(ROOT),
        "PYTHONUNBUFFERED": "1",
        # Thousands of posts through two sandbox accounts: paced, as the service paces a real
        # account (accounts.pacing), they would wait out X's 15-minute window; these figures
        # measure the engine alone.
        "PACE_ACCOUNTS": "false",
    }


@contextlib.contextmanager
def open_run() -> Iterator[Run]:
    """The run's databases and base processes, torn down on exit (the logs kept on failure)."""
    import redis

    folder = tempfile.mkdtemp(prefix="bench-workers-")
    broker = redis.Redis.from_url(redis_url(REDIS_DB))
    broker.flushdb()
    try:
        name = f"bench_workers_{secrets.token_hex(4)}"
        with (
            postgres_database(_database_server(), name) as database_url,
            _started(Path(folder), database_url, broker) as run,
        ):
            yield run
    except BaseException:
        print(f"bench.workers: logs kept in {folder}", file=sys.stderr)
        raise
    else:
        subprocess.run(["/bin/rm", "-rf", folder], check=False)  # noqa: S603
    finally:
        broker.flushdb()


@contextlib.contextmanager
def _started(logs: Path, database_url: str, broker: Any) -> Iterator[Run]:
    """The sandbox and the helper started, the database migrated and seeded: the Run."""
    sandbox_port = free_port()
    env = _environment(database_url, sandbox_port)
    base = Stack(logs=logs, env=env)
    base.start("sandbox", [sys.executable, "-m", "sandbox"])
    helper = Helper(env, (logs / "helper.log").open("wb"))  # starts up while migrate runs
    try:
        base.manage("migrate", "-v0")
        seed = helper("seed")
        with psycopg.connect(psycopg_url(database_url), autocommit=True) as db:
            wait_for(base, "sandbox", lambda: http_ok(sandbox_port, "/_sandbox/posts"))
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
        helper.close()
        base.stop()


# --- the processes a figure starts ------------------------------------------------------------


def celery(stack: Stack, name: str, *args: str) -> None:
    stack.start(name, [str(BIN / "celery"), "-A", "config", *args])


def procfile_worker(process: str) -> list[str]:
    """The Procfile's command line of a Celery worker process, with this virtualenv's celery
    and the environment's DISPATCH_THREADS, as honcho would start it."""
    threads = os.environ.get("DISPATCH_THREADS")
    argv = procfile_command(process, **({"DISPATCH_THREADS": threads} if threads else {}))
    return [str(BIN / "celery"), *argv[1:]]


def worker_ready(stack: Stack, name: str) -> None:
    wait_for(stack, name, lambda: any(" ready." in line for line in stack.log_lines(name)))


def quit_now(stack: Stack) -> None:
    """SIGQUIT to the workers and the web server: Celery's cold shutdown and gunicorn's quick
    one, instead of waiting for a graceful stop (beat has no such handler: it gets Stack.stop's
    SIGTERM); Stack.stop() then reaps them all."""
    for name, proc in stack.procs.items():
        if "beat" not in name and proc.poll() is None:
            proc.send_signal(signal.SIGQUIT)


def check_posts(run: Run, tag: str, published: int) -> int:
    """The sandbox holds exactly one post for each published target; raise otherwise."""
    posts = [p for p in _sandbox_posts(run.sandbox_port) if p["text"].startswith(f"Bench {tag}: ")]
    copies = Counter((p["platform"], p["text"]) for p in posts)
    if len(posts) != published or max(copies.values(), default=1) > 1:
        raise RuntimeError(f"the sandbox holds {len(posts)} posts ({len(copies)} distinct) for {published} published")
    return len(posts)
