"""What every `make bench` figure module shares: the figure record, the machine's facts, and
the helpers that start processes, scratch databases and wait for servers.

A figure module exposes `measure(quick: bool) -> list[Figure]`; it starts what it measures
(its own scratch database and processes) and stops it again, and measures each figure's
ceiling in the same run when the figure has one.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".venv/bin"
POSTGRES_SCHEMES = frozenset({"postgres", "postgresql", "pgsql"})
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


@dataclass
class Figure:
    """One row of the table: what was measured, beside its ceiling, against its goal."""

    name: str  # e.g. "POST /publishes (3 targets)"
    value: float  # the measured figure, in `unit`
    unit: str  # "req/s", "s", "ms", "/s"
    goal: str  # the goal as the issue states it, e.g. ">= 0.5 of ceiling"
    met: bool | None  # None when a broken or skipped run cannot tell
    ceiling: float | None = None  # measured in the same run, same unit
    ratio: float | None = None  # value / ceiling when there is a ceiling
    extra: dict[str, Any] = field(default_factory=dict)  # p50/p99, counts, notes

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def machine() -> dict[str, Any]:
    """Cores and memory of the machine the figures come from."""
    memory = 0
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemTotal:"):
                    memory = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    return {"cores": os.cpu_count(), "memory_bytes": memory, "load_average": list(os.getloadavg())}


def parse_json(text: str | bytes, what: str) -> Any:
    """`text` as JSON, or a RuntimeError that quotes what `what` answered instead."""
    try:
        return json.loads(text)
    except ValueError:
        raise RuntimeError(f"{what} did not answer JSON: {text[:1000]!r}") from None


# --- processes -------------------------------------------------------------------------------


def free_port() -> int:
    """A TCP port on the loopback interface that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Stack:
    """The processes a benchmark started; stop() ends each of them (and its children).

    Each process runs in its own session, so a Ctrl-C reaches only the benchmark, which then
    stops them in order, and stop() can end a process's whole group.
    """

    logs: Path
    env: dict[str, str]
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    files: list[IO[bytes]] = field(default_factory=list)
    marks: dict[str, int] = field(default_factory=dict)  # log lines before the measured run

    def manage(self, *args: str, extra: dict[str, str] | None = None) -> str:
        """Run `manage.py ARGS` to completion; its standard output, or a RuntimeError."""
        done = subprocess.run(  # noqa: S603
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env={**self.env, **(extra or {})},
            capture_output=True,
            text=True,
        )
        if done.returncode:
            raise RuntimeError(f"manage.py {args[0]} failed:\n{done.stderr[-3000:]}")
        return done.stdout

    def shell(self, script: str, **extra: str) -> Any:
        """Run a script in `manage.py shell`; its last line of output is read as JSON."""
        return parse_json(self.manage("shell", "-v0", "-c", script, extra=extra).strip().rpartition("\n")[2], "shell")

    def start(self, name: str, argv: list[str], env: dict[str, str] | None = None, *, again: bool = False) -> None:
        """Start `argv` in the project folder, its output going to LOGS/NAME.log (appended to
        when `again`: the same process started anew)."""
        log = (self.logs / f"{name}.log").open("ab" if again else "wb")
        self.files.append(log)
        self.procs[name] = subprocess.Popen(  # noqa: S603
            argv, cwd=ROOT, env=env or self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def check_alive(self) -> None:
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {proc.returncode}:\n{self.tail(name)}")

    def tail(self, name: str, lines: int = 20) -> str:
        return "\n".join(self.log_lines(name)[-lines:])

    def mark(self) -> None:
        self.marks = {name: len(self.log_lines(name)) for name in self.procs}

    def new_lines(self, name: str) -> list[str]:
        return self.log_lines(name)[self.marks.get(name, 0) :]

    def log_lines(self, name: str) -> list[str]:
        path = self.logs / f"{name}.log"
        return path.read_text(errors="replace").splitlines() if path.exists() else []

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()  # gunicorn and celery shut down gracefully on SIGTERM
        for proc in self.procs.values():
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # its own session: the group is its process id
                proc.wait()
            with contextlib.suppress(ProcessLookupError):  # leftover children, e.g. prefork pool
                os.killpg(proc.pid, signal.SIGKILL)
        for log in self.files:
            log.close()


def wait_for(stack: Stack, what: str, ready: Callable[[], bool], timeout: float = 60) -> None:
    """Poll `ready` until it is true; fail when a process of `stack` dies or time runs out."""
    deadline = time.monotonic() + timeout
    while not ready():
        stack.check_alive()
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} not ready after {timeout:.0f} s")
        time.sleep(0.1)


def http_ok(port: int, path: str) -> bool:
    """Whether GET http://127.0.0.1:PORT/PATH answers 200 now."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path)
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def procfile_command(process: str, **variables: str) -> list[str]:
    """The Procfile's command line of `process`, split as the shell would, with $NAME
    variables replaced by `variables` and ${NAME:-default} by the variable or its default."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, sep, command = line.partition(":")
        if sep and name.strip() == process:
            command = re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: variables.get(m.group(1), m.group(2)), command)
            for variable, value in variables.items():
                command = command.replace(f"${{{variable}}}", value).replace(f"${variable}", value)
            return shlex.split(command)
    raise RuntimeError(f"the Procfile has no {process!r} process")


# make run's greeting (manage.py welcome): a process of the Procfile, but not of the service.
GREETING = "welcome"


def procfile_processes() -> list[str]:
    """The names of the Procfile's service processes, in its order (not the greeting)."""
    lines = (ROOT / "Procfile").read_text().splitlines()
    names = [line.partition(":")[0].strip() for line in lines if line.strip() and not line.startswith("#")]
    return [name for name in names if name != GREETING]


def procfile_workers() -> list[str]:
    """The Procfile's Celery worker processes: one per lane."""
    return [name for name in procfile_processes() if " worker " in f" {' '.join(procfile_command(name))} "]


def replace_option(argv: list[str], option: str, value: str) -> list[str]:
    """`argv` with the value after `option` replaced (appended when `option` is absent)."""
    if option not in argv:
        return [*argv, option, value]
    at = argv.index(option)
    return [*argv[: at + 1], value, *argv[at + 2 :]]


# --- databases -------------------------------------------------------------------------------


@contextlib.contextmanager
def scratch_database(scratch: str, prefix: str | None = None) -> Iterator[tuple[str, str]]:
    """(url, description) of a scratch database, dropped on exit: beside DATABASE_URL's when that
    is PostgreSQL (named PREFIX + random suffix, or after DATABASE_URL's own database), else a
    SQLite file in the scratch folder."""
    given = urlsplit(os.environ.get("DATABASE_URL", ""))
    if given.scheme not in POSTGRES_SCHEMES:
        yield f"sqlite:///{scratch}/bench.sqlite3", "SQLite"
        return
    name = f"{prefix or (given.path.strip('/') or 'bench') + '_'}{secrets.token_hex(4)}"[:63]
    with postgres_database(urlunsplit(given), name) as url:
        yield url, f"PostgreSQL (scratch database {name})"


@contextlib.contextmanager
def postgres_database(server_url: str, name: str) -> Iterator[str]:
    """Create database `name` on the PostgreSQL server of `server_url`; its URL; drop it on exit."""
    import psycopg
    from psycopg import sql

    given = urlsplit(server_url)
    maintenance = urlunsplit(given._replace(scheme="postgresql", path="/postgres"))
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlunsplit(given._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(maintenance, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def redis_url(db: int) -> str:
    """REDIS_URL (or the local default) pointed at database number `db`."""
    given = urlsplit(os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL)
    return urlunsplit(given._replace(path=f"/{db}"))


def git_commit() -> str | None:
    """The checked-out commit, read from .git without running git (None outside a checkout)."""
    git = ROOT / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head
        ref = head[5:]
        if (git / ref).exists():
            return (git / ref).read_text().strip()
        for line in (git / "packed-refs").read_text().splitlines():
            if line.endswith(f" {ref}"):
                return line.split()[0]
    except OSError:
        pass
    return None
