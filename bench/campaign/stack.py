"""What the campaign figures share: their sizes, a run (scratch PostgreSQL database, Redis
database REDIS_DB, the sandbox, the helper process, the demo team), the service's processes
started from the Procfile as honcho would start them, and the sampling of the dispatch process.

The Procfile is read when a figure starts, never copied: its lanes, pools and thread counts
are what is measured. Each figure starts and stops its own processes on a run of its own, so
what one leaves behind (a campaign cut short) cannot reach the next.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psutil
import psycopg
import requests

from bench.campaign.helper import CAMPAIGN_HELPER
from bench.common import (
    ROOT,
    Stack,
    free_port,
    http_ok,
    postgres_database,
    procfile_command,
    procfile_processes,
    procfile_workers,
    redis_url,
    replace_option,
    wait_for,
)
from bench.workers.helper import Helper
from bench.workers.stack import _database_server, psycopg_url, worker_ready

REDIS_DB = 11
PLATFORMS = ("x", "bluesky", "linkedin", "facebook", "threads")
MB = 1024 * 1024


@dataclass(frozen=True)
class Sizes:
    accounts_per_platform: int
    publishes: int  # each with one target on every platform of PLATFORMS
    campaign_cap: float  # seconds after the due time before the campaign is cut short
    videos: int
    video_bytes: int
    text_rate: float  # text publishes created a second while the videos upload
    text_seconds: float
    video_cap: float  # seconds after the last text create before the figure is cut short


FULL = Sizes(
    accounts_per_platform=100, publishes=2000, campaign_cap=600,
    videos=20, video_bytes=200 * MB, text_rate=2, text_seconds=60, video_cap=600,
)  # fmt: skip
QUICK = Sizes(
    accounts_per_platform=10, publishes=100, campaign_cap=60,
    videos=2, video_bytes=20 * MB, text_rate=2, text_seconds=10, video_cap=90,
)  # fmt: skip


@dataclass
class Run:
    env: dict[str, str]
    logs: Path
    helper: Helper
    seed: dict[str, Any]
    team: str
    sandbox_port: int
    web_port: int
    db: psycopg.Connection[Any]

    def sql(self, query: str, *params: Any) -> Any:
        return self.db.execute(query, params).fetchone()

    def sandbox(self, path: str, body: dict[str, Any] | None = None) -> Any:
        url = f"http://127.0.0.1:{self.sandbox_port}/_sandbox/{path}"
        answer = requests.post(url, json=body, timeout=60) if body is not None else requests.get(url, timeout=60)
        answer.raise_for_status()
        return answer.json()


def _environment(database_url: str, sandbox_port: int, web_port: int) -> dict[str, str]:
    """`make run`'s environment (its defaults left alone) on the scratch databases."""
    return {
        **os.environ,
        "APP_ENV": "development",
        "DEBUG": "false",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url(REDIS_DB),
        "WEB_PORT": str(web_port),
        "PUBLIC_BASE_URL": f"http://127.0.0.1:{web_port}",
        "SANDBOX_PORT": str(sandbox_port),
        "SANDBOX_URL": f"http://127.0.0.1:{sandbox_port}",
        "RATE_LIMIT_KEY_PREFIX": f"bench-campaign-{secrets.token_hex(3)}",
        "PYTHONPATH": str(ROOT),
        "PYTHONUNBUFFERED": "1",
    }


@contextlib.contextmanager
def open_run(name: str, script: str = CAMPAIGN_HELPER) -> Iterator[Run]:
    """A run of its own: scratch database migrated and seeded, sandbox and helper (its calls
    `script`) started; all of it torn down on exit (the logs kept when it fails)."""
    import redis

    folder = Path(tempfile.mkdtemp(prefix=f"bench-campaign-{name}-"))
    broker = redis.Redis.from_url(redis_url(REDIS_DB))
    broker.flushdb()
    try:
        database = f"bench_campaign_{secrets.token_hex(4)}"
        with (
            postgres_database(_database_server(), database) as database_url,
            _started(folder, database_url, script) as run,
        ):
            yield run
    except BaseException:
        print(f"bench.campaign: logs kept in {folder}", file=sys.stderr)
        raise
    else:
        subprocess.run(["/bin/rm", "-rf", str(folder)], check=False)  # noqa: S603
    finally:
        broker.flushdb()


@contextlib.contextmanager
def _started(logs: Path, database_url: str, script: str) -> Iterator[Run]:
    sandbox_port, web_port = free_port(), free_port()
    env = _environment(database_url, sandbox_port, web_port)
    base = Stack(logs=logs, env=env)
    base.start("sandbox", [sys.executable, "-m", "sandbox"])
    helper = Helper(env, (logs / "helper.log").open("wb"), script=script)
    try:
        base.manage("migrate", "-v0")
        seed = helper("seed")
        with psycopg.connect(psycopg_url(database_url), autocommit=True) as db:
            wait_for(base, "sandbox", lambda: http_ok(sandbox_port, "/_sandbox/posts"))
            yield Run(env, logs, helper, seed, seed["teams"]["acme"]["id"], sandbox_port, web_port, db)
    finally:
        helper.close()
        base.stop()


# --- the service's processes ------------------------------------------------------------------


def procfile_argv(process: str, run: Run) -> list[str]:
    """The Procfile's line of `process` as honcho would run it: its ${NAME:-default}s from the
    environment, this virtualenv's programs, beat's schedule file in the run's folder."""
    names = set(re.findall(r"\$\{?(\w+)", (ROOT / "Procfile").read_text()))
    argv = procfile_command(process, **{n: run.env[n] for n in names if n in run.env})
    if process == "beat":
        argv = replace_option(argv, "--schedule", str(run.logs / "celerybeat-schedule"))
    return [str(ROOT / argv[0]) if argv[0].startswith(".venv/") else argv[0], *argv[1:]]


def start_service(run: Run, stack: Stack, *, web: bool) -> None:
    """Every Celery worker of the Procfile and beat (and the web server when `web`), ready."""
    workers = procfile_workers()
    for process in [*workers, "beat", *(["web"] if web else [])]:
        if process in procfile_processes():
            stack.start(process, procfile_argv(process, run))
    for process in workers:
        worker_ready(stack, process)
    wait_for(stack, "beat", lambda: any("is starting." in line for line in stack.log_lines("beat")))
    if web:
        wait_for(stack, "web server", lambda: http_ok(run.web_port, "/healthz"))


# --- the dispatch process, sampled ------------------------------------------------------------


@dataclass
class Sampler:
    """Once a second: the PostgreSQL connections (TCP to the database's port) and the resident
    memory of a process and all its children; `check` (when given) runs on the same beat."""

    pid: int
    database_port: int
    connections: list[int] = field(default_factory=list)
    rss: list[int] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def sample(self) -> None:
        root = psutil.Process(self.pid)
        tree = [root, *root.children(recursive=True)]
        with contextlib.suppress(psutil.NoSuchProcess):
            self.rss.append(sum(p.memory_info().rss for p in tree))
            self.connections.append(
                sum(
                    1
                    for p in tree
                    for c in p.net_connections(kind="tcp")
                    if c.raddr and c.raddr.port == self.database_port and c.status == psutil.CONN_ESTABLISHED
                )
            )

    def loop(self) -> None:
        while not self.stop.is_set():
            self.sample()
            self.stop.wait(1)

    @contextlib.contextmanager
    def running(self) -> Iterator[Sampler]:
        thread = threading.Thread(target=self.loop, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.stop.set()
            thread.join()


def dispatch_sampler(run: Run, stack: Stack) -> Sampler:
    port = urlsplit(run.env["DATABASE_URL"]).port or 5432
    return Sampler(pid=stack.procs["dispatch"].pid, database_port=port)


def until(moment: float, stack: Stack) -> None:
    """Sleep until the wall clock reads `moment`, failing early when a process dies."""
    while (pause := moment - time.time()) > 0:
        stack.check_alive()
        time.sleep(min(pause, 0.5))
